// The Ink report view's answers to issue 7: the paired delta against the base harness per task (on
// request, and always in the browser's tab) and the spend split into improver parts and executor.
// The figures are the Report's own; these tests read them back from the drawn frame.

import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import type { Judgment } from "../../src/core/events/registry.ts";
import { summarise } from "../../src/judge/report.ts";
import type { PickCell } from "../../src/judge/sweep-data.ts";
import { perTaskTable, ReportView, renderReportView } from "../../tui/report/report-view.tsx";

const graded = (score: number): Judgment => ({
  graded: true,
  score,
  passed: score === 1 ? 1 : 0,
  total: 1,
  metric: null,
  reason: "",
  judge: "j",
});

const ungraded: Judgment = {
  graded: false,
  score: null,
  passed: null,
  total: null,
  metric: null,
  reason: "judge timed out",
  judge: "j",
};

const pick = (
  task: string,
  mode: "agg" | "seq",
  judgment: Judgment,
  spend = { stages: 0.5, selection: 0.125, reflection: 0.0625, executor: 1 },
): PickCell => ({
  task,
  domain: "d",
  mode,
  k: 2,
  sweep: "swp_x",
  carried: false,
  pick: { kind: "selector", label: mode === "agg" ? "agg1" : "c2" },
  judgment,
  fellBack: 0,
  similarity: null,
  spend,
});

const base = (task: string, score: number) => ({
  task,
  k: 2,
  runs: [{ label: "base1", judgment: graded(score) }],
  executor: 0,
});

// alpha: agg +0.5, seq −0.25; beta: agg +0.25, seq ungraded (no pair); gamma: no base run graded.
const report = summarise({
  picks: [
    pick("alpha", "agg", graded(1)),
    pick("alpha", "seq", graded(0.25)),
    pick("beta", "agg", graded(0.75)),
    pick("beta", "seq", ungraded),
    pick("gamma", "agg", graded(1), { stages: 2, selection: 0, reflection: 0, executor: 3 }),
  ],
  bases: [base("alpha", 0.5), base("beta", 0.5)],
  bench: "demo",
  substrate: "oc",
  seed: null,
  tag: "",
  sweeps: ["swp_x"],
});

const cells = (row: string | undefined) => row?.split("│").map((c) => c.trim());
const rowOf = (frame: string, first: string) =>
  frame.split("\n").find((l) => l.trimStart().startsWith(first));
const after = (frame: string, title: string) => {
  const lines = frame.split("\n");
  return lines.slice(lines.findIndex((l) => l.startsWith(title)));
};

describe("ReportView: the per-task delta table", () => {
  test("off by default in the view; --per-task turns it on", () => {
    const plain = render(<ReportView report={report} color={false} width={120} />).lastFrame();
    expect(plain).not.toContain("per task (pick − base harness)");
    const frame =
      render(<ReportView report={report} color={false} width={120} perTask />).lastFrame() ?? "";
    const table = after(frame, "per task (pick − base harness)");
    expect(cells(table[1])).toEqual(["task", "Δ parallel k=2", "Δ sequential k=2"]);
    // Only tasks paired in some mode; a cell without a pair shows a dash, never a zero.
    expect(cells(rowOf(frame, "alpha"))).toEqual(["alpha", "+0.500", "-0.250"]);
    expect(cells(rowOf(frame, "beta"))).toEqual(["beta", "+0.250", "—"]);
    expect(frame).not.toMatch(/^gamma/m);
    // The mean the score table shows is the mean of these rows.
    const agg = report.summaries.find((s) => s.mode === "agg");
    expect(agg?.delta).toMatchObject({ n: 2, mean: 0.375 });
    expect(cells(rowOf(frame, "parallel k=2"))?.[5]).toBe("+0.375");
  });

  test("perTaskTable has a column per summary that paired a task, and rows in task order", () => {
    const { columns, rows } = perTaskTable(report.summaries);
    expect(columns.map((c) => c.header)).toEqual(["task", "Δ parallel k=2", "Δ sequential k=2"]);
    expect(rows).toEqual([
      { task: "alpha", deltas: [0.5, -0.25] },
      { task: "beta", deltas: [0.25, null] },
    ]);
  });

  test("with nothing paired it says what to run instead of drawing an empty table", () => {
    const unpaired = summarise({
      picks: [pick("alpha", "agg", graded(1))],
      bases: [],
      bench: "demo",
      substrate: "oc",
      seed: null,
      tag: "",
      sweeps: ["swp_x"],
    });
    const frame = render(<ReportView report={unpaired} color={false} perTask />).lastFrame();
    expect(frame).toContain(
      "no task has both a graded pick and a graded base harness (harness2 judge --bases)",
    );
  });

  test("renderReportView: the browser's tab shows it unless told not to; the CLI passes its flag", () => {
    expect(renderReportView(report, { columns: 120, color: false })).toMatch(
      /per task \(pick − base harness\)[\s\S]*alpha\s+│\s+\+0\.500 │\s+-0\.250/,
    );
    expect(renderReportView(report, { columns: 120, color: false, perTask: false })).not.toContain(
      "per task",
    );
  });
});

describe("ReportView: spend", () => {
  test("split into stages, selection and reflection (the improver) and executor rollouts", () => {
    const frame = render(<ReportView report={report} color={false} width={120} />).lastFrame();
    const table = after(frame ?? "", "spend (USD)");
    expect(cells(table[0])).toEqual([
      "spend (USD)",
      "stages",
      "selection",
      "reflection",
      "improver",
      "executor",
    ]);
    // parallel: alpha, beta and gamma; sequential: alpha and beta. Improver = the three parts.
    const agg = cells(table.find((l) => l.startsWith("parallel k=2")));
    const seq = cells(table.find((l) => l.startsWith("sequential k=2")));
    expect(agg).toEqual(["parallel k=2", "$3.0000", "$0.2500", "$0.1250", "$3.3750", "$5.0000"]);
    expect(seq).toEqual(["sequential k=2", "$1.0000", "$0.2500", "$0.1250", "$1.3750", "$2.0000"]);
  });
});

describe("ReportView: spread (docs/differences.md S14)", () => {
  test("each mean with n, sd and its 95% interval; the delta's interval next to the delta", () => {
    const frame =
      render(<ReportView report={report} color={false} width={120} />).lastFrame() ?? "";
    const table = after(frame, "spread");
    expect(cells(table[0])).toEqual([
      "spread",
      "n",
      "score",
      "sd",
      "95% CI",
      "paired",
      "Δ vs base",
      "Δ sd",
      "Δ 95% CI",
    ]);
    // parallel: scores [1, 0.75, 1] → mean 0.917, sd 0.144, t(2) 4.303, half-width 0.359;
    // differences [+0.5, +0.25] → mean 0.375, sd 0.177, t(1) 12.706, half-width 1.588.
    expect(cells(table.find((l) => l.startsWith("parallel k=2")))).toEqual([
      "parallel k=2",
      "3",
      "0.917",
      "0.144",
      "[0.558, 1.275]",
      "2",
      "+0.375",
      "0.177",
      "[-1.213, +1.963]",
    ]);
    // sequential: one graded pick, one paired task: no sd and no interval, shown as "—", never 0.
    expect(cells(table.find((l) => l.startsWith("sequential k=2")))).toEqual([
      "sequential k=2",
      "1",
      "0.250",
      "—",
      "—",
      "1",
      "-0.250",
      "—",
      "—",
    ]);
    const agg = report.summaries[0];
    expect(agg?.delta.spread).toMatchObject({ low: -1.213, high: 1.963, sd: 0.177 });
    expect(agg?.scoreSpread).toMatchObject({ low: 0.558, high: 1.275, sd: 0.144 });
  });

  test("comparisons carry their interval; the includes-0 notes are drawn; bars are unchanged", () => {
    // Wide enough that no line wraps.
    const frame = renderReportView(report, { columns: 200, color: false, perTask: false });
    expect(frame).toContain(
      "base harness k=2: 2 graded run(s) on 2 task(s), mean 0.500, executor $0.0000 (sd 0.000, 95% CI [0.500, 0.500])",
    );
    expect(frame).toContain("sequential − parallel at k=2: -0.750 on 1 task(s), 95% CI —");
    expect(frame).toContain(
      "note: parallel k=2: the delta's 95% interval [-1.213, +1.963] includes 0: not distinguishable from no change on these 2 tasks",
    );
    expect(frame).toContain(
      "note: sequential k=2: the delta rests on 1 paired task, too few for an interval",
    );
    const bars = after(frame, "Δ vs base harness (-1 … +1)");
    expect(bars[1]).toMatch(/parallel k=2\s+│█+ \+0\.375$/);
  });
});

describe("a narrow terminal", () => {
  test("at 60 columns every line fits and the delta and its interval are never cut", () => {
    const frame = renderReportView(report, { columns: 60, color: false, perTask: false });
    const lines = frame.split("\n");
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
    const table = lines.slice(
      0,
      lines.findIndex((l) => l.startsWith("spread")),
    );
    const head = table.find((l) => l.startsWith("mode × k")) as string;
    expect(head).toContain("Δ vs base");
    expect(head).not.toContain("…");
    for (const s of report.summaries) {
      const row = table.find((l) => l.startsWith(s.name)) as string;
      expect(row).toContain(
        `${(s.delta.mean ?? 0) >= 0 ? "+" : ""}${(s.delta.mean ?? 0).toFixed(3)}`,
      );
      expect(row).not.toContain("…");
    }
    expect(frame).toContain("Δ 95% CI");
  });
});
