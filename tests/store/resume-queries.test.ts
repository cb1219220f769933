// The store side of resume: a task's record rebuilt from rows, scoped to its namespace, newest
// finished mode first; adoption facts land only on the selection they describe.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { openStore } from "../../store/db.ts";
import { newSweepId } from "../../store/ids.ts";
import { storedTaskRecord } from "../../store/resume-queries.ts";
import { StoreWriter } from "../../store/writer.ts";
import { tempDir } from "./samples.ts";
import { type SyntheticSweep, sweepEvents, taskName } from "./synthetic.ts";

const T0 = Date.UTC(2026, 10, 29, 8, 0, 0);
const A = newSweepId(T0);
const B = newSweepId(T0 + 3_600_000);
const TASK = taskName(0, 0);
const KEY = { bench: "demo", substrate: "oc", seed: null, tag: "" };
const FACTS = {
  chosenLabel: "",
  chosenRunId: "",
  chosenRunDir: "/exec/x",
  harnessFingerprint: "fedcba9876543210",
  outputDigest: "a".repeat(64),
  chosenTreeIsBase: false,
  evidence: "deliverable" as const,
  experience: { cue: "c", lesson: "l", evidence: "e", confidence: "high", edits: "" },
};

let cleanup: () => void;
let db: Database;
let eventsOfA: HarnessEvent[];

function record(o: SyntheticSweep): HarnessEvent[] {
  const events = [...sweepEvents(o)];
  const w = new StoreWriter(db);
  for (const ev of events) w.emit(ev);
  w.close();
  return events;
}

beforeAll(() => {
  let dir: string;
  ({ dir, cleanup } = tempDir());
  db = openStore(join(dir, "harness2.db"));
  eventsOfA = record({ sweep: A, t0: T0, domains: 1, tasksPerDomain: 1, adoptions: false });
});

afterAll(() => {
  db.close();
  cleanup();
});

/** Records one adoption.recorded event through the store's writer, as a sweep does. */
function recordAdoption(
  where: { sweep: string; task: string; k: number; mode: "agg" | "seq" },
  facts: typeof FACTS,
  at: number,
): void {
  const w = new StoreWriter(db);
  w.emit({ type: "adoption.recorded", ts: at, domain: "d0", ...where, ...facts });
  w.close();
}

function chosen(events: HarnessEvent[], mode: "agg" | "seq") {
  const sel = events.find((e) => e.type === "selection.made" && e.mode === mode);
  if (sel?.type !== "selection.made") throw new Error(`no ${mode} selection`);
  return { chosenLabel: sel.chosenLabel, chosenRunId: sel.chosenRunId ?? "" };
}

test("a task the namespace never ran has no record", () => {
  expect(storedTaskRecord(db, KEY, "d9/task-0000", 2)).toBeNull();
  expect(storedTaskRecord(db, { ...KEY, bench: "lab" }, TASK, 2)).toBeNull();
  expect(storedTaskRecord(db, { ...KEY, seed: 7 }, TASK, 2)).toBeNull();
  expect(storedTaskRecord(db, KEY, TASK, 3)).toBeNull();
});

test("the record holds each mode with its ledger counted from the entries; no selection before its facts", () => {
  const rec = storedTaskRecord(db, KEY, TASK, 2);
  expect(rec?.domain).toBe("d0");
  expect(rec?.base.map((b) => b.label)).toEqual(["base1", "base2"]);
  for (const mode of ["agg", "seq"] as const) {
    const entries = eventsOfA.filter((e) => e.type === "ledger.recorded" && e.mode === mode);
    const entry = rec?.modes[mode] as { ok: boolean; ledger: { R: number; P: number } };
    expect(entry.ok).toBe(true);
    expect(entry.ledger.R).toBe(
      entries.filter((e) => e.type === "ledger.recorded" && e.kind === "rollout").length,
    );
    expect(entry.ledger.P).toBe(
      entries.filter((e) => e.type === "ledger.recorded" && e.kind === "session").length,
    );
  }
  expect(rec?.selections).toEqual({});
});

test("adoption facts land only on the selection of the same chosen label and run", () => {
  const where = { sweep: A, task: TASK, k: 2, mode: "agg" as const };
  const agg = chosen(eventsOfA, "agg");
  recordAdoption(where, { ...FACTS, ...agg, chosenLabel: "zzz9" }, T0);
  recordAdoption(where, { ...FACTS, ...agg, chosenRunId: "other/run" }, T0);
  recordAdoption({ ...where, sweep: B }, { ...FACTS, ...agg }, T0);
  expect(storedTaskRecord(db, KEY, TASK, 2)?.selections).toEqual({});
  recordAdoption(where, { ...FACTS, ...agg }, T0);
  const sel = storedTaskRecord(db, KEY, TASK, 2)?.selections.agg;
  expect(sel).toMatchObject({
    ...agg,
    ok: true,
    harnessFingerprint: FACTS.harnessFingerprint,
    outputDigest: FACTS.outputDigest,
    experience: FACTS.experience,
    evidence: "deliverable",
  });
});

test("a later sweep interrupted inside the task leaves the finished record in charge; a later finish replaces it", () => {
  record({
    sweep: B,
    t0: T0 + 3_600_000,
    domains: 1,
    tasksPerDomain: 1,
    stopInTask: 1,
    adoptions: false,
  });
  expect(storedTaskRecord(db, KEY, TASK, 2)?.selections.agg?.outputDigest).toBe(FACTS.outputDigest);
  const C = newSweepId(T0 + 7_200_000);
  record({ sweep: C, t0: T0 + 7_200_000, domains: 1, tasksPerDomain: 1, adoptions: false });
  // C's modes are newer and carry no adoption facts yet: nothing to resume from.
  expect(storedTaskRecord(db, KEY, TASK, 2)?.selections).toEqual({});
});
