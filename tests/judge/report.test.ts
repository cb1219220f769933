// The report maths (paired delta, ungraded out of the mean, comparisons, k=1 note, warnings) and
// its text and Markdown renderers, which must print exactly the JSON's numbers.
import { describe, expect, test } from "bun:test";
import type { Judgment } from "../../src/core/events/registry.ts";
import { Report } from "../../src/core/report/types.ts";
import { pickKind, summarise } from "../../src/judge/report.ts";
import {
  deltaBar,
  PROCESS_COLUMNS,
  renderMarkdown,
  renderText,
  SCORE_COLUMNS,
  SPREAD_COLUMNS,
  scoreBar,
} from "../../src/judge/report-render.ts";
import type { BaseCell, PickCell } from "../../src/judge/sweep-data.ts";

const JUDGE = '{"scorer":"test"}';

const graded = (score: number, extra: Partial<Judgment> = {}): Judgment => ({
  graded: true,
  score,
  passed: null,
  total: null,
  metric: null,
  reason: "",
  judge: JUDGE,
  ...extra,
});
const ungraded = (reason: string): Judgment => ({
  graded: false,
  score: null,
  passed: null,
  total: null,
  metric: null,
  reason,
  judge: JUDGE,
});

function cell(over: Partial<PickCell> & Pick<PickCell, "task">): PickCell {
  const mode = over.mode ?? "agg";
  return {
    domain: "d",
    mode,
    k: 2,
    sweep: "swp_x",
    carried: false,
    pick: { kind: "selector", label: mode === "agg" ? "agg1" : "c2" },
    judgment: graded(1),
    fellBack: 0,
    similarity: null,
    spend: { stages: 0, selection: 0, reflection: 0, executor: 0 },
    ...over,
  };
}

const baseCell = (task: string, k: number, scores: (number | null)[], executor = 0): BaseCell => ({
  task,
  k,
  runs: scores.map((s, i) => ({
    label: `base${i + 1}`,
    judgment: s === null ? null : graded(s),
  })),
  executor,
});

const input = (picks: PickCell[], bases: BaseCell[] = []) => ({
  picks,
  bases,
  bench: "demo",
  substrate: "oc",
  seed: null,
  tag: "",
  sweeps: ["swp_x"],
});

describe("summarise", () => {
  test("the paired delta is pick minus the mean of the task's graded base runs, per task and averaged", () => {
    const report = summarise(
      input(
        [cell({ task: "a", judgment: graded(1) }), cell({ task: "b", judgment: graded(0.5) })],
        [baseCell("a", 2, [0, 0]), baseCell("b", 2, [0.5, 1, null])],
      ),
    );
    const s = report.summaries[0];
    expect(s?.score).toBe(0.75);
    expect(s?.delta).toEqual({
      n: 2,
      mean: 0.375,
      perTask: [
        { task: "a", score: 1, base: 0, delta: 1 },
        { task: "b", score: 0.5, base: 0.75, delta: -0.25 },
      ],
      // Two differences 1.25 apart: sd 1.25/√2, df 1 t 12.706, half-width 12.706 × 1.25 / 2.
      spread: { n: 2, sd: 0.884, t: 12.706, halfWidth: 7.941, low: -7.566, high: 8.316 },
    });
    expect(s?.base).toEqual({ n: 2, score: 0.375 });
    expect(report.bases).toEqual([
      {
        k: 2,
        tasks: 2,
        graded: 4,
        ungraded: 0,
        unjudged: 1,
        score: 0.375,
        // Task means 0 and 0.75: sd 0.75/√2, half-width 12.706 × 0.75 / 2.
        spread: { n: 2, sd: 0.53, t: 12.706, halfWidth: 4.765, low: -4.39, high: 5.14 },
        executor: 0,
      },
    ]);
  });

  test("ungraded picks are counted, never averaged as zeros; unjudged and unfinished apart", () => {
    const report = summarise(
      input([
        cell({ task: "a", judgment: graded(1) }),
        cell({
          task: "b",
          pick: { kind: "failed", label: "" },
          judgment: ungraded("selection failed: empty pool"),
        }),
        cell({ task: "c", judgment: ungraded("judge error: Error: down") }),
        cell({ task: "d", judgment: null }),
        cell({ task: "e", pick: null, judgment: null }),
      ]),
    );
    const s = report.summaries[0];
    expect(s).toMatchObject({ tasks: 5, n: 1, ungraded: 2, unjudged: 1, unfinished: 1, score: 1 });
    expect(s?.picks).toMatchObject({ selector: 3, failed: 1, final: 1 });
    expect(report.warnings.join("\n")).toContain("failed on 1 of 5 task(s)");
    expect(report.warnings.join("\n")).toContain("1 pick(s) are ungraded because the judge failed");
    expect(report.warnings.join("\n")).toContain("1 pick(s) not judged yet");
  });

  test("k=1: the note calls the gap between the modes a noise floor; absent with one mode", () => {
    const both = summarise(
      input([
        cell({ task: "a", k: 1, mode: "agg", judgment: graded(1) }),
        cell({
          task: "a",
          k: 1,
          mode: "seq",
          pick: { kind: "trivial", label: "c1" },
          judgment: graded(0.75),
        }),
      ]),
    );
    expect(both.notes).toHaveLength(1);
    expect(both.notes[0]).toContain("same procedure");
    expect(both.notes[0]).toContain("gap of 0.250 is a noise floor");
    const one = summarise(input([cell({ task: "a", k: 1, judgment: graded(1) })]));
    expect(one.notes).toEqual([]);
    const k2 = summarise(
      input([cell({ task: "a", mode: "agg" }), cell({ task: "a", mode: "seq" })]),
    );
    expect(k2.notes).toEqual([]);
  });

  test("comparisons pair the same tasks across modes and across k", () => {
    const report = summarise(
      input([
        cell({ task: "a", k: 1, mode: "agg", judgment: graded(0.5) }),
        cell({ task: "b", k: 1, mode: "agg", judgment: graded(0) }),
        cell({ task: "a", k: 2, mode: "agg", judgment: graded(1) }),
        cell({ task: "b", k: 2, mode: "agg", judgment: ungraded("judge returned nothing") }),
        cell({ task: "a", k: 2, mode: "seq", judgment: graded(0.25) }),
        cell({ task: "b", k: 2, mode: "seq", judgment: graded(1) }),
      ]),
    );
    expect(report.summaries.map((s) => s.name)).toEqual([
      "parallel k=1",
      "parallel k=2",
      "sequential k=2",
    ]);
    expect(report.comparisons).toEqual([
      {
        kind: "modes",
        label: "sequential − parallel at k=2",
        a: "sequential k=2",
        b: "parallel k=2",
        n: 1,
        mean: -0.75,
        spread: { n: 1, sd: null, t: null, halfWidth: null, low: null, high: null },
      },
      {
        kind: "k",
        label: "parallel k=2 − k=1",
        a: "parallel k=2",
        b: "parallel k=1",
        n: 1,
        mean: 0.5,
        spread: { n: 1, sd: null, t: null, halfWidth: null, low: null, high: null },
      },
    ]);
  });

  test("the original's warnings: few finals, base picks, stage fallbacks, mixed units, no bases", () => {
    const report = summarise(
      input([
        cell({ task: "a", pick: { kind: "selector", label: "inv1" }, fellBack: 2 }),
        cell({
          task: "b",
          pick: { kind: "selector", label: "base1" },
          judgment: graded(1, { metric: "weighted" }),
        }),
        cell({
          task: "c",
          pick: { kind: "selector", label: "base2" },
          judgment: graded(0, { metric: "unweighted-fallback" }),
        }),
        cell({ task: "d", pick: { kind: "selector", label: "base1" } }),
        cell({ task: "f", pick: { kind: "selector", label: "base3" } }),
        cell({
          task: "e",
          pick: { kind: "fallback", label: "agg1" },
          judgment: ungraded("fell back"),
        }),
      ]),
    );
    const w = report.warnings.join("\n");
    expect(w).toContain("the mode's own final was picked on only 0/5 graded tasks");
    expect(w).toContain("a base run was picked on 4/5 graded tasks");
    expect(w).not.toContain("judge failed");
    expect(w).toContain("2 improvement stage(s) fell back to the inherited harness on 1 task(s)");
    expect(w).toContain("selection fell back on 1 and failed on 0 of 6 task(s)");
    expect(w).toContain("mix scoring units (unweighted-fallback, weighted)");
    expect(w).toContain("no base rollout has a graded judgment");
    expect(report.summaries[0]?.picks).toMatchObject({
      candidate: 1,
      base: 4,
      final: 0,
      fallback: 1,
    });
  });

  test("pick kinds follow the mode's finals", () => {
    expect(pickKind("agg", 2, "agg2")).toBe("final");
    expect(pickKind("agg", 2, "c1")).toBe("candidate");
    expect(pickKind("seq", 2, "c2")).toBe("final");
    expect(pickKind("seq", 2, "c3")).toBe("candidate");
    expect(pickKind("seq", 2, "base1")).toBe("base");
  });

  test("all-pass needs criteria counts; spend and similarity are summed and averaged", () => {
    const spend = { stages: 0.1, selection: 0.02, reflection: 0.00005, executor: 1.25 };
    const report = summarise(
      input([
        cell({
          task: "a",
          judgment: graded(1, { passed: 4, total: 4 }),
          spend,
          similarity: { n: 2, nDistinct: 2, meanLineJaccard: 0.5 },
        }),
        cell({
          task: "b",
          judgment: graded(0.5, { passed: 2, total: 4 }),
          spend,
          similarity: { n: 2, nDistinct: 1, meanLineJaccard: 1 },
        }),
      ]),
    );
    const s = report.summaries[0];
    expect(s?.allPass).toBe(0.5);
    expect(s?.spend).toEqual({
      stages: 0.2,
      selection: 0.04,
      reflection: 0.0001,
      improver: 0.2401,
      executor: 2.5,
    });
    expect(s?.similarity).toEqual({ tasks: 2, meanLineJaccard: 0.75, distinctShare: 0.75 });
    const noCounts = summarise(input([cell({ task: "a", judgment: graded(0.3) })]));
    expect(noCounts.summaries[0]?.allPass).toBeNull();
  });

  test("the report validates against its schema and names its judges and title", () => {
    const report = summarise(
      input([cell({ task: "a" }), cell({ task: "a", mode: "seq" })], [baseCell("a", 2, [0])]),
    );
    expect(Report.parse(report)).toEqual(report);
    expect(report.title).toBe("demo-oc k=2 modes=parallel,sequential");
    expect(report.judges).toEqual([JUDGE]);
    expect(report.warnings.join("\n")).not.toContain("different judges");
    const mixed = summarise(
      input([cell({ task: "a" }), cell({ task: "b", judgment: graded(1, { judge: "other" }) })]),
    );
    expect(mixed.judges).toEqual(["other", JUDGE]);
    expect(mixed.warnings.join("\n")).toContain("2 different judges");
  });
});

/** Reads a rendered table back: header line followed by rows, split on runs of spaces. */
function readTable(text: string, firstColumn: string): string[][] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`${firstColumn} `) || l.startsWith("mode "));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") break;
    rows.push(line.trim().split(/\s+/));
  }
  return rows;
}

const num = (cell: string | undefined): number | null =>
  cell === undefined || cell === "—" ? null : Number(cell);

describe("rendering", () => {
  const report = summarise(
    input(
      [
        cell({ task: "a", k: 1, mode: "agg", judgment: graded(1, { passed: 1, total: 1 }) }),
        cell({ task: "b", k: 1, mode: "agg", judgment: graded(0, { passed: 0, total: 1 }) }),
        cell({ task: "a", k: 1, mode: "seq", judgment: graded(0.333333) }),
        cell({ task: "b", k: 1, mode: "seq", judgment: ungraded("judge returned nothing") }),
      ],
      [baseCell("a", 1, [0]), baseCell("b", 1, [0.5])],
    ),
  );

  test("the text table prints exactly the JSON's numbers", () => {
    const text = renderText(report, { unicode: false });
    const json = JSON.parse(JSON.stringify(report)) as Report;
    const rows = readTable(text, "mode");
    expect(rows).toHaveLength(json.summaries.length);
    expect(rows[0]).toHaveLength(SCORE_COLUMNS.length);
    json.summaries.forEach((s, i) => {
      const r = rows[i] as string[];
      expect(Number(r[1])).toBe(s.k);
      expect(Number(r[2])).toBe(s.tasks);
      expect(Number(r[3])).toBe(s.n);
      expect(num(r[4])).toBe(s.score);
      expect(num(r[5])).toBe(s.allPass);
      expect(num(r[6])).toBe(s.base.score);
      expect(num(r[7])).toBe(s.delta.mean);
      expect(Number(r[8])).toBe(s.delta.n);
      expect(Number(r[9])).toBe(s.ungraded);
      expect(Number(r[10])).toBe(s.unjudged);
      expect(Number(r[11])).toBe(s.unfinished);
    });
    expect(json.summaries[1]?.score).toBe(0.333);
    expect(json.summaries[0]?.delta.mean).toBe(0.25);
    expect(text).toContain("  parallel k=1    ");
    expect(text).toContain("note: k=1");
  });

  test("the process table carries provenance, fallbacks and spend from the same numbers", () => {
    const text = renderText(report, { unicode: false });
    const header = text.split("\n").find((l) => l.startsWith("mode") && l.includes("selector"));
    expect(header?.trim().split(/\s+/)).toEqual([...PROCESS_COLUMNS]);
  });

  test("bars: a score fills its share; a delta grows left or right of the axis; ASCII when asked", () => {
    expect(scoreBar(1, 10, false)).toBe("##########");
    expect(scoreBar(0.5, 10, true)).toBe("█████");
    expect(scoreBar(null, 10, true)).toBe("");
    expect(deltaBar(1, 4, false)).toEqual({ left: "    ", axis: "|", right: "####" });
    expect(deltaBar(-0.5, 4, false)).toEqual({ left: "  ##", axis: "|", right: "" });
    const plain = renderText(report, { unicode: false });
    expect(plain).not.toContain("█");
    expect(plain).not.toContain("\x1b[");
    expect(renderText(report, { color: true })).toContain("\x1b[");
  });

  test("markdown has the same tables, per-task deltas, notes and warnings", () => {
    const md = renderMarkdown(report);
    expect(md).toContain(`| ${SCORE_COLUMNS.join(" | ")} |`);
    expect(md).toContain(
      "| parallel | 1 | 2 | 2 | 0.500 | 0.500 | 0.250 | +0.250 | 2 | 0 | 0 | 0 |",
    );
    expect(md).toContain("| a | +1.000 | +0.333 |");
    expect(md).toContain("| b | -0.500 | — |");
    expect(md).toContain("> **Note:** k=1");
  });

  test("per-task deltas appear in the text only when asked", () => {
    expect(renderText(report)).not.toContain("per task");
    expect(renderText(report, { perTask: true })).toContain("per task (pick − base harness)");
  });
});

describe("spread: n, sd and the 95% t-interval of each mean (docs/differences.md S14)", () => {
  // Picks 1, 0.5, 1, 1 against base harness means 0, 0.5, 0, 0: per-task differences [1, 0, 1, 1].
  const picks = [
    cell({ task: "a", judgment: graded(1) }),
    cell({ task: "b", judgment: graded(0.5) }),
    cell({ task: "c", judgment: graded(1) }),
    cell({ task: "d", judgment: graded(1) }),
  ];
  const bases = [
    baseCell("a", 2, [0]),
    baseCell("b", 2, [0.5]),
    baseCell("c", 2, [0]),
    baseCell("d", 2, [0]),
  ];
  const report = summarise(input(picks, bases));

  /** The spread table's rows, read back from the text. */
  function spreadRows(text: string): string[][] {
    const lines = text.split("\n");
    const head = lines.findIndex((l) => l.startsWith("mode ") && l.includes("ci95"));
    expect(lines[head]?.trim().split(/\s+/)).toEqual([...SPREAD_COLUMNS]);
    const rows: string[][] = [];
    for (const line of lines.slice(head + 1)) {
      if (line.trim() === "") break;
      rows.push(line.trim().split(/\s+/));
    }
    return rows;
  }
  const bounds = (cell: string | undefined): [number, number] | null => {
    if (cell === "—") return null;
    const m = /^\[([-+]?[\d.]+),([-+]?[\d.]+)\]$/.exec(cell ?? "");
    if (!m) throw new Error(`not an interval: ${cell}`);
    return [Number(m[1]), Number(m[2])];
  };

  test("the paired delta: mean 0.75, sd 0.5, t(3) 3.182, half-width 0.7955 → [-0.045, +1.546]", () => {
    const s = report.summaries[0];
    expect(s?.delta.mean).toBe(0.75);
    expect(s?.delta.spread).toEqual({
      n: 4,
      sd: 0.5,
      t: 3.182,
      halfWidth: 0.796,
      low: -0.045,
      high: 1.546,
    });
    // The mean score 0.875 over scores [1, 0.5, 1, 1]: sd 0.25, half-width 3.182 × 0.25 / 2.
    expect(s?.score).toBe(0.875);
    expect(s?.scoreSpread).toEqual({
      n: 4,
      sd: 0.25,
      t: 3.182,
      halfWidth: 0.398,
      low: 0.477,
      high: 1.273,
    });
    expect(Report.parse(report)).toEqual(report);
  });

  test("an interval that includes 0 gets the note in the text and the Markdown; one that excludes it does not", () => {
    const note =
      "parallel k=2: the delta's 95% interval [-0.045, +1.546] includes 0: not distinguishable from no change on these 4 tasks";
    expect(report.notes).toEqual([note]);
    expect(renderText(report)).toContain(`note: ${note}`);
    expect(renderMarkdown(report)).toContain(`> **Note:** ${note}`);
    // Differences [1, 1, 1, 0.5]: mean 0.875, sd 0.25, interval [0.477, 1.273] — clear of 0.
    const clear = summarise(
      input(
        ["a", "b", "c", "d"].map((task) =>
          cell({ task, judgment: graded(task === "d" ? 0.5 : 1) }),
        ),
        ["a", "b", "c", "d"].map((task) => baseCell(task, 2, [0])),
      ),
    );
    expect(clear.summaries[0]?.delta.spread).toMatchObject({ low: 0.477, high: 1.273 });
    expect(clear.notes).toEqual([]);
    expect(renderText(clear)).not.toContain("includes 0");
  });

  test("one paired task: sd and interval are '—' (never 0) in the text, the Markdown and the comparisons", () => {
    const one = summarise(
      input(
        [
          cell({ task: "a", judgment: graded(1) }),
          cell({ task: "a", mode: "seq", judgment: graded(0.5) }),
        ],
        [baseCell("a", 2, [0.25])],
      ),
    );
    const s = one.summaries[0];
    expect(s?.delta.spread).toEqual({
      n: 1,
      sd: null,
      t: null,
      halfWidth: null,
      low: null,
      high: null,
    });
    const text = renderText(one, { unicode: false });
    const rows = spreadRows(text);
    expect(rows[0]).toEqual(["parallel", "2", "1", "1.000", "—", "—", "1", "+0.750", "—", "—"]);
    expect(text).toContain("sequential − parallel at k=2: -0.500 on 1 task(s), 95% CI —");
    expect(text).not.toMatch(/sd 0\.000|\[0\.000,/);
    expect(one.notes).toContain(
      "parallel k=2: the delta rests on 1 paired task, too few for an interval; it is not distinguishable from no change",
    );
    const md = renderMarkdown(one);
    expect(md).toContain("| parallel | 2 | 1 | 1.000 | — | — | 1 | +0.750 | — | — |");
    expect(md).toContain("| k=2 | 1 | 1 | 0 | 0 | 0.250 | — | — | 0.0000 |");
  });

  test("the text's spread table, base line and comparisons print exactly the JSON's numbers", () => {
    const both = summarise(
      input(
        [
          ...picks,
          cell({ task: "a", mode: "seq", judgment: graded(0.5) }),
          cell({ task: "b", mode: "seq", judgment: graded(0.25) }),
          cell({ task: "c", mode: "seq", judgment: ungraded("judge returned nothing") }),
          cell({ task: "d", mode: "seq", judgment: graded(1) }),
        ],
        bases,
      ),
    );
    const json = JSON.parse(JSON.stringify(both)) as Report;
    const text = renderText(both, { unicode: false });
    const rows = spreadRows(text);
    expect(rows).toHaveLength(json.summaries.length);
    json.summaries.forEach((s, i) => {
      const r = rows[i] as string[];
      expect(r).toHaveLength(SPREAD_COLUMNS.length);
      expect(Number(r[1])).toBe(s.k);
      expect(Number(r[2])).toBe(s.scoreSpread.n);
      expect(num(r[3])).toBe(s.score);
      expect(num(r[4])).toBe(s.scoreSpread.sd);
      expect(bounds(r[5])).toEqual([s.scoreSpread.low as number, s.scoreSpread.high as number]);
      expect(Number(r[6])).toBe(s.delta.spread.n);
      expect(num(r[7])).toBe(s.delta.mean);
      expect(num(r[8])).toBe(s.delta.spread.sd);
      expect(bounds(r[9])).toEqual([s.delta.spread.low as number, s.delta.spread.high as number]);
    });
    // sequential: differences [0.5, −0.25, 1] on three paired tasks.
    expect(json.summaries[1]?.delta.spread).toMatchObject({ n: 3, t: 4.303, sd: 0.629 });
    const b = json.bases[0]?.spread;
    expect(text).toContain(
      `mean ${json.bases[0]?.score?.toFixed(3)} (sd ${b?.sd?.toFixed(3)}, 95% CI [${b?.low?.toFixed(3)}, ${b?.high?.toFixed(3)}])`,
    );
    const c = json.comparisons[0];
    expect(c?.spread.n).toBe(3);
    expect(text).toContain(
      `${c?.label}: ${c?.mean?.toFixed(3)} on 3 task(s), sd ${c?.spread.sd?.toFixed(3)}, 95% CI [${c?.spread.low?.toFixed(3)}, +${c?.spread.high?.toFixed(3)}]`,
    );
  });
});
