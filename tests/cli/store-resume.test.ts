// Resume decided by the store (src/cli/sweep/store-resume.ts + store/resume-queries.ts), on the fake
// adapter and scripted proposer: summary.json is only an export, fingerprints still guard the
// adopted output, failed or interrupted work re-runs, and the library is replayed from the store.
import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { durableSink, storeRecordSource } from "../../src/cli/sweep/store-resume.ts";
import type { HarnessEvent, ModeToken } from "../../src/core/events/registry.ts";
import { fanOut } from "../../src/core/events/sink.ts";
import { readSummary, SUMMARY_FILE } from "../../src/core/resume/summary.ts";
import {
  type DomainResult,
  runSweep,
  type ScheduleInputs,
  type SweepResult,
  summaryDir,
} from "../../src/core/schedule/index.ts";
import { openStore } from "../../store/db.ts";
import { StoreWriter } from "../../store/writer.ts";
import {
  type Action,
  defaultAction,
  FakeAdapter,
  LIMITS,
  RecordingSink,
  removeTempDirs,
  type ScriptedCall,
  ScriptedProposer,
  stepClock,
  tempDir,
} from "../core/fakes.ts";

afterAll(removeTempDirs);

type Sweep = {
  adapter: FakeAdapter;
  proposer: ScriptedProposer;
  sink: RecordingSink;
  inputs: ScheduleInputs;
  result: SweepResult;
  errors: string[];
};

let sweeps = 0;

/** One sweep over `root` recorded in the store at `db`, resuming from that store. */
async function sweep(
  root: string,
  db: Database,
  opts: {
    k?: number;
    modes?: ModeToken[];
    script?: (call: ScriptedCall) => Action;
    proposer?: ScriptedProposer;
    failLabels?: Set<string>;
    tasks?: Record<string, string>;
    /** Switch the fake adapter's own artifact check off (only the store's digest is left). */
    trustArtifacts?: boolean;
    /** Interrupts the sweep (gracefully) right after the first event this returns true for. */
    stopAfter?: (event: HarnessEvent) => boolean;
  } = {},
): Promise<Sweep> {
  const adapter = new FakeAdapter({
    root,
    tasks: opts.tasks ?? { t1: "books", t2: "books" },
    ...(opts.failLabels ? { failLabels: opts.failLabels } : {}),
  });
  if (opts.trustArtifacts) adapter.artifactsIntact = async () => true;
  const proposer =
    opts.proposer ?? new ScriptedProposer(join(root, `sessions-${sweeps}`), opts.script);
  const sink = new RecordingSink();
  const errors: string[] = [];
  const writer = new StoreWriter(db, { onError: (e) => errors.push(e.message) });
  const k = opts.k ?? 1;
  const abort = new AbortController();
  const stopper = {
    emit(event: HarnessEvent) {
      if (opts.stopAfter?.(event)) abort.abort();
    },
  };
  const inputs: ScheduleInputs = {
    adapter,
    proposer,
    limits: LIMITS,
    runsRoot: join(root, "adapt"),
    libraryRoot: join(root, "library"),
    k,
    modes: opts.modes ?? ["agg", "seq"],
    seed: null,
    sink: fanOut(durableSink(writer), sink, stopper),
    signal: abort.signal,
    clock: stepClock(Date.now() + 1000 * sweeps),
    sweep: `swp_test${String(sweeps++).padStart(4, "0")}`,
    records: storeRecordSource(db, { bench: "fake", substrate: "oc", seed: null, tag: "" }, k),
  };
  let result: SweepResult;
  try {
    result = await runSweep(inputs);
  } finally {
    writer.close();
  }
  return { adapter, proposer, sink, inputs, result, errors };
}

function statuses(s: Sweep): string[] {
  return s.sink.ofType("task.finished").map((e) => `${e.task}:${e.status}`);
}

function skipped(s: Sweep): string[] {
  return s.sink.ofType("task.skipped").map((e) => e.task);
}

function summaryOf(s: Sweep, task: string) {
  const read = readSummary(summaryDir(s.inputs, task));
  if (read.kind !== "summary") throw new Error(`no summary for ${task}: ${read.kind}`);
  return read.summary;
}

function fresh(name: string): { root: string; db: Database } {
  const root = tempDir(name);
  return { root, db: openStore(join(root, "harness2.db")) };
}

describe("the store decides resume", () => {
  test("deleting summary.json does not re-run a finished task; the export is written again", async () => {
    const { root, db } = fresh("store-resume");
    const first = await sweep(root, db, { k: 2 });
    expect(statuses(first)).toEqual(["t1:ok", "t2:ok"]);
    expect(first.errors).toEqual([]);
    const before = summaryOf(first, "t1");
    const path = join(summaryDir(first.inputs, "t1"), SUMMARY_FILE);
    rmSync(path);

    const second = await sweep(root, db, { k: 2, proposer: first.proposer });
    expect(skipped(second)).toEqual(["t1", "t2"]);
    expect(second.adapter.executed).toEqual([]);
    expect(second.proposer.calls.length).toBe(first.proposer.calls.length);
    // Restored from the store: the same adoptions as the file that was deleted.
    const restored = summaryOf(second, "t1");
    expect(restored.status).toBe("ok");
    for (const mode of ["agg", "seq"] as const) {
      expect(restored.selections[mode]).toMatchObject({
        chosenLabel: before.selections[mode]?.chosenLabel,
        chosenRunId: before.selections[mode]?.chosenRunId,
        harnessFingerprint: before.selections[mode]?.harnessFingerprint,
        outputDigest: before.selections[mode]?.outputDigest,
        experience: before.selections[mode]?.experience,
      });
      expect(restored.modes[mode]).toMatchObject({ ok: true, ledger: { R: 8, P: 6 } });
    }
    db.close();
  });

  test("a summary.json the store knows nothing about does not make a task skip: the store wins", async () => {
    const { root, db } = fresh("store-wins");
    const first = await sweep(root, db, { tasks: { t1: "books" } });
    const text = readFileSync(join(summaryDir(first.inputs, "t1"), SUMMARY_FILE), "utf8");
    db.close();
    // A new store beside the old run folder (a run directory from before the store).
    const other = openStore(join(root, "other.db"));
    const again = await sweep(root, other, { tasks: { t1: "books" }, proposer: first.proposer });
    expect(readSummary(summaryDir(first.inputs, "t1")).kind).toBe("summary");
    expect(text).toContain('"status": "ok"');
    expect(skipped(again)).toEqual([]);
    expect(statuses(again)).toEqual(["t1:ok"]);
    // Cheap: run marks and the proposer cache did the work.
    expect(again.adapter.executed).toEqual([]);
    other.close();
  });

  test("an edited adopted output re-runs, whatever summary.json says", async () => {
    const { root, db } = fresh("store-digest");
    const first = await sweep(root, db, { modes: ["agg"] });
    const runDir = summaryOf(first, "t2").selections.agg?.chosenRunDir as string;
    // The export is gone, so only the digest the store holds can catch the edit.
    rmSync(join(summaryDir(first.inputs, "t2"), SUMMARY_FILE));
    const answer = join(runDir, "output", "answer.txt");
    writeFileSync(answer, readFileSync(answer, "utf8").replace(/./, "X"));
    const again = await sweep(root, db, {
      modes: ["agg"],
      proposer: first.proposer,
      trustArtifacts: true,
    });
    expect(skipped(again)).toEqual(["t1"]);
    expect(statuses(again)).toEqual(["t2:ok"]);
    db.close();
  });

  test("a changed adopted harness re-runs the mode", async () => {
    const { root, db } = fresh("store-harness");
    const first = await sweep(root, db, { modes: ["agg"], tasks: { t1: "books" } });
    const s = summaryOf(first, "t1");
    const chosen = s.selections.agg?.chosenLabel as string;
    const harness = join(summaryDir(first.inputs, "t1"), "harnesses", chosen, "guardrails.md");
    writeFileSync(harness, "tampered\n");
    const again = await sweep(root, db, {
      modes: ["agg"],
      tasks: { t1: "books" },
      proposer: first.proposer,
    });
    expect(skipped(again)).toEqual([]);
    expect(statuses(again)).toEqual(["t1:ok"]);
    expect(readFileSync(harness, "utf8")).not.toBe("tampered\n");
    db.close();
  });

  test("a mode whose selection failed re-runs; the intact one is reused", async () => {
    const { root, db } = fresh("store-failed-selection");
    // seq's selector fails, so seq ends without a good adoption while agg finishes.
    const script = (call: ScriptedCall): Action =>
      call.label.startsWith("select.seq") ? { fail: "selector down" } : defaultAction(call);
    const first = await sweep(root, db, { k: 2, script, tasks: { t1: "books" } });
    expect(statuses(first)).toEqual(["t1:partial"]);
    const again = await sweep(root, db, { k: 2, tasks: { t1: "books" } });
    expect(skipped(again)).toEqual([]);
    expect(again.sink.ofType("mode.started").map((e) => e.mode)).toEqual(["seq"]);
    expect(statuses(again)).toEqual(["t1:ok"]);
    db.close();
  });

  test("a mode the store records as failed re-runs", async () => {
    const { root, db } = fresh("store-failed-mode");
    const first = await sweep(root, db, { tasks: { t1: "books" } });
    db.run(
      "UPDATE modes SET status = 'failed', error = 'RangeError: disk gone' WHERE mode = 'agg'",
    );
    const again = await sweep(root, db, { tasks: { t1: "books" }, proposer: first.proposer });
    expect(skipped(again)).toEqual([]);
    expect(again.sink.ofType("mode.started").map((e) => e.mode)).toEqual(["agg"]);
    expect(statuses(again)).toEqual(["t1:ok"]);
    db.close();
  });

  test("a task the store records as interrupted re-runs; its checkpointed mode is reused", async () => {
    const { root, db } = fresh("store-interrupted");
    const first = await sweep(root, db, { tasks: { t1: "books" } });
    // Make the store look like the process died after agg's checkpoint, inside seq: the task
    // record never finished and seq's mode row never did either.
    db.run("UPDATE tasks SET status = 'running', finished_at = NULL");
    db.run("UPDATE modes SET status = 'running', finished_at = NULL WHERE mode = 'seq'");
    expect(existsSync(join(summaryDir(first.inputs, "t1"), SUMMARY_FILE))).toBe(true);
    const again = await sweep(root, db, { tasks: { t1: "books" }, proposer: first.proposer });
    expect(skipped(again)).toEqual([]);
    expect(again.sink.ofType("mode.started").map((e) => e.mode)).toEqual(["seq"]);
    expect(statuses(again)).toEqual(["t1:ok"]);
    db.close();
  });

  test("a graceful stop after a mode finished keeps that mode: the next run does not redo it", async () => {
    const { root, db } = fresh("store-graceful");
    const first = await sweep(root, db, {
      stopAfter: (e) => e.type === "mode.finished" && e.task === "t1" && e.mode === "agg",
    });
    expect(first.sink.ofType("sweep.finished")[0]?.status).toBe("interrupted");
    expect(first.errors).toEqual([]);
    const again = await sweep(root, db, { proposer: first.proposer });
    const t1 = again.sink.ofType("mode.started").filter((e) => e.task === "t1");
    expect(t1.map((e) => e.mode)).not.toContain("agg");
    expect(again.sink.ofType("sweep.finished")[0]?.status).toBe("ok");
    db.close();
  });

  test("a mode whose adoption facts never reached the store re-runs", async () => {
    const { root, db } = fresh("store-nofacts");
    const first = await sweep(root, db, { modes: ["agg"], tasks: { t1: "books" } });
    db.run("UPDATE selections SET adopted_at = NULL");
    const again = await sweep(root, db, {
      modes: ["agg"],
      tasks: { t1: "books" },
      proposer: first.proposer,
    });
    expect(skipped(again)).toEqual([]);
    expect(statuses(again)).toEqual(["t1:ok"]);
    db.close();
  });
});

describe("the library on resume", () => {
  test("skipped tasks replay their lessons from the store into the library", async () => {
    const { root, db } = fresh("store-library");
    const first = await sweep(root, db, { k: 2 });
    rmSync(join(summaryDir(first.inputs, "t1"), SUMMARY_FILE));
    rmSync(join(root, "library"), { recursive: true, force: true });
    const second = await sweep(root, db, { k: 2, proposer: first.proposer });
    expect(skipped(second)).toEqual(["t1", "t2"]);
    const d = second.sink.ofType("library.added").map((e) => `${e.task}:${e.mode}`);
    expect(d).toEqual(["t1:agg", "t1:seq", "t2:agg", "t2:seq"]);
    expect(second.sink.ofType("library.added").every((e) => e.restored === true)).toBe(true);
    expect(first.sink.ofType("library.added").some((e) => e.restored === true)).toBe(false);
    for (const mode of ["agg", "seq"]) {
      const exp = join(root, "library", mode, "books", "harnesses", "t1", "EXPERIENCE.md");
      expect(readFileSync(exp, "utf8")).toContain("keep negative amounts");
    }
    db.close();
  });

  test("NO_ENTRY and failed reflections stay out of the library on resume", async () => {
    const { root, db } = fresh("store-noentry");
    const script = (call: ScriptedCall): Action => {
      if (call.label.startsWith("experience.")) {
        return call.opts.where?.task === "t1"
          ? { text: "<experience>\nNO_ENTRY\n</experience>" }
          : { fail: "reflector down" };
      }
      return defaultAction(call);
    };
    const first = await sweep(root, db, { modes: ["agg"], script });
    expect(statuses(first)).toEqual(["t1:ok", "t2:ok"]);
    const reflections = first.sink.ofType("reflection.finished");
    expect(reflections.map((r) => [r.task, r.ok, r.noEntry])).toEqual([
      ["t1", true, true],
      ["t2", false, false],
    ]);
    expect(first.sink.ofType("library.added")).toEqual([]);

    const second = await sweep(root, db, { modes: ["agg"], proposer: first.proposer });
    expect(skipped(second)).toEqual(["t1", "t2"]);
    const rows = (second.result.domains[0] as DomainResult).tasks;
    expect(rows.map((r) => [r.task, r.status, r.libraryEntriesBefore])).toEqual([
      ["t1", "skipped", { agg: 0 }],
      ["t2", "skipped", { agg: 0 }],
    ]);
    expect(second.sink.ofType("library.added")).toEqual([]);
    expect(existsSync(join(root, "library", "agg", "books", "harnesses"))).toBe(false);
    db.close();
  });
});
