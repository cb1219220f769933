// The skip decision reads its record through a pluggable source (the store in commands, the
// summary file here); the decision is the same whichever source answers.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import {
  SUMMARY_FILE_SOURCE,
  shouldSkipTask,
  type TaskRecordSource,
} from "../../../src/core/resume/resume.ts";
import { readSummary } from "../../../src/core/resume/summary.ts";
import { modeTaskDir, runSweep, summaryDir } from "../../../src/core/schedule/index.ts";
import {
  FakeAdapter,
  LIMITS,
  RecordingSink,
  removeTempDirs,
  ScriptedProposer,
  SURFACE,
  stepClock,
  tempDir,
} from "../fakes.ts";

afterAll(removeTempDirs);

async function finishedSweep() {
  const root = tempDir("resume");
  const adapter = new FakeAdapter({ root, tasks: { t1: "books" } });
  const inputs = {
    adapter,
    proposer: new ScriptedProposer(join(root, "sessions")),
    limits: LIMITS,
    runsRoot: join(root, "adapt"),
    libraryRoot: null,
    k: 1,
    modes: ["agg", "seq"] as const,
    sink: new RecordingSink(),
    clock: stepClock(),
    sweep: "sw",
  };
  const run = { ...inputs, modes: [...inputs.modes] };
  await runSweep(run);
  const query = (source: TaskRecordSource) => ({
    taskId: "t1",
    summaryDir: summaryDir(run, "t1"),
    modes: run.modes,
    source,
    adapter,
    surface: SURFACE,
    harnessDirOf: (mode: "agg" | "seq", label: string) =>
      join(modeTaskDir(run, mode, "t1"), "harnesses", label),
  });
  return { run, query };
}

test("a finished, intact task is skipped; the decision comes from the record source it is given", async () => {
  const { query, run } = await finishedSweep();
  const fromFile = await shouldSkipTask(query(SUMMARY_FILE_SOURCE));
  expect(fromFile).toMatchObject({ skip: true, intact: ["agg", "seq"], rerun: [] });

  const seen: string[] = [];
  const missing: TaskRecordSource = {
    read: async (taskId) => {
      seen.push(taskId);
      return { kind: "missing" };
    },
  };
  expect(await shouldSkipTask(query(missing))).toMatchObject({
    skip: false,
    summary: null,
    reason: "no record yet",
  });
  expect(seen).toEqual(["t1"]);

  const unreadable: TaskRecordSource = {
    read: async () => ({ kind: "unreadable", reason: "torn" }),
  };
  const d = await shouldSkipTask(query(unreadable));
  expect(d.skip).toBe(false);
  expect(d.reason).toContain("torn");

  // A record whose ledger does not balance is not a finished mode.
  const read = readSummary(summaryDir(run, "t1"));
  if (read.kind !== "summary") throw new Error("no summary");
  const agg = read.summary.modes.agg as { ledger: { R: number } };
  const unbalanced: TaskRecordSource = {
    read: async () => ({
      kind: "summary",
      summary: {
        ...read.summary,
        modes: { ...read.summary.modes, agg: { ...agg, ledger: { ...agg.ledger, R: 3 } } as never },
      },
    }),
  };
  const u = await shouldSkipTask(query(unbalanced));
  expect(u).toMatchObject({ skip: false, intact: ["seq"] });
  expect(u.rerun[0]?.reason).toContain("does not balance");
});

test("an adapter that throws while checking means re-run, never an escape", async () => {
  const { query } = await finishedSweep();
  const q = query(SUMMARY_FILE_SOURCE);
  const d = await shouldSkipTask({
    ...q,
    adapter: {
      ...q.adapter,
      spec: q.adapter.spec,
      delivered: async () => {
        throw new RangeError("disk gone");
      },
      deliverableText: q.adapter.deliverableText.bind(q.adapter),
      trajectory: q.adapter.trajectory.bind(q.adapter),
    },
  });
  expect(d.skip).toBe(false);
  expect(d.rerun.map((r) => r.reason)).toEqual([
    "cannot check the adoption: RangeError: disk gone",
    "cannot check the adoption: RangeError: disk gone",
  ]);
});
