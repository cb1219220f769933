// Renders a Report as terminal text (tables plus horizontal bar charts of score and delta) or as
// Markdown. Every number printed is the Report's own number with a fixed number of decimals, so the
// text, the Markdown and `--json` always agree. Formatting only: it never computes a figure.

import { baseSpread, fixed3, interval, signed3, spreadSuffix } from "../core/lib/format.ts";
import { paint as paintText, type Style } from "../core/lib/paint.ts";
import { textTable } from "../core/lib/text-table.ts";
import type { ModeSummary, Report } from "../core/report/types.ts";

export type TextOptions = {
  /** ANSI colours (a TTY without NO_COLOR). */
  color?: boolean;
  /** Block characters for bars; false gives plain ASCII for logs and pipes. */
  unicode?: boolean;
  /** Add the per-task delta table. */
  perTask?: boolean;
};

const f3 = fixed3;
const ci95 = interval;
/** Dollars with 4 decimals, no sign (the report's spend columns). */
const usd4 = (x: number): string => x.toFixed(4);

/** Columns of the score table, in order; a test reads them back against `--json`. */
export const SCORE_COLUMNS = [
  "mode",
  "k",
  "tasks",
  "n",
  "score",
  "all-pass",
  "base",
  "Δ",
  "paired",
  "ungraded",
  "unjudged",
  "unfinished",
] as const;

export function scoreRow(s: ModeSummary): string[] {
  return [
    modeName(s),
    String(s.k),
    String(s.tasks),
    String(s.n),
    f3(s.score),
    f3(s.allPass),
    f3(s.base.score),
    signed3(s.delta.mean),
    String(s.delta.n),
    String(s.ungraded),
    String(s.unjudged),
    String(s.unfinished),
  ];
}

/**
 * Columns of the spread table: each mean over tasks with its n, sample sd and 95% t-interval
 * (docs/differences.md S14); the Δ interval is the paired t-interval of the per-task differences.
 */
export const SPREAD_COLUMNS = [
  "mode",
  "k",
  "n",
  "score",
  "sd",
  "ci95",
  "paired",
  "Δ",
  "Δ-sd",
  "Δ-ci95",
] as const;

export function spreadRow(s: ModeSummary): string[] {
  return [
    modeName(s),
    String(s.k),
    String(s.scoreSpread.n),
    f3(s.score),
    f3(s.scoreSpread.sd),
    ci95(s.scoreSpread, { compact: true }),
    String(s.delta.spread.n),
    signed3(s.delta.mean),
    f3(s.delta.spread.sd),
    ci95(s.delta.spread, { signed: true, compact: true }),
  ];
}

const SPREAD_TITLE = "spread over tasks (sample sd, 95% t-interval of the mean; — below 2 tasks)";

export const PROCESS_COLUMNS = [
  "mode",
  "k",
  "selector",
  "trivial",
  "fallback",
  "failed",
  "final",
  "cand",
  "base",
  "fell-back",
  "similarity",
  "stages$",
  "select$",
  "reflect$",
  "improver$",
  "executor$",
] as const;

export function processRow(s: ModeSummary): string[] {
  return [
    modeName(s),
    String(s.k),
    String(s.picks.selector),
    String(s.picks.trivial),
    String(s.picks.fallback),
    String(s.picks.failed),
    String(s.picks.final),
    String(s.picks.candidate),
    String(s.picks.base),
    String(s.fellBack.stages),
    f3(s.similarity.meanLineJaccard),
    usd4(s.spend.stages),
    usd4(s.spend.selection),
    usd4(s.spend.reflection),
    usd4(s.spend.improver),
    usd4(s.spend.executor),
  ];
}

const modeName = (s: ModeSummary) => (s.mode === "agg" ? "parallel" : "sequential");

/** Left-aligned first column, right-aligned numbers, two spaces between columns. */
export function table(header: readonly string[], rows: readonly string[][]): string[] {
  const columns = header.map((h, i) => ({ header: h, align: i === 0 ? "left" : "right" }) as const);
  return textTable(columns, rows);
}

export const BAR_WIDTH = 40;

/** A bar of `value` in [0, 1] over `width` cells. */
export function scoreBar(value: number | null, width: number, unicode: boolean): string {
  if (value === null) return "";
  const filled = Math.round(Math.max(0, Math.min(1, value)) * width);
  return (unicode ? "█" : "#").repeat(filled);
}

/** A bar of `value` in [-1, 1] around a centre axis, `half` cells each side. */
export function deltaBar(
  value: number | null,
  half: number,
  unicode: boolean,
): { left: string; axis: string; right: string } {
  const axis = unicode ? "│" : "|";
  if (value === null) return { left: " ".repeat(half), axis, right: "" };
  const cells = Math.round(Math.min(1, Math.abs(value)) * half);
  const fill = (unicode ? "█" : "#").repeat(cells);
  return value < 0
    ? { left: fill.padStart(half), axis, right: "" }
    : { left: " ".repeat(half), axis, right: fill };
}

type Paint = (style: Style, text: string) => string;

function charts(report: Report, opts: Required<TextOptions>, paint: Paint): string[] {
  if (report.summaries.length === 0) return [];
  const names = report.summaries.map((s) => s.name);
  const w = Math.max(...names.map((n) => n.length));
  const half = BAR_WIDTH / 2;
  const out = ["score (0 … 1)"];
  for (const s of report.summaries) {
    const bar = scoreBar(s.score, BAR_WIDTH, opts.unicode);
    out.push(
      `  ${s.name.padEnd(w)}  ${paint("cyan", bar)}${bar ? " " : ""}${f3(s.score)}`.trimEnd(),
    );
  }
  out.push("", "Δ vs base harness (-1 … +1)");
  for (const s of report.summaries) {
    const b = deltaBar(s.delta.mean, half, opts.unicode);
    const colour = (s.delta.mean ?? 0) < 0 ? "red" : "green";
    const bars = `${paint(colour, b.left)}${b.axis}${paint(colour, b.right)}`;
    out.push(`  ${s.name.padEnd(w)}  ${bars} ${signed3(s.delta.mean)}`);
  }
  return out;
}

function perTaskRows(report: Report): { header: string[]; rows: string[][] } {
  const cols = report.summaries.filter((s) => s.delta.perTask.length > 0);
  const tasks = [...new Set(cols.flatMap((s) => s.delta.perTask.map((d) => d.task)))].sort();
  const header = ["task", ...cols.map((s) => `Δ ${s.name}`)];
  const rows = tasks.map((t) => [
    t,
    ...cols.map((s) => signed3(s.delta.perTask.find((d) => d.task === t)?.delta ?? null)),
  ]);
  return { header, rows };
}

/** The report for a terminal or a log. */
export function renderText(report: Report, options: TextOptions = {}): string {
  const opts: Required<TextOptions> = {
    color: options.color ?? false,
    unicode: options.unicode ?? true,
    perTask: options.perTask ?? false,
  };
  const paint: Paint = (style, text) => paintText(text, style, opts.color);
  const out: string[] = [report.title, "=".repeat(Math.max(40, report.title.length))];
  out.push(`sweeps: ${report.sweeps.join(", ")}`);
  if (report.judges.length > 0) out.push(`judge: ${report.judges.join("; ")}`);
  if (report.summaries.length === 0) {
    out.push("", "no task has finished a mode in these sweeps yet");
  } else {
    out.push("", ...table(SCORE_COLUMNS, report.summaries.map(scoreRow)));
    out.push("", SPREAD_TITLE, ...table(SPREAD_COLUMNS, report.summaries.map(spreadRow)));
    out.push("", ...table(PROCESS_COLUMNS, report.summaries.map(processRow)));
  }
  if (report.bases.length > 0) out.push("");
  for (const b of report.bases) {
    out.push(
      `base harness k=${b.k}: ${b.tasks} task(s), ${b.graded} graded run(s), ${b.ungraded} ungraded, ${b.unjudged} unjudged; mean ${f3(b.score)}${baseSpread(b.spread)}; executor $${usd4(b.executor)}`,
    );
  }
  const chart = charts(report, opts, paint);
  if (chart.length > 0) out.push("", ...chart);
  if (report.comparisons.length > 0) {
    out.push("", "comparisons (paired on the tasks graded in both)");
    for (const c of report.comparisons) {
      out.push(`  ${c.label}: ${signed3(c.mean)} on ${c.n} task(s)${spreadSuffix(c.spread)}`);
    }
  }
  if (opts.perTask) {
    const { header, rows } = perTaskRows(report);
    if (rows.length > 0) out.push("", "per task (pick − base harness)", ...table(header, rows));
  }
  if (report.notes.length > 0) out.push("", ...report.notes.map((n) => `note: ${n}`));
  if (report.warnings.length > 0) {
    out.push("", ...report.warnings.map((w) => paint("yellow", `warning: ${w}`)));
  }
  return `${out.join("\n")}\n`;
}

const mdRow = (cells: readonly string[]) =>
  `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
function mdTable(header: readonly string[], rows: readonly string[][]): string[] {
  return [
    mdRow(header),
    mdRow(header.map((_, i) => (i === 0 ? "---" : "---:"))),
    ...rows.map(mdRow),
  ];
}

/** The report as Markdown, for notes: the same tables, per-task deltas, notes and warnings. */
export function renderMarkdown(report: Report): string {
  const out = [
    `## ${report.title}`,
    "",
    `sweeps: ${report.sweeps.map((s) => `\`${s}\``).join(", ")}`,
  ];
  if (report.judges.length > 0) {
    out.push("", `judge: ${report.judges.map((j) => `\`${j}\``).join("; ")}`);
  }
  if (report.summaries.length > 0) {
    out.push("", ...mdTable(SCORE_COLUMNS, report.summaries.map(scoreRow)));
    out.push(
      "",
      `*${SPREAD_TITLE}*`,
      "",
      ...mdTable(SPREAD_COLUMNS, report.summaries.map(spreadRow)),
    );
    out.push("", ...mdTable(PROCESS_COLUMNS, report.summaries.map(processRow)));
  }
  if (report.bases.length > 0) {
    out.push(
      "",
      ...mdTable(
        [
          "base harness",
          "tasks",
          "graded",
          "ungraded",
          "unjudged",
          "mean",
          "sd",
          "ci95",
          "executor$",
        ],
        report.bases.map((b) => [
          `k=${b.k}`,
          String(b.tasks),
          String(b.graded),
          String(b.ungraded),
          String(b.unjudged),
          f3(b.score),
          f3(b.spread.sd),
          ci95(b.spread),
          usd4(b.executor),
        ]),
      ),
    );
  }
  if (report.comparisons.length > 0) {
    out.push("", "**Comparisons** (paired on the tasks graded in both)", "");
    for (const c of report.comparisons)
      out.push(`- ${c.label}: ${signed3(c.mean)} on ${c.n} task(s)${spreadSuffix(c.spread)}`);
  }
  const { header, rows } = perTaskRows(report);
  if (rows.length > 0)
    out.push("", "**Per task** (pick − base harness)", "", ...mdTable(header, rows));
  if (report.notes.length > 0) {
    out.push("", ...report.notes.map((n) => `> **Note:** ${n}`));
  }
  if (report.warnings.length > 0) {
    out.push("", ...report.warnings.map((w) => `- ⚠ ${w}`));
  }
  return `${out.join("\n")}\n`;
}
