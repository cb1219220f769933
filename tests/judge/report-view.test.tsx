// The Ink report view (tui/report/report-view.tsx) is a pure function of a Report: tables with the
// report's numbers and bars whose length follows score and delta.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import type { Judgment } from "../../src/core/events/registry.ts";
import { summarise } from "../../src/judge/report.ts";
import type { PickCell } from "../../src/judge/sweep-data.ts";
import { barCells, ReportView, renderReportView } from "../../tui/report/report-view.tsx";

const graded = (score: number): Judgment => ({
  graded: true,
  score,
  passed: score === 1 ? 1 : 0,
  total: 1,
  metric: null,
  reason: "",
  judge: "j",
});

const cell = (task: string, mode: "agg" | "seq", score: number | null): PickCell => ({
  task,
  domain: "d",
  mode,
  k: 2,
  sweep: "swp_x",
  carried: false,
  pick:
    score === null
      ? { kind: "fallback", label: "agg1" }
      : { kind: "selector", label: mode === "agg" ? "agg1" : "c2" },
  judgment:
    score === null
      ? {
          graded: false,
          score: null,
          passed: null,
          total: null,
          metric: null,
          reason: "fell back",
          judge: "",
        }
      : graded(score),
  fellBack: 0,
  similarity: null,
  spend: { stages: 0.5, selection: 0.1, reflection: 0, executor: 1 },
});

const report = summarise({
  picks: [cell("a", "agg", 1), cell("b", "agg", 1), cell("a", "seq", 0), cell("b", "seq", null)],
  bases: [
    { task: "a", k: 2, runs: [{ label: "base1", judgment: graded(0.5) }], executor: 0 },
    { task: "b", k: 2, runs: [{ label: "base1", judgment: graded(0.5) }], executor: 0 },
  ],
  bench: "demo",
  substrate: "oc",
  seed: null,
  tag: "",
  sweeps: ["swp_x"],
});

describe("ReportView", () => {
  test("shows the title, the table's numbers and the warnings", () => {
    const { lastFrame } = render(<ReportView report={report} color={false} width={120} />);
    const frame = lastFrame() ?? "";
    expect(frame).toContain("demo-oc k=2 modes=parallel,sequential");
    const aggRow = frame.split("\n").find((l) => l.startsWith("parallel k=2"));
    expect(aggRow?.split("│").map((c) => c.trim())).toEqual([
      "parallel k=2",
      "2/2",
      "1.000",
      "1.000",
      "0.500",
      "+0.500",
      "2",
      "0",
      "0",
    ]);
    const seqRow = frame.split("\n").find((l) => l.startsWith("sequential k=2"));
    expect(
      seqRow
        ?.split("│")
        .map((c) => c.trim())
        .slice(0, 6),
    ).toEqual(["sequential k=2", "1/2", "0.000", "0.000", "0.500", "-0.500"]);
    expect(frame).toContain("warning: sequential k=2: selection fell back on 1");
  });

  test("bars: a full score fills the bar; the delta grows right when positive, left when negative", () => {
    const { lastFrame } = render(<ReportView report={report} color={false} width={100} />);
    const lines = (lastFrame() ?? "").split("\n");
    const scoreStart = lines.findIndex((l) => l.startsWith("score (0 … 1)"));
    const aggScore = lines[scoreStart + 1] ?? "";
    const seqScore = lines[scoreStart + 2] ?? "";
    const full = (aggScore.match(/█/g) ?? []).length;
    expect(full).toBeGreaterThan(0);
    expect(aggScore).toContain("1.000");
    expect((seqScore.match(/█/g) ?? []).length).toBe(0);
    const deltaStart = lines.findIndex((l) => l.startsWith("Δ vs base harness"));
    const aggDelta = lines[deltaStart + 1] ?? "";
    const seqDelta = lines[deltaStart + 2] ?? "";
    const [aggLeft, aggRight] = aggDelta.split("│");
    const [seqLeft, seqRight] = seqDelta.split("│");
    expect((aggLeft?.match(/█/g) ?? []).length).toBe(0);
    expect((aggRight?.match(/█/g) ?? []).length).toBe(full / 4);
    expect((seqLeft?.match(/█/g) ?? []).length).toBe(full / 4);
    expect((seqRight?.match(/█/g) ?? []).length).toBe(0);
    expect(aggDelta).toContain("+0.500");
    expect(seqDelta).toContain("-0.500");
  });

  test("barCells clamps to [0, 1] and reads null as empty", () => {
    expect(barCells(1, 40)).toBe(40);
    expect(barCells(0.25, 40)).toBe(10);
    expect(barCells(2, 40)).toBe(40);
    expect(barCells(null, 40)).toBe(0);
  });

  test("an empty report says so; without colour the string has no escapes", () => {
    const empty = summarise({
      ...{ picks: [], bases: [] },
      bench: "demo",
      substrate: "oc",
      seed: null,
      tag: "",
      sweeps: ["swp_y"],
    });
    const { lastFrame } = render(<ReportView report={empty} color={false} />);
    expect(lastFrame()).toContain("no task has finished a mode in these sweeps yet");
    expect(renderReportView(report, { columns: 120, color: false })).not.toContain("\x1b[");
  });
});
