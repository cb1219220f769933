// summary.json: status rules, the merge across runs and processes, the lock and atomic writes.
import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  computeStatus,
  mergeSummary,
  NO_BASE_ERROR,
  readSummary,
  SUMMARY_LOCK,
  SummaryError,
  type TaskSummary,
  withFileLock,
  writeSummary,
} from "../../../src/core/resume/summary.ts";
import { gate, removeTempDirs, tempDir } from "../fakes.ts";

afterAll(removeTempDirs);

const ledger = (mode: "agg" | "seq") => ({
  mode,
  taskId: "t1",
  k: 1,
  R: 4,
  expectedR: 4,
  P: 3,
  expectedP: 3,
  sessionAttempts: 3,
  usd: 1,
  rolloutUsd: 0.5,
  sessionUsd: 0.5,
  rollouts: ["base1", "inv1", "dom1", mode === "agg" ? "agg1" : "c1"],
  sessions: ["inv1", "dom1", mode === "agg" ? "agg1" : "c1"],
});

function modeEntry(mode: "agg" | "seq", ok = true) {
  const final = mode === "agg" ? "agg1" : "c1";
  return {
    mode,
    taskId: "t1",
    k: 1,
    status: ok ? ("ok" as const) : ("degraded" as const),
    ok,
    finals: [final],
    fellBack: [],
    keptBase: [],
    stages: [],
    similarity: { n: 1, nDistinct: 1, meanLineJaccard: 1 },
    ledger: ledger(mode),
    errors: [],
    error: "",
    traceback: "",
  };
}

function selection(mode: "agg" | "seq", ok = true) {
  const final = mode === "agg" ? "agg1" : "c1";
  return {
    taskId: "t1",
    mode,
    k: 1,
    chosenId: "A",
    chosenLabel: final,
    chosenRunId: `x-oc-${mode}1/t1/${final}`,
    chosenIsBase: false,
    why: "",
    idMap: { A: final },
    dropped: [],
    nCandidates: 1,
    ok,
    fallback: !ok,
    error: ok ? "" : "selector down",
    usd: 0,
    experience: null,
    trivial: ok,
    evidence: "deliverable" as const,
    chosenRunDir: "/runs/x",
    chosenTreeIsBase: false,
    harnessFingerprint: "0123456789abcdef",
    outputDigest: null,
  };
}

function summary(partial: Partial<TaskSummary> = {}): TaskSummary {
  return {
    taskId: "t1",
    domain: "books",
    k: 1,
    seed: null,
    status: "partial",
    base: [{ label: "base1", runId: "x-oc-agg1/t1/base1", runDir: "/runs/b1" }],
    modes: {},
    selections: {},
    errors: [],
    ...partial,
  };
}

describe("status", () => {
  test("ok needs every present mode ok with an ok selection and a chosen label, and no errors", () => {
    const good = summary({
      modes: { agg: modeEntry("agg") },
      selections: { agg: selection("agg") },
    });
    expect(computeStatus(good)).toBe("ok");
    expect(computeStatus({ ...good, errors: ["agg: something"] })).toBe("partial");
    expect(computeStatus({ ...good, selections: { agg: selection("agg", false) } })).toBe(
      "partial",
    );
    expect(computeStatus({ ...good, modes: { agg: modeEntry("agg", false) } })).toBe("partial");
    expect(computeStatus(summary())).toBe("partial");
    expect(computeStatus({ ...good, status: "base-failed" })).toBe("base-failed");
  });
});

describe("merge", () => {
  test("this run's modes replace the old ones; others are kept; the status covers the merged record", () => {
    const old = summary({
      status: "partial",
      modes: {
        agg: modeEntry("agg"),
        seq: { mode: "seq", ok: false, status: "failed", error: "boom", traceback: "" },
      },
      selections: { agg: selection("agg") },
      errors: ["seq: Error: boom", NO_BASE_ERROR, "agg: stale"],
    });
    const current = summary({
      modes: { seq: modeEntry("seq") },
      selections: { seq: selection("seq") },
    });
    const merged = mergeSummary(current, old);
    expect(Object.keys(merged.modes).sort()).toEqual(["agg", "seq"]);
    expect(merged.modes.seq?.ok).toBe(true);
    // Old errors about a re-run mode and the missing base are gone; others survive once.
    expect(merged.errors).toEqual(["agg: stale"]);
    expect(merged.status).toBe("partial");
    expect(mergeSummary(current, { ...old, errors: [] }).status).toBe("ok");
  });

  test("a re-run mode's stale selection does not survive when this run stored none", () => {
    const old = summary({
      modes: { agg: modeEntry("agg") },
      selections: { agg: selection("agg") },
    });
    const current = summary({
      modes: {
        agg: { mode: "agg", ok: false, status: "failed", error: "TypeError: x", traceback: "" },
      },
      errors: ["agg: TypeError: x"],
    });
    const merged = mergeSummary(current, old);
    expect(merged.selections.agg).toBeUndefined();
    expect(merged.status).toBe("partial");
  });

  test("errors are never repeated", () => {
    const old = summary({ errors: ["x: one", "x: one"] });
    expect(mergeSummary(summary({ errors: ["x: one"] }), old).errors).toEqual(["x: one"]);
  });
});

describe("write", () => {
  test("writes atomically, merges with what is on disk, returns the on-disk status, removes its lock", async () => {
    const dir = tempDir("summary");
    await writeSummary(
      dir,
      summary({ modes: { agg: modeEntry("agg") }, selections: { agg: selection("agg") } }),
    );
    const written = await writeSummary(
      dir,
      summary({ modes: { seq: modeEntry("seq") }, selections: { seq: selection("seq") } }),
    );
    expect(written.status).toBe("ok");
    const read = readSummary(dir);
    expect(read.kind === "summary" && Object.keys(read.summary.modes).sort()).toEqual([
      "agg",
      "seq",
    ]);
    expect(readdirSync(dir).sort()).toEqual(["summary.json"]);
    expect(readFileSync(join(dir, "summary.json"), "utf8").endsWith("\n")).toBe(true);
  });

  test("an unreadable summary reads as unreadable and is replaced on write", async () => {
    const dir = tempDir("summary");
    writeFileSync(join(dir, "summary.json"), "{not json");
    expect(readSummary(dir).kind).toBe("unreadable");
    expect(readSummary(join(dir, "nope")).kind).toBe("missing");
    const written = await writeSummary(dir, summary());
    expect(written.taskId).toBe("t1");
  });

  test("the lock serialises writers and takes over a dead holder's lock", async () => {
    const dir = tempDir("lock");
    const lock = join(dir, SUMMARY_LOCK);
    const g = gate();
    const order: string[] = [];
    const first = withFileLock(lock, async () => {
      order.push("first in");
      await g.wait;
      order.push("first out");
    });
    const second = withFileLock(lock, () => {
      order.push("second");
    });
    await Promise.resolve();
    expect(existsSync(lock)).toBe(true);
    g.open();
    await Promise.all([first, second]);
    expect(order).toEqual(["first in", "first out", "second"]);
    expect(existsSync(lock)).toBe(false);
    // A lock left by a process that no longer exists is taken over.
    writeFileSync(lock, "999999999\n");
    expect(await withFileLock(lock, () => "taken")).toBe("taken");
    // A live holder (this process) that never lets go times out with a clear error.
    writeFileSync(lock, `${process.pid}\n`);
    await expect(withFileLock(lock, () => "never", { timeoutMs: 0 })).rejects.toBeInstanceOf(
      SummaryError,
    );
  });

  test("a lock without a pid (left by a full disk) is debris once it is a moment old", async () => {
    const dir = tempDir("emptylock");
    const lock = join(dir, SUMMARY_LOCK);
    writeFileSync(lock, "");
    const old = new Date(Date.now() - 5000);
    utimesSync(lock, old, old);
    expect(await withFileLock(lock, () => "taken", { timeoutMs: 0 })).toBe("taken");
    expect(existsSync(lock)).toBe(false);
    // A lock this process creates is never seen without its pid, and leaves no temp file.
    await withFileLock(lock, () => {
      expect(readFileSync(lock, "utf8")).toBe(`${process.pid}\n`);
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a lock whose pid cannot be written is one error and leaves no lock behind", async () => {
    const dir = tempDir("nolock");
    const lock = join(dir, SUMMARY_LOCK);
    // The pid file cannot be written (here: a folder sits where it would go; on a full disk,
    // ENOSPC): no lock file may appear, or every later run would wait on it.
    mkdirSync(`${lock}.${process.pid}.tmp`);
    await expect(withFileLock(lock, () => "never")).rejects.toThrow("cannot create the lock");
    expect(existsSync(lock)).toBe(false);
  });
});
