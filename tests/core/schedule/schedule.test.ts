// The scheduler on fakes: tasks, domains and sweeps; selection, reflection and the library;
// checkpoints, resume with zero new work, tampering, library prefixes, failed selections.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModeToken } from "../../../src/core/events/registry.ts";
import { InterruptedError } from "../../../src/core/lib/interrupt.ts";
import { expectedLabels } from "../../../src/core/recursion/ledger.ts";
import { ModeRecord } from "../../../src/core/recursion/records.ts";
import { readSummary } from "../../../src/core/resume/summary.ts";
import {
  domainLibraries,
  modeTaskDir,
  runDomain,
  runSweep,
  runTask,
  type ScheduleInputs,
  summaryDir,
} from "../../../src/core/schedule/index.ts";
import {
  type Action,
  defaultAction,
  FakeAdapter,
  type FakeAdapterOptions,
  gate,
  LIMITS,
  labelsOf,
  RecordingSink,
  removeTempDirs,
  type ScriptedCall,
  ScriptedProposer,
  StateFakeAdapter,
  stepClock,
  tempDir,
} from "../fakes.ts";

afterAll(removeTempDirs);

type Env = {
  root: string;
  adapter: FakeAdapter;
  proposer: ScriptedProposer;
  sink: RecordingSink;
  inputs: ScheduleInputs;
};

function env(
  opts: {
    root?: string;
    k?: number;
    modes?: ModeToken[];
    tasks?: Record<string, string>;
    script?: (call: ScriptedCall) => Action;
    hold?: (call: ScriptedCall) => Promise<void>;
    adapter?: Partial<FakeAdapterOptions>;
    /** Builds the adapter (default: a FakeAdapter). */
    make?: (o: FakeAdapterOptions) => FakeAdapter;
    proposer?: ScriptedProposer;
    library?: boolean;
    domainWorkers?: number;
    libraryMaxEntries?: number;
    libraryMaxBytes?: number;
    seed?: number;
  } = {},
): Env {
  const root = opts.root ?? tempDir("schedule");
  const adapterOpts: FakeAdapterOptions = {
    root,
    tasks: opts.tasks ?? { t1: "books", t2: "books" },
    ...opts.adapter,
  };
  const adapter = opts.make ? opts.make(adapterOpts) : new FakeAdapter(adapterOpts);
  const proposer =
    opts.proposer ?? new ScriptedProposer(join(root, "sessions"), opts.script, opts.hold);
  const sink = new RecordingSink();
  const inputs: ScheduleInputs = {
    adapter,
    proposer,
    limits: {
      ...LIMITS,
      domainWorkers: opts.domainWorkers ?? 1,
      ...(opts.libraryMaxEntries === undefined
        ? {}
        : { libraryMaxEntries: opts.libraryMaxEntries }),
      ...(opts.libraryMaxBytes === undefined ? {} : { libraryMaxBytes: opts.libraryMaxBytes }),
    },
    runsRoot: join(root, "adapt"),
    libraryRoot: opts.library === false ? null : join(root, "library"),
    k: opts.k ?? 1,
    modes: opts.modes ?? ["agg", "seq"],
    seed: opts.seed ?? null,
    sink,
    clock: stepClock(),
    sweep: "sw",
  };
  return { root, adapter, proposer, sink, inputs };
}

function summaryOf(e: Env, task: string) {
  const read = readSummary(summaryDir(e.inputs, task));
  if (read.kind !== "summary") throw new Error(`no summary for ${task}: ${read.kind}`);
  return read.summary;
}

describe.each([1, 2])("runTask, k = %i", (k) => {
  test("runs both modes on shared bases, selects, reflects, stores the lesson, writes the summary", async () => {
    const e = env({ k });
    const libraries = domainLibraries(e.inputs, "books");
    const out = await runTask(e.inputs, "t1", { index: 1, of: 1, libraries });
    expect(out.status).toBe("ok");
    expect(out.ran).toEqual(["agg", "seq"]);
    const s = summaryOf(e, "t1");
    expect(s.status).toBe("ok");
    expect(s.errors).toEqual([]);
    expect(s.base.map((b) => b.label)).toEqual(Array.from({ length: k }, (_, i) => `base${i + 1}`));
    for (const mode of ["agg", "seq"] as const) {
      const rec = ModeRecord.parse(s.modes[mode]);
      expect(rec.ledger.rollouts).toEqual(expectedLabels(mode, k).rollouts);
      expect(rec.ledger.sessions).toEqual(expectedLabels(mode, k).sessions);
      const sel = s.selections[mode];
      expect(sel?.ok).toBe(true);
      expect(sel?.trivial).toBe(k === 1);
      expect(sel?.chosenRunDir).not.toBe("");
      expect(sel?.harnessFingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(sel?.outputDigest).toMatch(/^[0-9a-f]{64}$/);
      expect(sel?.chosenTreeIsBase).toBe(false);
      expect(sel?.experience?.lesson).toBe("keep negative amounts");
      // Base rollouts are shared: both modes' ledgers name the same agg-namespace runs.
      expect(s.base[0]?.runId).toStartWith("fake-oc-agg");
    }
    // Bases ran once for the task, not once per mode.
    expect(e.adapter.executed.filter((r) => r.endsWith("/base1"))).toHaveLength(1);
    // At k = 1 there is no select.* session; at k > 1 one per mode.
    const selects = e.proposer.calls
      .filter((c) => c.label.startsWith("select."))
      .map((c) => c.label);
    expect(selects).toEqual(k === 1 ? [] : ["select.agg2", "select.seq2"]);
    const libs = ["agg", "seq"].map((m) => join(e.root, "library", m, "books", "harnesses", "t1"));
    for (const lib of libs) expect(existsSync(join(lib, "EXPERIENCE.md"))).toBe(true);
    const types = e.sink.events.map((ev) => ev.type);
    expect(types[0]).toBe("task.started");
    expect(types.at(-1)).toBe("task.finished");
    expect(e.sink.ofType("mode.finished").map((m) => [m.mode, m.status])).toEqual([
      ["agg", "ok"],
      ["seq", "ok"],
    ]);
    expect(e.sink.ofType("selection.made")).toHaveLength(2);
    expect(e.sink.ofType("library.added")).toHaveLength(2);
    expect(e.sink.ofType("mode.finished")[1]?.similarity).toMatchObject({ n: k });
  });
});

test("a failed selection is never ok: the task is partial, nothing enters the library", async () => {
  const script = (call: ScriptedCall): Action =>
    call.label.startsWith("select.") ? { fail: "selector down", usd: 0.2 } : defaultAction(call);
  const e = env({ k: 2, modes: ["agg"], script });
  const libraries = domainLibraries(e.inputs, "books");
  const out = await runTask(e.inputs, "t1", { index: 1, of: 1, libraries });
  expect(out.status).toBe("partial");
  const s = summaryOf(e, "t1");
  expect(s.status).toBe("partial");
  expect(s.selections.agg).toMatchObject({ ok: false, fallback: true, experience: null });
  expect(s.selections.agg?.chosenLabel).toBe("agg1");
  expect(s.errors[0]).toStartWith("agg: selection failed: selector call failed: selector down");
  expect(e.proposer.calls.some((c) => c.label.startsWith("experience."))).toBe(false);
  expect(existsSync(join(e.root, "library", "agg", "books", "harnesses"))).toBe(false);
  // And it is not skipped on the next run.
  const again = await runTask({ ...e.inputs, sink: new RecordingSink() }, "t1");
  expect(again.status).toBe("partial");
  expect(again.ran).toEqual(["agg"]);
});

test("no base rollout produced anything: base-failed, nothing else runs", async () => {
  const e = env({ adapter: { failLabels: new Set(["base1"]) } });
  const out = await runTask(e.inputs, "t1");
  expect(out.status).toBe("base-failed");
  expect(summaryOf(e, "t1")).toMatchObject({
    status: "base-failed",
    errors: ["no base rollout produced anything"],
  });
  expect(e.proposer.calls).toEqual([]);
  expect(e.sink.ofType("task.finished")[0]?.status).toBe("failed");
});

test("a mode that raises is recorded as failed; the other mode's record stands", async () => {
  const e = env({ modes: ["agg", "seq"] });
  const realValidate = e.adapter.validateTree.bind(e.adapter);
  e.adapter.validateTree = async (tree) => {
    if (e.sink.ofType("mode.started").at(-1)?.mode === "seq")
      throw new TypeError("seq validator bug");
    return realValidate(tree);
  };
  const out = await runTask(e.inputs, "t1");
  expect(out.status).toBe("partial");
  const s = summaryOf(e, "t1");
  expect(s.modes.agg?.ok).toBe(true);
  expect(s.modes.seq).toMatchObject({
    ok: false,
    status: "failed",
    error: "TypeError: seq validator bug",
  });
  expect(s.selections.seq).toBeUndefined();
  expect(s.errors).toEqual(["seq: TypeError: seq validator bug"]);
  expect(e.sink.ofType("mode.finished").map((m) => m.status)).toEqual(["ok", "failed"]);
});

describe("a failure after the recursion keeps the recursion's record (docs/differences.md R5, S6)", () => {
  /** What a clean run of t1 (agg, k) records: the reference the failing runs are held to. */
  async function cleanRun(k: number) {
    const clean = env({ k, modes: ["agg"], tasks: { t1: "books" } });
    const libraries = domainLibraries(clean.inputs, "books");
    const out = await runTask(clean.inputs, "t1", { index: 1, of: 1, libraries });
    expect(out.status).toBe("ok");
    return { out, summary: summaryOf(clean, "t1") };
  }

  test.each([1, 2])(
    "k = %i: a throwing library add keeps the ledger, the spend and the selection, on disk and in the result",
    async (k) => {
      const reference = await cleanRun(k);
      const e = env({ k, modes: ["agg"], tasks: { t1: "books" } });
      const libraries = domainLibraries(e.inputs, "books");
      const lib = libraries.agg;
      if (lib === undefined) throw new Error("no agg library");
      lib.add = () => {
        throw new Error("ENOSPC: no space left on device");
      };
      const out = await runTask(e.inputs, "t1", { index: 1, of: 1, libraries });
      expect(out.status).toBe("partial");
      const s = summaryOf(e, "t1");
      for (const summary of [s, out.summary]) {
        const rec = ModeRecord.parse(summary?.modes.agg);
        expect(rec).toMatchObject({
          status: "failed",
          ok: false,
          error: "library add failed: Error: ENOSPC: no space left on device",
        });
        expect(rec.traceback).toContain("ENOSPC");
        expect(rec.ledger.R).toBe(4 * k);
        expect(rec.ledger.P).toBe(3 * k);
        expect(rec.ledger.rollouts).toEqual(expectedLabels("agg", k).rollouts);
        expect(rec.ledger.usd).toBe(ModeRecord.parse(reference.summary.modes.agg).ledger.usd);
        // The selection record stands, lesson and all, exactly as a clean run records it.
        const sel = summary?.selections.agg;
        expect(sel?.ok).toBe(true);
        expect(sel?.chosenLabel).toBe(reference.summary.selections.agg?.chosenLabel as string);
        expect(sel?.usd).toBe(reference.summary.selections.agg?.usd as number);
        expect(sel?.experience?.lesson).toBe("keep negative amounts");
        expect(summary?.errors).toEqual([
          "agg: library add failed: Error: ENOSPC: no space left on device",
        ]);
      }
      expect(out.usd).toBe(reference.out.usd);
      expect(out.usd).toBeGreaterThan(0);
      expect(existsSync(join(e.root, "library", "agg", "books", "harnesses", "t1"))).toBe(false);
      const finished = e.sink.ofType("mode.finished")[0];
      expect(finished).toMatchObject({
        status: "failed",
        R: 4 * k,
        P: 3 * k,
        usd: out.usd,
        error: "library add failed: Error: ENOSPC: no space left on device",
      });
      // Not skipped next time: the lesson is missing, so the mode runs again (from caches) and
      // stores it.
      const again = env({ root: e.root, k, modes: ["agg"], tasks: { t1: "books" } });
      const r2 = await runTask(again.inputs, "t1", {
        index: 1,
        of: 1,
        libraries: domainLibraries(again.inputs, "books"),
      });
      expect(r2.status).toBe("ok");
      expect(again.adapter.executed).toEqual([]);
      expect(
        existsSync(join(e.root, "library", "agg", "books", "harnesses", "t1", "EXPERIENCE.md")),
      ).toBe(true);
    },
  );

  test("selection throwing after the recursion keeps the mode's ledger and spend (no selection)", async () => {
    const reference = await cleanRun(2);
    const script = (call: ScriptedCall): Action => {
      if (call.label.startsWith("select.")) throw new TypeError("selector bug");
      return defaultAction(call);
    };
    const e = env({ k: 2, modes: ["agg"], tasks: { t1: "books" }, script });
    const out = await runTask(e.inputs, "t1", {
      index: 1,
      of: 1,
      libraries: domainLibraries(e.inputs, "books"),
    });
    expect(out.status).toBe("partial");
    const s = summaryOf(e, "t1");
    const rec = ModeRecord.parse(s.modes.agg);
    expect(rec).toMatchObject({ status: "failed", ok: false, error: "TypeError: selector bug" });
    expect(rec.ledger.R).toBe(8);
    expect(rec.ledger.P).toBe(6);
    expect(rec.ledger.sessions).toEqual(expectedLabels("agg", 2).sessions);
    expect(rec.ledger.usd).toBe(ModeRecord.parse(reference.summary.modes.agg).ledger.usd);
    expect(rec.ledger.usd).toBeGreaterThan(0);
    expect(s.selections.agg).toBeUndefined();
    expect(s.errors).toEqual(["agg: TypeError: selector bug"]);
    expect(out.usd).toBe(rec.ledger.usd);
    expect(e.sink.ofType("mode.finished")[0]).toMatchObject({ status: "failed", R: 8, P: 6 });
  });
});

describe("base-failed is decided on ok, not delivered (docs/differences.md R3)", () => {
  test("a base that ran but delivered nothing lets the task proceed", async () => {
    const e = env({ modes: ["agg"], tasks: { t1: "books" } });
    const delivered = e.adapter.delivered.bind(e.adapter);
    e.adapter.delivered = async (runDir) => (runDir.includes("base1") ? false : delivered(runDir));
    const out = await runTask(e.inputs, "t1");
    expect(out.status).toBe("ok");
    const s = summaryOf(e, "t1");
    expect(s.base[0]?.label).toBe("base1");
    expect(s.modes.agg?.ok).toBe(true);
    expect(e.proposer.calls.length).toBeGreaterThan(0);
  });

  test("a base that did not run at all (no run folder) is base-failed", async () => {
    const e = env({ modes: ["agg"], tasks: { t1: "books" } });
    e.adapter.execute = async (_task, _harness, runId) =>
      join(e.root, "never-written", runId.replaceAll("/", "__"));
    const out = await runTask(e.inputs, "t1");
    expect(out.status).toBe("base-failed");
    expect(e.proposer.calls).toEqual([]);
  });
});

describe("a task whose deliverable is its state (docs/differences.md R16)", () => {
  test.each([1, 2])(
    "k = %i: shown as trajectories it ends ok, and the next run skips it with no new work",
    async (k) => {
      const make = (o: FakeAdapterOptions) => new StateFakeAdapter(o);
      const e = env({ k, tasks: { t1: "books" }, make });
      expect(e.adapter.spec.stateDeliverable).toBe(true);
      const out = await runTask(e.inputs, "t1", {
        index: 1,
        of: 1,
        libraries: domainLibraries(e.inputs, "books"),
      });
      expect(out.errors).toEqual([]);
      expect(out.status).toBe("ok");
      const s = summaryOf(e, "t1");
      expect(s.status).toBe("ok");
      for (const mode of ["agg", "seq"] as const) {
        const sel = s.selections[mode];
        expect(sel?.ok).toBe(true);
        expect(sel?.evidence).toBe("trajectory");
        expect(sel?.outputDigest).toMatch(/^[0-9a-f]{64}$/);
      }

      const again = env({ root: e.root, k, tasks: { t1: "books" }, make });
      const r2 = await runTask(again.inputs, "t1");
      expect(r2.status).toBe("skipped");
      expect(again.adapter.executed).toEqual([]);
      expect(again.proposer.calls).toEqual([]);
      expect(again.sink.ofType("task.skipped").map((ev) => ev.task)).toEqual(["t1"]);
    },
  );
});

test("a degraded mode makes the task partial and stores no lesson", async () => {
  const script = (call: ScriptedCall): Action =>
    call.label.split(".")[0]?.match(/^(inv|dom|agg|c)\d/)
      ? { fail: "no model" }
      : defaultAction(call);
  const e = env({ modes: ["agg"], script });
  const libraries = domainLibraries(e.inputs, "books");
  const out = await runTask(e.inputs, "t1", { index: 1, of: 1, libraries });
  expect(out.status).toBe("partial");
  const s = summaryOf(e, "t1");
  expect(s.modes.agg).toMatchObject({ status: "degraded", ok: false });
  expect(s.errors[0]).toStartWith("agg: degraded: every stage fell back");
  expect(s.selections.agg?.ok).toBe(true);
  expect(s.selections.agg?.chosenTreeIsBase).toBe(true);
  expect(e.proposer.calls.some((c) => c.label.startsWith("experience."))).toBe(false);
});

test("the summary is checkpointed after each mode; a stopped run resumes with the finished mode intact", async () => {
  let seen: ReturnType<typeof readSummary> | null = null;
  let inputs: ScheduleInputs | null = null;
  const e = env({
    modes: ["agg", "seq"],
    hold: async (call) => {
      if (call.label === "inv1.a1" && seen === null && String(call.contextDir).includes("-seq1")) {
        seen = readSummary(summaryDir(inputs as ScheduleInputs, "t1"));
      }
    },
  });
  inputs = e.inputs;
  await runTask(e.inputs, "t1");
  const checkpoint = seen as unknown as ReturnType<typeof readSummary>;
  expect(checkpoint.kind).toBe("summary");
  if (checkpoint.kind === "summary") {
    expect(Object.keys(checkpoint.summary.modes)).toEqual(["agg"]);
    expect(checkpoint.summary.modes.agg?.ok).toBe(true);
  }

  // A run of agg only, then a run asking for both: agg is reused, only seq runs.
  const f = env({ modes: ["agg"] });
  await runTask(f.inputs, "t1");
  const proposer = new ScriptedProposer(join(f.root, "sessions2"));
  const both = env({ root: f.root, modes: ["agg", "seq"], proposer });
  const out = await runTask(both.inputs, "t1");
  expect(out).toMatchObject({ status: "ok", ran: ["seq"], reused: ["agg"] });
  expect(proposer.calls.every((c) => String(c.contextDir).includes("-seq1"))).toBe(true);
  expect(both.adapter.executed.filter((r) => r.includes("-agg1/"))).toEqual([]);
  expect(summaryOf(both, "t1").modes.agg?.ok).toBe(true);
});

describe("resume across sweeps", () => {
  test("a second run does no new work: no execution, no proposer call, every task skipped, libraries restored", async () => {
    const first = env({ k: 2 });
    const r1 = await runSweep(first.inputs);
    expect(r1.domains[0]).toMatchObject({ domain: "books", done: 2, failed: 0, skipped: 0 });
    const second = env({ root: first.root, k: 2 });
    const r2 = await runSweep(second.inputs);
    expect(second.adapter.executed).toEqual([]);
    expect(second.proposer.calls).toEqual([]);
    expect(r2.domains[0]).toMatchObject({ done: 2, failed: 0, skipped: 2 });
    expect(second.sink.ofType("task.skipped").map((e) => e.task)).toEqual(["t1", "t2"]);
    // Replayed into the library: t2's row saw t1's entry in each mode.
    const row = (r2.domains[0] as { tasks: { libraryEntriesBefore?: object }[] }).tasks[1];
    expect(row?.libraryEntriesBefore).toEqual({ agg: 1, seq: 1 });
    expect(second.sink.ofType("sweep.finished")[0]).toMatchObject({
      status: "ok",
      tasksSkipped: 2,
    });
  });

  test("tampering re-runs only the tampered task, from run marks and cached replies", async () => {
    const first = env({ k: 2 });
    await runSweep(first.inputs);
    const proposer = first.proposer;

    // 1. The adopted harness of t1 (agg) is changed after selection.
    const s1 = summaryOf(first, "t1");
    const chosen = s1.selections.agg?.chosenLabel as string;
    const harness = join(
      modeTaskDir(first.inputs, "agg", "t1"),
      "harnesses",
      chosen,
      "guardrails.md",
    );
    writeFileSync(harness, "tampered\n");
    const second = env({ root: first.root, k: 2, proposer });
    const freshBefore = proposer.fresh.length;
    const r2 = await runSweep(second.inputs);
    expect((r2.domains[0] as { tasks: { task: string; status: string }[] }).tasks).toMatchObject([
      { task: "t1", status: "ok" },
      { task: "t2", status: "skipped" },
    ]);
    expect(second.sink.ofType("task.started").length).toBe(2);
    expect(readFileSync(harness, "utf8")).not.toBe("tampered\n");
    expect(second.adapter.executed).toEqual([]);
    expect(proposer.fresh.length).toBe(freshBefore);

    // 2. The chosen answer of t2 (seq) is deleted.
    const s2 = summaryOf(first, "t2");
    const runDir = s2.selections.seq?.chosenRunDir as string;
    rmSync(join(runDir, "output", "answer.txt"));
    const third = env({ root: first.root, k: 2, proposer });
    const r3 = await runSweep(third.inputs);
    expect((r3.domains[0] as { tasks: { task: string; status: string }[] }).tasks).toMatchObject([
      { task: "t1", status: "skipped" },
      { task: "t2", status: "ok" },
    ]);
    // Only the adopted final is executed again; agg of t2 stays as it was.
    expect(third.adapter.executed).toEqual([s2.selections.seq?.chosenRunId as string]);
    expect(readFileSync(join(runDir, "output", "answer.txt"), "utf8").trim()).not.toBe("");
    expect(proposer.fresh.length).toBe(freshBefore);
  });

  test("an edited adopted answer (same length, still delivered) is caught by its digest", async () => {
    const first = env({ modes: ["agg"] });
    await runSweep(first.inputs);
    const runDir = summaryOf(first, "t2").selections.agg?.chosenRunDir as string;
    const answer = join(runDir, "output", "answer.txt");
    writeFileSync(answer, readFileSync(answer, "utf8").replace(/./, "X"));
    const again = env({ root: first.root, modes: ["agg"] });
    // The fake adapter's own artifact check is switched off: the digest alone must catch it.
    again.adapter.artifactsIntact = async () => true;
    const r = await runSweep(again.inputs);
    expect((r.domains[0] as { tasks: { status: string }[] }).tasks.map((t) => t.status)).toEqual([
      "skipped",
      "ok",
    ]);
  });
});

/** The evidence folder a task's stage (parallel mode) was handed, as its `stage.started` says. */
function evidenceOf(e: Env, task: string, label: string): string {
  const started = e.sink
    .ofType("stage.started")
    .filter((ev) => ev.task === task && ev.mode === "agg" && ev.label === label);
  expect(started).toHaveLength(1);
  return started[0]?.evidenceDir as string;
}

describe("library prefix", () => {
  test("task 2's improvers see task 1's entry only; task 1 sees none, even after a stale later entry", async () => {
    const e = env({ modes: ["agg"], tasks: { t1: "books", t2: "books", t3: "books" } });
    await runDomain(e.inputs, "books", ["t1", "t2"]);
    // A stale entry of a LATER task (as an interrupted sweep of another stream would leave).
    const libDir = join(e.root, "library", "agg", "books");
    expect(readdirSync(join(libDir, "harnesses")).sort()).toEqual(["t1", "t2"]);
    const again = env({
      root: e.root,
      modes: ["agg"],
      tasks: { t1: "books", t2: "books", t3: "books" },
    });
    rmSync(join(summaryDir(again.inputs, "t1")), { recursive: true, force: true });
    const d = await runDomain(again.inputs, "books", ["t1", "t3"]);
    expect(d.tasks.map((t) => t.libraryEntriesBefore)).toEqual([{ agg: 0 }, { agg: 1 }]);
    for (const stage of ["inv1", "dom1", "agg1"]) {
      expect(existsSync(join(evidenceOf(again, "t1", stage), "library"))).toBe(false);
      const lib = join(evidenceOf(again, "t3", stage), "library", "harnesses");
      expect(readdirSync(lib)).toEqual(["t1"]);
    }
  });
});

describe("library cap", () => {
  const tasks = { t1: "books", t2: "books", t3: "books", t4: "books" };
  const stream = Object.keys(tasks);

  test("with libraryMaxEntries 2, task 4's improvers see only tasks 2 and 3; nothing is deleted", async () => {
    const e = env({ modes: ["agg"], tasks, libraryMaxEntries: 2 });
    const d = await runDomain(e.inputs, "books", stream);
    expect(d.tasks.map((t) => t.libraryEntriesBefore)).toEqual([
      { agg: 0 },
      { agg: 1 },
      { agg: 2 },
      { agg: 3 },
    ]);
    for (const stage of ["inv1", "dom1", "agg1"]) {
      const lib = join(evidenceOf(e, "t4", stage), "library");
      expect(readdirSync(join(lib, "harnesses")).sort()).toEqual(["t2", "t3"]);
      expect(readFileSync(join(lib, "INDEX.md"), "utf8")).toContain(
        "_1 older entry is not shown._",
      );
      // Under the cap, task 3 sees both earlier entries and no note.
      expect(readdirSync(join(evidenceOf(e, "t3", stage), "library", "harnesses")).sort()).toEqual([
        "t1",
        "t2",
      ]);
    }
    const libDir = join(e.root, "library", "agg", "books");
    expect(readdirSync(join(libDir, "harnesses")).sort()).toEqual(stream);
    expect(readFileSync(join(libDir, "INDEX.md"), "utf8")).not.toContain("not shown");
  });

  test("with a 1-byte libraryMaxBytes, task 4's improvers see only the newest entry, whole", async () => {
    const e = env({ modes: ["agg"], tasks, libraryMaxBytes: 1 });
    await runDomain(e.inputs, "books", stream);
    const lib = join(modeTaskDir(e.inputs, "agg", "t4"), "context", "agg1", "library");
    expect(readdirSync(join(lib, "harnesses"))).toEqual(["t3"]);
    expect(readFileSync(join(lib, "INDEX.md"), "utf8")).toContain(
      "_2 older entries are not shown._",
    );
    expect(readdirSync(join(e.root, "library", "agg", "books", "harnesses")).sort()).toEqual(
      stream,
    );
  });

  test("without a cap (the default) task 4 sees all three earlier entries", async () => {
    const e = env({ modes: ["agg"], tasks });
    await runDomain(e.inputs, "books", stream);
    const lib = join(modeTaskDir(e.inputs, "agg", "t4"), "context", "agg1", "library");
    expect(readdirSync(join(lib, "harnesses")).sort()).toEqual(["t1", "t2", "t3"]);
    expect(readFileSync(join(lib, "INDEX.md"), "utf8")).not.toContain("not shown");
  });
});

test("runSweep: domains in stream order under the worker limit; a failing task does not stop the rest", async () => {
  const tasks = { a1: "alpha", a2: "alpha", b1: "beta", g1: "gamma" };
  const e = env({ tasks, modes: ["agg"], seed: 7 });
  e.adapter.taskPrompt = async (task: string) => {
    if (task === "b1") throw new Error("beta prompt missing");
    return `Total the ledger of ${task}.`;
  };
  const domainOf = e.adapter.domainOf.bind(e.adapter);
  e.adapter.domainOf = (task: string) => {
    if (task === "g1" && e.sink.ofType("sweep.started").length > 0)
      throw new Error("gamma is gone");
    return domainOf(task);
  };
  const r = await runSweep(e.inputs);
  expect(r.domainOrder).toEqual(r.domains.map((d) => d.domain));
  const byDomain = Object.fromEntries(r.domains.map((d) => [d.domain, d]));
  expect(byDomain.alpha).toMatchObject({ done: 2, failed: 0 });
  // b1's stages fell back (no evidence), so the task is partial, not a crash.
  expect(byDomain.beta).toMatchObject({ done: 0, failed: 1 });
  expect(
    (byDomain.gamma as { tasks: { status: string; error?: string }[] }).tasks[0],
  ).toMatchObject({
    status: "exception",
    error: "Error: gamma is gone",
  });
  // …and it is an event with its reason, so every front end and the store show the failure.
  const g1 = e.sink.ofType("task.finished").find((ev) => ev.task === "g1");
  expect(g1).toMatchObject({ status: "failed", domain: "gamma", error: "Error: gamma is gone" });
  // One worker: a domain's tasks never interleave with another's.
  const starts = e.sink.events
    .filter(
      (ev) =>
        ev.type === "task.started" || ev.type === "task.finished" || ev.type === "task.skipped",
    )
    .map((ev) => ev.domain);
  const switches = starts.filter((d, i) => i > 0 && d !== starts[i - 1]).length;
  expect(switches).toBeLessThanOrEqual(r.domains.length - 1);
  expect(e.sink.ofType("sweep.finished")[0]).toMatchObject({ status: "failed", tasksOk: 2 });
});

test("runSweep with two workers runs two domains at once", async () => {
  const tasks = { a1: "alpha", b1: "beta" };
  let active = 0;
  let peak = 0;
  let release = () => {};
  const both = new Promise<void>((r) => {
    release = r;
  });
  const e = env({ tasks, modes: ["agg"], domainWorkers: 2 });
  e.adapter.opts.onExecute = async (runId) => {
    if (!runId.endsWith("/base1")) return;
    active++;
    peak = Math.max(peak, active);
    if (active === 2) release();
    await both;
    active--;
  };
  const r = await runSweep(e.inputs);
  expect(peak).toBe(2);
  expect(r.domains.map((d) => ("done" in d ? d.done : -1))).toEqual([1, 1]);
});

test("bad requests are refused before any work", async () => {
  const e = env();
  await expect(runTask({ ...e.inputs, k: 0 }, "t1")).rejects.toThrow("k must be an integer");
  await expect(runTask({ ...e.inputs, modes: [] }, "t1")).rejects.toThrow("at least one mode");
  await expect(runTask({ ...e.inputs, modes: ["agg", "agg"] }, "t1")).rejects.toThrow("twice");
  await expect(runTask({ ...e.inputs, modes: ["both" as ModeToken] }, "t1")).rejects.toThrow(
    "unknown mode",
  );
  const capped = { ...e.inputs, limits: { ...e.inputs.limits, libraryMaxEntries: -1 } };
  await expect(runTask(capped, "t1")).rejects.toThrow(
    "libraryMaxEntries must be an integer ≥ 0 (0 = no cap), got -1",
  );
  expect(e.adapter.executed).toEqual([]);
});

test("an interrupted sweep starts no new task, keeps what finished, and resumes from there", async () => {
  const e = env({ modes: ["agg"] });
  const controller = new AbortController();
  const sink = {
    emit(ev: Parameters<RecordingSink["emit"]>[0]) {
      e.sink.emit(ev);
      if (ev.type === "task.finished" && ev.task === "t1") controller.abort();
    },
  };
  const r = await runSweep({ ...e.inputs, sink, signal: controller.signal });
  expect(r.domains[0]).toMatchObject({ done: 1, interrupted: true });
  expect(e.sink.ofType("task.started").map((t) => t.task)).toEqual(["t1"]);
  expect(e.sink.ofType("sweep.finished")[0]?.status).toBe("interrupted");
  const again = env({ root: e.root, modes: ["agg"] });
  const r2 = await runSweep(again.inputs);
  expect((r2.domains[0] as { tasks: { status: string }[] }).tasks.map((t) => t.status)).toEqual([
    "skipped",
    "ok",
  ]);
});

describe("interrupting a sweep (q / Ctrl-C)", () => {
  /** What a finished task adopted per mode, as its summary records it (comparable across roots). */
  function adoption(e: Env, task: string) {
    const s = summaryOf(e, task);
    const out: Record<string, unknown> = { status: s.status, errors: s.errors };
    for (const mode of ["agg", "seq"] as const) {
      if (s.modes[mode] === undefined) continue;
      const rec = ModeRecord.parse(s.modes[mode]);
      const sel = s.selections[mode];
      out[mode] = {
        status: rec.status,
        rollouts: rec.ledger.rollouts,
        sessions: rec.ledger.sessions,
        fellBack: rec.fellBack,
        chosen: sel?.chosenLabel,
        ok: sel?.ok,
        digest: sel?.outputDigest,
        harness: sel?.harnessFingerprint,
        lesson: sel?.experience?.lesson ?? null,
      };
    }
    return out;
  }

  function abortedSignal(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((r) => signal.addEventListener("abort", () => r(), { once: true }));
  }

  /**
   * Holds the calls `which` picks until the sweep's signal aborts, then ends them as the real
   * Proposer ends an interrupted call (InterruptedError with its spend, 0.4 each). `ready` opens
   * once `count` calls are held.
   */
  function holdUntilAborted(which: (call: ScriptedCall) => boolean, count: number) {
    const held: ScriptedCall[] = [];
    const ready = gate();
    const hold = async (call: ScriptedCall) => {
      if (!which(call)) return;
      held.push(call);
      if (held.length === count) ready.open();
      const signal = call.opts.signal;
      if (signal === undefined) {
        ready.open(); // fail the test's assertions, not by hanging
        throw new Error(`${call.label} got no abort signal`);
      }
      await abortedSignal(signal);
      throw new InterruptedError(`[${call.label}] interrupted`, 0.4);
    };
    return { held, ready, hold };
  }

  const NEVER_AFTER_PROPOSALS = [
    "stage.finished",
    "selection.made",
    "reflection.finished",
    "library.added",
    "mode.finished",
    "task.finished",
  ] as const;

  test("q while two improver calls run: both get the abort, nothing else starts, the task is not done; the next run ends where an uninterrupted one does", async () => {
    const controller = new AbortController();
    const h = holdUntilAborted((c) => c.label === "inv1.a1" || c.label === "dom1.a1", 2);
    const e = env({ k: 2, hold: h.hold });
    const sweep = runSweep({ ...e.inputs, signal: controller.signal });
    await h.ready.wait;
    controller.abort();
    const r = await sweep;

    for (const call of h.held) expect(call.opts.signal).toBe(controller.signal);
    // No further stage, rollout, selection or reflection call after the interrupt.
    expect(e.proposer.calls.map((c) => c.label).sort()).toEqual(["dom1.a1", "inv1.a1"]);
    expect(e.adapter.executed.map((id) => id.slice(id.lastIndexOf("/") + 1))).toEqual([
      "base1",
      "base2",
    ]);
    expect(labelsOf(e.sink.events, "rollout.finished")).toEqual(["base1", "base2"]);
    for (const type of NEVER_AFTER_PROPOSALS) expect(e.sink.ofType(type)).toEqual([]);
    expect(e.sink.ofType("phase.started").map((p) => p.phase)).toEqual(["proposals"]);
    expect(e.sink.ofType("mode.started").map((m) => m.mode)).toEqual(["agg"]);
    expect(e.sink.ofType("task.started").map((t) => t.task)).toEqual(["t1"]);
    // Not marked done: no record at all, no lesson.
    expect(readSummary(summaryDir(e.inputs, "t1")).kind).toBe("missing");
    expect(existsSync(join(e.root, "library", "agg", "books", "harnesses", "t1"))).toBe(false);
    expect(r.domains[0]).toMatchObject({
      done: 0,
      failed: 0,
      interrupted: true,
      interruptedTask: "t1",
      tasks: [],
    });
    const finished = e.sink.ofType("sweep.finished")[0];
    expect(finished).toMatchObject({ status: "interrupted", tasksOk: 0, tasksFailed: 0 });
    // The spend still counts: the bases in the agg ledger (2 × 0.25) and both interrupted calls.
    expect(finished?.usd).toBeCloseTo(1.3, 6);

    // The same command again resumes and finishes; bases come back from their run marks.
    const again = env({ root: e.root, k: 2 });
    const r2 = await runSweep(again.inputs);
    expect((r2.domains[0] as { tasks: { status: string }[] }).tasks.map((t) => t.status)).toEqual([
      "ok",
      "ok",
    ]);
    expect(again.adapter.executed.filter((id) => /\/t1\/base\d$/.test(id))).toEqual([]);
    const clean = env({ k: 2 });
    await runSweep(clean.inputs);
    for (const task of ["t1", "t2"]) expect(adoption(again, task)).toEqual(adoption(clean, task));
    for (const lib of ["agg", "seq"].map((m) => join(again.root, "library", m, "books"))) {
      for (const task of ["t1", "t2"]) {
        expect(existsSync(join(lib, "harnesses", task, "EXPERIENCE.md"))).toBe(true);
      }
    }
  });

  test("q during seq after agg finished: agg's checkpoint and lesson stand, seq is not recorded, and the next run runs only seq", async () => {
    const controller = new AbortController();
    const h = holdUntilAborted(
      (c) => c.label === "inv1.a1" && String(c.contextDir).includes("-seq1"),
      1,
    );
    const e = env({ hold: h.hold });
    const sweep = runSweep({ ...e.inputs, signal: controller.signal });
    await h.ready.wait;
    controller.abort();
    await sweep;
    expect(h.held[0]?.opts.signal).toBe(controller.signal);
    expect(e.sink.ofType("mode.finished").map((m) => m.mode)).toEqual(["agg"]);
    expect(e.sink.ofType("task.finished")).toEqual([]);
    const s = summaryOf(e, "t1");
    // The checkpoint after agg is the record; nothing of the interrupted seq is in it.
    expect(Object.keys(s.modes)).toEqual(["agg"]);
    expect(Object.keys(s.selections)).toEqual(["agg"]);
    expect(e.sink.ofType("library.added").map((l) => l.mode)).toEqual(["agg"]);

    const again = env({ root: e.root, tasks: { t1: "books" } });
    const out = await runTask(again.inputs, "t1");
    expect(out).toMatchObject({ status: "ok", ran: ["seq"], reused: ["agg"] });
    expect(again.proposer.calls.every((c) => String(c.contextDir).includes("-seq1"))).toBe(true);
  });

  type Case = {
    name: string;
    call?: string;
    rollout?: string;
    /** `selection.made` events the interrupted run emits (a finished selection is kept). */
    selections: number;
  };
  const cases: Case[] = [
    { name: "the selector call", call: "select.agg2", selections: 0 },
    { name: "the reflection call", call: "experience.agg2", selections: 1 },
    { name: "a candidate rollout", rollout: "inv1", selections: 0 },
  ];
  test.each(cases)(
    "q during $name: the mode ends interrupted, nothing is adopted or stored, and the next run completes it",
    async (c) => {
      const controller = new AbortController();
      const h = holdUntilAborted((call) => call.label === c.call, 1);
      const e = env({
        k: 2,
        modes: ["agg"],
        tasks: { t1: "books" },
        hold: h.hold,
        adapter: {
          onExecute: async (runId) => {
            if (c.rollout === undefined || !runId.endsWith(`/${c.rollout}`)) return;
            h.ready.open();
            await abortedSignal(controller.signal);
            throw new Error("executor killed"); // what a killed executor looks like to core
          },
        },
      });
      const sweep = runSweep({ ...e.inputs, signal: controller.signal });
      await h.ready.wait;
      controller.abort();
      const r = await sweep;
      expect(r.domains[0]).toMatchObject({ interrupted: true, interruptedTask: "t1", failed: 0 });
      expect(e.sink.ofType("selection.made")).toHaveLength(c.selections);
      for (const type of [
        "reflection.finished",
        "library.added",
        "mode.finished",
        "task.finished",
      ] as const) {
        expect(e.sink.ofType(type)).toEqual([]);
      }
      expect(readSummary(summaryDir(e.inputs, "t1")).kind).toBe("missing");
      if (c.rollout !== undefined) {
        // Interrupted, not dead: never finished, never in the ledger, no composer started.
        expect(labelsOf(e.sink.events, "rollout.finished")).not.toContain(c.rollout);
        const ledger = e.sink.ofType("ledger.recorded").filter((l) => l.kind === "rollout");
        expect(ledger.map((l) => l.label)).toEqual(["base1", "base2"]);
        expect(e.proposer.calls.filter((x) => x.label.startsWith("agg"))).toEqual([]);
      }

      const again = env({ root: e.root, k: 2, modes: ["agg"], tasks: { t1: "books" } });
      const out = await runTask(again.inputs, "t1");
      expect(out.status).toBe("ok");
      const clean = env({ k: 2, modes: ["agg"], tasks: { t1: "books" } });
      await runTask(clean.inputs, "t1");
      expect(adoption(again, "t1")).toEqual(adoption(clean, "t1"));
    },
  );
});
