// judgeSweep and score normalisation: graded rows carry the score and the judge; a throwing or
// empty scorer, a fallback or a failed selection is ungraded with its reason, never a zero.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingSink } from "../../src/core/events/sink.ts";
import type { Scorer } from "../../src/core/seams/benchmark.ts";
import {
  type BaseSubject,
  judgeSweep,
  judgmentSubject,
  normaliseScore,
  type PickSubject,
  type PreviousJudgment,
} from "../../src/judge/judge.ts";
import { openStore } from "../../store/db.ts";
import { StoreWriter } from "../../store/writer.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "h2-judge-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const SWEEP = "swp_0000000000judge000";
const JUDGE = '{"scorer":"test","version":"1"}';

function runDir(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function pick(over: Partial<PickSubject> = {}): PickSubject {
  const label = over.label ?? "agg1";
  return {
    kind: "pick",
    sweep: SWEEP,
    domain: "accounting",
    task: "ledger-1",
    mode: "agg",
    k: 2,
    label,
    runId: `demo-oc-agg2/ledger-1/${label}`,
    runDir: over.runDir ?? runDir(label),
    ok: true,
    fallback: false,
    selectionError: "",
    modeFailed: null,
    ...over,
  };
}

function base(label: string, task = "ledger-1"): BaseSubject {
  return {
    kind: "base",
    sweep: SWEEP,
    domain: "accounting",
    task,
    mode: "agg",
    k: 2,
    label,
    runId: `demo-oc-agg2/${task}/${label}`,
    runDir: runDir(`${task}-${label}`),
  };
}

/** A scorer that answers from a table by run dir and counts its calls. */
function tableScorer(answers: Record<string, () => Record<string, unknown> | null>) {
  const calls: string[] = [];
  const scorer: Scorer = {
    async score(dir) {
      calls.push(dir);
      const answer = answers[dir];
      if (!answer) throw new Error(`unexpected run dir ${dir}`);
      return answer();
    },
  };
  return { scorer, calls };
}

describe("normaliseScore", () => {
  test("a score in [0, 1] is graded as is, with counts when given", () => {
    expect(normaliseScore({ score: 0.75, passed: 3, total: 4 })).toEqual({
      graded: true,
      score: 0.75,
      passed: 3,
      total: 4,
      metric: null,
    });
  });

  test("passed/total (or the original's n_passed/n_criteria) becomes the fraction", () => {
    expect(normaliseScore({ passed: 1, total: 4 })).toMatchObject({ graded: true, score: 0.25 });
    expect(normaliseScore({ n_passed: 3, n_criteria: 6, metric: "weighted" })).toMatchObject({
      graded: true,
      score: 0.5,
      metric: "weighted",
    });
  });

  test("nothing, an empty record, or a record without a score is ungraded with its reason", () => {
    expect(normaliseScore(null)).toMatchObject({ graded: false, reason: "judge returned nothing" });
    expect(normaliseScore({})).toMatchObject({ graded: false, reason: "judge returned nothing" });
    expect(normaliseScore({ verdict: "fine" })).toMatchObject({
      graded: false,
      reason: "judge returned no score (keys: verdict)",
    });
    expect(normaliseScore([1])).toMatchObject({ graded: false });
  });

  test("a score outside [0, 1], a non-number, or a bad fraction is ungraded — never clipped or zeroed", () => {
    expect(normaliseScore({ score: 1.5 })).toMatchObject({
      graded: false,
      reason: "score 1.5 is outside [0, 1]",
    });
    expect(normaliseScore({ score: "1" })).toMatchObject({ graded: false });
    expect(normaliseScore({ score: Number.NaN })).toMatchObject({ graded: false });
    expect(normaliseScore({ total: 4 })).toMatchObject({ graded: false });
    expect(normaliseScore({ passed: 5, total: 4 })).toMatchObject({ graded: false });
    expect(normaliseScore({ passed: 0, total: 0 })).toMatchObject({ graded: false });
  });
});

describe("judgeSweep", () => {
  test("a graded pick carries the score and the judge identity, and is emitted", async () => {
    const p = pick();
    const { scorer, calls } = tableScorer({
      [p.runDir]: () => ({ score: 1, passed: 1, total: 1 }),
    });
    const sink = new RecordingSink();
    const rows = await judgeSweep({ picks: [p], scorer, sink, judge: JUDGE });
    expect(calls).toEqual([p.runDir]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: "pick",
      graded: true,
      score: 1,
      passed: 1,
      total: 1,
      reason: "",
      judge: JUDGE,
      pass: "scored",
      runId: p.runId,
    });
    const events = sink.ofType("judgment.recorded");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ runId: p.runId, graded: true, score: 1, judge: JUDGE });
  });

  test("a throwing scorer yields an ungraded row with the error, never a zero", async () => {
    const p = pick();
    const scorer: Scorer = {
      async score() {
        throw new TypeError("judge endpoint refused");
      },
    };
    const sink = new RecordingSink();
    const [r] = await judgeSweep({ picks: [p], scorer, sink, judge: JUDGE });
    expect(r).toMatchObject({ graded: false, score: null, pass: "scored" });
    expect(r?.reason).toBe("judge error: TypeError: judge endpoint refused");
    expect(sink.ofType("judgment.recorded")[0]).toMatchObject({ graded: false, score: null });
  });

  test("a null or empty scorer result is ungraded", async () => {
    const a = pick({ label: "agg1" });
    const b = pick({ label: "agg2", task: "ledger-2" });
    const { scorer } = tableScorer({ [a.runDir]: () => null, [b.runDir]: () => ({}) });
    const rows = await judgeSweep({
      picks: [a, b],
      scorer,
      sink: new RecordingSink(),
      judge: JUDGE,
    });
    expect(rows.map((r) => [r.graded, r.reason])).toEqual([
      [false, "judge returned nothing"],
      [false, "judge returned nothing"],
    ]);
  });

  test("a fallback, a failed selection or a failed mode is ungraded without calling the scorer", async () => {
    const fallback = pick({
      task: "t-fallback",
      fallback: true,
      ok: false,
      selectionError: "no choice block",
    });
    const failed = pick({
      task: "t-failed",
      ok: false,
      label: "",
      runId: "",
      selectionError: "no candidate produced an artifact",
    });
    const modeFailed = pick({ task: "t-mode", modeFailed: "tripwire in reflection" });
    const missing = pick({ task: "t-missing", runDir: join(root, "gone") });
    const { scorer, calls } = tableScorer({});
    const sink = new RecordingSink();
    const rows = await judgeSweep({
      picks: [fallback, failed, modeFailed, missing],
      scorer,
      sink,
      judge: JUDGE,
    });
    expect(calls).toEqual([]);
    expect(rows.every((r) => !r.graded && r.pass === "skipped")).toBe(true);
    expect(rows[0]?.reason).toContain("fell back (no choice block)");
    expect(rows[1]?.reason).toBe("selection failed: no candidate produced an artifact");
    expect(rows[2]?.reason).toBe("mode failed: tripwire in reflection");
    expect(rows[3]?.reason).toContain("does not exist");
    // An unscored pick is keyed by its place, never by the run some selection adopted.
    expect(rows[0]?.runId).toBe("");
    expect(rows[0]?.label).toBe("agg1");
    expect(sink.ofType("judgment.recorded").map((e) => e.runId)).toEqual(["", "", "", ""]);
  });

  test("bases are judged after the picks, rows keep the input order", async () => {
    const p = pick();
    const b1 = base("base1");
    const b2 = base("base2");
    const { scorer } = tableScorer({
      [p.runDir]: () => ({ score: 1 }),
      [b1.runDir]: () => ({ score: 0 }),
      [b2.runDir]: () => ({ score: 0.5 }),
    });
    const rows = await judgeSweep({
      picks: [p],
      bases: [b1, b2],
      scorer,
      sink: new RecordingSink(),
      judge: JUDGE,
    });
    expect(rows.map((r) => [r.kind, r.label, r.score])).toEqual([
      ["pick", "agg1", 1],
      ["base", "base1", 0],
      ["base", "base2", 0.5],
    ]);
  });

  test("parallelism bounds the scorer calls in flight", async () => {
    const picks = Array.from({ length: 5 }, (_, i) =>
      pick({ task: `t-${i}`, label: `agg${i + 1}` }),
    );
    let active = 0;
    let peak = 0;
    const waiting: (() => void)[] = [];
    const scorer: Scorer = {
      async score() {
        active++;
        peak = Math.max(peak, active);
        await new Promise<void>((release) => waiting.push(release));
        active--;
        return { score: 1 };
      },
    };
    let done = false;
    const run = judgeSweep({ picks, scorer, sink: new RecordingSink(), judge: JUDGE, parallel: 2 });
    run.then(() => {
      done = true;
    });
    while (!done) {
      await new Promise((r) => setImmediate(r));
      waiting.shift()?.();
    }
    expect(peak).toBe(2);
    expect((await run).map((r) => r.task)).toEqual(picks.map((p) => p.task));
    await expect(
      judgeSweep({ picks, scorer, sink: new RecordingSink(), judge: JUDGE, parallel: 0 }),
    ).rejects.toThrow("parallelism");
  });

  test("an earlier graded judgment by the same judge is kept without scoring; --rejudge scores again", async () => {
    const p = pick();
    const previous = new Map<string, PreviousJudgment>([
      [
        judgmentSubject(p),
        {
          sweep: SWEEP,
          label: "agg1",
          graded: true,
          score: 1,
          passed: 1,
          total: 1,
          metric: null,
          reason: "",
          judge: JUDGE,
        },
      ],
    ]);
    const { scorer, calls } = tableScorer({ [p.runDir]: () => ({ score: 0 }) });
    const sink = new RecordingSink();
    const [kept] = await judgeSweep({ picks: [p], scorer, sink, judge: JUDGE, previous });
    expect(kept).toMatchObject({ pass: "kept", graded: true, score: 1 });
    expect(calls).toEqual([]);
    expect(sink.events).toEqual([]);

    const other = await judgeSweep({ picks: [p], scorer, sink, judge: '{"scorer":"x"}', previous });
    expect(other[0]).toMatchObject({ pass: "scored", score: 0 });

    const again = await judgeSweep({
      picks: [p],
      scorer,
      sink,
      judge: JUDGE,
      previous,
      rejudge: true,
    });
    expect(again[0]).toMatchObject({ pass: "scored", score: 0 });
    expect(calls).toHaveLength(2);
  });

  test("an unscored row identical to the stored one is not sent again", async () => {
    const p = pick({ ok: false, label: "", runId: "", selectionError: "empty pool" });
    const key = judgmentSubject({ ...p, runId: "" });
    const stored: PreviousJudgment = {
      sweep: SWEEP,
      label: "",
      graded: false,
      score: null,
      passed: null,
      total: null,
      metric: null,
      reason: "selection failed: empty pool",
      judge: JUDGE,
    };
    const sink = new RecordingSink();
    const { scorer } = tableScorer({});
    const rows = await judgeSweep({
      picks: [p],
      scorer,
      sink,
      judge: JUDGE,
      previous: new Map([[key, stored]]),
    });
    expect(rows[0]).toMatchObject({ pass: "skipped", graded: false });
    expect(sink.events).toEqual([]);
    await judgeSweep({
      picks: [p],
      scorer,
      sink,
      judge: JUDGE,
      previous: new Map([[key, { ...stored, reason: "selection failed: other" }]]),
    });
    expect(sink.events).toHaveLength(1);
  });

  test("through the store, a later failed re-judge never replaces a graded row", async () => {
    const db = openStore(join(root, "harness2.db"));
    const writer = new StoreWriter(db);
    const p = pick();
    const good: Scorer = { score: async () => ({ score: 1, passed: 1, total: 1 }) };
    const bad: Scorer = {
      score: async () => {
        throw new Error("judge down");
      },
    };
    await judgeSweep({ picks: [p], scorer: good, sink: writer, judge: JUDGE });
    writer.flush();
    const rejudged = await judgeSweep({
      picks: [p],
      scorer: bad,
      sink: writer,
      judge: JUDGE,
      rejudge: true,
    });
    expect(rejudged[0]?.graded).toBe(false);
    writer.flush();
    const rows = db.query("SELECT subject, graded, score, judge FROM judgments").all();
    expect(rows).toEqual([{ subject: p.runId, graded: 1, score: 1, judge: JUDGE }]);
    writer.close();
    db.close();
  });
});
