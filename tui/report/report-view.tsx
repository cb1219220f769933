// The report view: the judged sweeps' figures per mode × k as tables (score and paired delta
// against the base harness, the spread of each mean as sd and 95% t-interval, how picks came about,
// spend split into stages, selection, reflection and executor), bar charts of score and delta, and
// optionally the per-task delta table. A pure function of the Report value (used by `harness2
// report` in a terminal and by the browser's report tab); it computes no figure.

import { Box, renderToString, Text } from "ink";
import {
  baseSpread,
  fixed3,
  formatUsd,
  interval,
  signed3,
  spreadSuffix,
} from "../../src/core/lib/format.ts";
import type { ModeSummary, Report } from "../../src/core/report/types.ts";
import { type Column, Table } from "../components/Table.tsx";
import { toneProps } from "../components/theme.ts";

export type ReportViewProps = {
  report: Report;
  color: boolean;
  /** Columns available (bars shrink to fit). */
  width?: number;
  /** Add the per-task delta table (pick − base harness on each paired task). */
  perTask?: boolean;
};

// The report's number texts are the judge's own (lib/format), so the view and `harness2 report`
// never disagree on a digit; tests hold both to the report's JSON numbers.
const f3 = fixed3;
const ci95 = interval;
const usd = (x: number) => formatUsd(x, { precise: true });
const deltaTone = (x: number | null) =>
  x === null || x === 0 ? undefined : x > 0 ? "ok" : "error";

/** The four tables of the view, in order (their keys). */
const TABLE_KEYS = ["score", "spread", "process", "spend"] as const;

const SCORE_COLUMNS: Column<ModeSummary>[] = [
  { header: "mode × k", cell: (s) => s.name },
  { header: "graded", cell: (s) => `${s.n}/${s.tasks}`, align: "right" },
  { header: "score", cell: (s) => f3(s.score), align: "right" },
  { header: "all-pass", cell: (s) => f3(s.allPass), align: "right", drop: 3 },
  { header: "base", cell: (s) => f3(s.base.score), align: "right", drop: 5 },
  {
    header: "Δ vs base",
    cell: (s) => ({ text: signed3(s.delta.mean), tone: deltaTone(s.delta.mean) }),
    align: "right",
  },
  { header: "paired", cell: (s) => String(s.delta.n), align: "right", drop: 2 },
  {
    header: "ungraded",
    cell: (s) => ({ text: String(s.ungraded), tone: s.ungraded > 0 ? "warn" : undefined }),
    align: "right",
    drop: 4,
  },
  { header: "unjudged", cell: (s) => String(s.unjudged), align: "right", drop: 1 },
];

/**
 * Each mean over tasks with its n, sample sd and 95% t-interval ("—" below two tasks), the delta's
 * interval next to the delta. A table of its own: beside the score table's columns it would not fit
 * 100 columns.
 */
const SPREAD_COLUMNS: Column<ModeSummary>[] = [
  { header: "spread", cell: (s) => s.name },
  { header: "n", cell: (s) => String(s.scoreSpread.n), align: "right", drop: 4 },
  { header: "score", cell: (s) => f3(s.score), align: "right", drop: 5 },
  { header: "sd", cell: (s) => f3(s.scoreSpread.sd), align: "right", drop: 1 },
  { header: "95% CI", cell: (s) => ci95(s.scoreSpread), align: "right", drop: 6 },
  { header: "paired", cell: (s) => String(s.delta.spread.n), align: "right", drop: 3 },
  {
    header: "Δ vs base",
    cell: (s) => ({ text: signed3(s.delta.mean), tone: deltaTone(s.delta.mean) }),
    align: "right",
  },
  { header: "Δ sd", cell: (s) => f3(s.delta.spread.sd), align: "right", drop: 2 },
  { header: "Δ 95% CI", cell: (s) => ci95(s.delta.spread, { signed: true }), align: "right" },
];

const PROCESS_COLUMNS: Column<ModeSummary>[] = [
  { header: "mode × k", cell: (s) => s.name },
  {
    header: "picks sel/triv/fb/fail",
    cell: (s) => `${s.picks.selector}/${s.picks.trivial}/${s.picks.fallback}/${s.picks.failed}`,
    align: "right",
  },
  {
    header: "final/cand/base",
    cell: (s) => `${s.picks.final}/${s.picks.candidate}/${s.picks.base}`,
    align: "right",
    drop: 2,
  },
  {
    header: "fell back",
    cell: (s) => ({
      text: String(s.fellBack.stages),
      tone: s.fellBack.stages > 0 ? "warn" : undefined,
    }),
    align: "right",
  },
  { header: "similarity", cell: (s) => f3(s.similarity.meanLineJaccard), align: "right", drop: 1 },
];

/** Spend split as issue 7 asks: improver (= stages + selection + reflection) and executor. */
const SPEND_COLUMNS: Column<ModeSummary>[] = [
  { header: "spend (USD)", cell: (s) => s.name },
  { header: "stages", cell: (s) => usd(s.spend.stages), align: "right", drop: 3 },
  { header: "selection", cell: (s) => usd(s.spend.selection), align: "right", drop: 1 },
  { header: "reflection", cell: (s) => usd(s.spend.reflection), align: "right", drop: 2 },
  { header: "improver", cell: (s) => usd(s.spend.improver), align: "right" },
  { header: "executor", cell: (s) => usd(s.spend.executor), align: "right" },
];

type TaskRow = { task: string; deltas: (number | null)[] };

/** One row per task paired in any summary; a column per summary that paired a task. */
export function perTaskTable(summaries: readonly ModeSummary[]): {
  columns: Column<TaskRow>[];
  rows: TaskRow[];
} {
  const cols = summaries.filter((s) => s.delta.perTask.length > 0);
  const tasks = [...new Set(cols.flatMap((s) => s.delta.perTask.map((d) => d.task)))].sort();
  const rows = tasks.map((task) => ({
    task,
    deltas: cols.map((s) => s.delta.perTask.find((d) => d.task === task)?.delta ?? null),
  }));
  const columns: Column<TaskRow>[] = [
    { header: "task", cell: (r) => r.task, max: 40 },
    ...cols.map(
      (s, i): Column<TaskRow> => ({
        header: `Δ ${s.name}`,
        cell: (r) => {
          const d = r.deltas[i] ?? null;
          return { text: signed3(d), tone: deltaTone(d) };
        },
        align: "right",
      }),
    ),
  ];
  return { columns, rows };
}

/** Filled cells of a bar for `value` in [0, 1]. */
export function barCells(value: number | null, width: number): number {
  if (value === null) return 0;
  return Math.round(Math.max(0, Math.min(1, value)) * Math.max(0, width));
}

function ScoreChart({ summaries, color, barWidth, nameWidth }: ChartProps) {
  return (
    <Box flexDirection="column">
      <Text {...toneProps(color, "strong")}>score (0 … 1)</Text>
      {summaries.map((s) => (
        <Text key={s.name} wrap="truncate">
          {`  ${s.name.padEnd(nameWidth)}  `}
          <Text {...toneProps(color, "accent")}>{"█".repeat(barCells(s.score, barWidth))}</Text>
          {`${s.score === null ? "" : " "}${f3(s.score)}`}
        </Text>
      ))}
    </Box>
  );
}

function DeltaChart({ summaries, color, barWidth, nameWidth }: ChartProps) {
  const half = Math.max(1, Math.floor(barWidth / 2));
  return (
    <Box flexDirection="column">
      <Text {...toneProps(color, "strong")}>Δ vs base harness (-1 … +1)</Text>
      {summaries.map((s) => {
        const d = s.delta.mean;
        const cells = barCells(d === null ? null : Math.abs(d), half);
        const fill = "█".repeat(cells);
        return (
          <Text key={s.name} wrap="truncate">
            {`  ${s.name.padEnd(nameWidth)}  `}
            <Text {...toneProps(color, "error")}>
              {(d !== null && d < 0 ? fill : "").padStart(half)}
            </Text>
            │<Text {...toneProps(color, "ok")}>{d !== null && d > 0 ? fill : ""}</Text>
            {` ${signed3(d)}`}
          </Text>
        );
      })}
    </Box>
  );
}

type ChartProps = {
  summaries: readonly ModeSummary[];
  color: boolean;
  barWidth: number;
  nameWidth: number;
};

function PerTask({
  summaries,
  color,
  width,
}: {
  summaries: readonly ModeSummary[];
  color: boolean;
  width: number;
}) {
  const { columns, rows } = perTaskTable(summaries);
  return (
    <Box marginTop={1} flexDirection="column">
      <Text {...toneProps(color, "strong")}>per task (pick − base harness)</Text>
      {rows.length === 0 ? (
        <Text {...toneProps(color, "dim")}>
          no task has both a graded pick and a graded base harness (harness2 judge --bases)
        </Text>
      ) : (
        <Table columns={columns} rows={rows} color={color} width={width} rowKey={(r) => r.task} />
      )}
    </Box>
  );
}

export function ReportView({ report, color, width = 100, perTask = false }: ReportViewProps) {
  const nameWidth = Math.max(0, ...report.summaries.map((s) => s.name.length));
  const barWidth = Math.max(10, Math.min(40, width - nameWidth - 14));
  const chart = { summaries: report.summaries, color, barWidth, nameWidth };
  return (
    <Box flexDirection="column">
      <Text {...toneProps(color, "strong")}>{report.title}</Text>
      <Text {...toneProps(color, "dim")} wrap="truncate">
        {`sweeps ${report.sweeps.join(", ")}${report.judges.length > 0 ? ` · judge ${report.judges.join("; ")}` : ""}`}
      </Text>
      {report.summaries.length === 0 ? (
        <Box marginTop={1}>
          <Text>no task has finished a mode in these sweeps yet</Text>
        </Box>
      ) : (
        <>
          {[SCORE_COLUMNS, SPREAD_COLUMNS, PROCESS_COLUMNS, SPEND_COLUMNS].map((columns, i) => (
            <Box key={TABLE_KEYS[i]} marginTop={1}>
              <Table
                columns={columns}
                rows={[...report.summaries]}
                color={color}
                width={width}
                rowKey={(s) => s.name}
              />
            </Box>
          ))}
          <Box marginTop={1} flexDirection="column">
            {report.bases.map((b) => (
              <Text key={b.k}>
                {`base harness k=${b.k}: ${b.graded} graded run(s) on ${b.tasks} task(s), mean ${f3(b.score)}, executor ${usd(b.executor)}${baseSpread(b.spread)}`}
              </Text>
            ))}
          </Box>
          <Box marginTop={1}>
            <ScoreChart {...chart} />
          </Box>
          <Box marginTop={1}>
            <DeltaChart {...chart} />
          </Box>
        </>
      )}
      {report.comparisons.length > 0 && (
        <Box marginTop={1} flexDirection="column">
          <Text {...toneProps(color, "strong")}>
            comparisons (paired on the tasks graded in both)
          </Text>
          {report.comparisons.map((c) => (
            <Text key={c.label}>
              {`  ${c.label}: `}
              <Text {...toneProps(color, deltaTone(c.mean))}>{signed3(c.mean)}</Text>
              {` on ${c.n} task(s)${spreadSuffix(c.spread)}`}
            </Text>
          ))}
        </Box>
      )}
      {perTask && <PerTask summaries={report.summaries} color={color} width={width} />}
      {report.notes.length > 0 && (
        <Box marginTop={1} flexDirection="column">
          {report.notes.map((n) => (
            <Text key={n} {...toneProps(color, "dim")}>{`note: ${n}`}</Text>
          ))}
        </Box>
      )}
      {report.warnings.length > 0 && (
        <Box marginTop={1} flexDirection="column">
          {report.warnings.map((w) => (
            <Text key={w} {...toneProps(color, "warn")}>{`warning: ${w}`}</Text>
          ))}
        </Box>
      )}
    </Box>
  );
}

/**
 * The view as a finished string: `harness2 report` in a terminal (per-task table with --per-task)
 * and the browser's report tab, which scrolls and so shows the per-task table unless told not to.
 */
export function renderReportView(
  report: Report,
  opts: { columns: number; color: boolean; perTask?: boolean },
): string {
  const out = renderToString(
    <ReportView
      report={report}
      color={opts.color}
      width={opts.columns}
      perTask={opts.perTask ?? true}
    />,
    { columns: opts.columns },
  );
  return `${out}\n`;
}
