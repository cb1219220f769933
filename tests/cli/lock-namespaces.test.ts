// Sweeps in separate processes may share a runs directory only when they write disjoint folders.
// Every mode's base rollouts and the task summaries live under the parallel namespace, so a
// sequential-only sweep locks that namespace too (docs/differences.md R22): a parallel-only sweep
// with the same settings is refused while it runs, and the other way round. `run --dry-run` says
// so.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cellLibraryRoot, lockNamespaces, modeNamespaces } from "../../src/cli/sweep/sweep-cell.ts";
import { runSweepSession } from "../../src/cli/sweep/sweep-session.ts";
import type { ModeToken } from "../../src/core/events/registry.ts";
import { ns } from "../../src/core/run/naming.ts";
import { openStore } from "../../store/db.ts";
import { readLocks, SweepLockedError } from "../../store/lock.ts";
import {
  FakeAdapter,
  gate,
  LIMITS,
  removeTempDirs,
  ScriptedProposer,
  tempDir,
} from "../core/fakes.ts";
import { runCli } from "../helpers/cli.ts";

afterAll(removeTempDirs);

const CELL = { benchmark: "fake", substrate: "oc", k: 1, seed: null, tag: "" };
const AGG = ns({ ...CELL, mode: "agg" });
const SEQ = ns({ ...CELL, mode: "seq" });

describe("one sweep cell, and what derives from it", () => {
  const cell = (modes: ModeToken[]) => ({ ...CELL, modes });
  test("the parallel namespace is always locked, first, and never twice", () => {
    expect(lockNamespaces(cell(["seq"]))).toEqual([AGG, SEQ]);
    expect(lockNamespaces(cell(["agg"]))).toEqual([AGG]);
    expect(lockNamespaces(cell(["seq", "agg"]))).toEqual([AGG, SEQ]);
    expect(modeNamespaces(cell(["seq", "agg"]))).toEqual([SEQ, AGG]);
  });

  test("the library root names the benchmark, k, executor, seed and tag", () => {
    expect(cellLibraryRoot(cell(["agg"]), "/r/tasks")).toBe("/r/tasks/library/fake/k1-oc");
    const seeded = { ...CELL, modes: ["agg"] as ModeToken[], k: 4, seed: 7, tag: "v2" };
    expect(cellLibraryRoot(seeded, "/r/tasks")).toBe("/r/tasks/library/fake/k4-oc-s7-v2");
  });
});

/** A sweep session over the fake adapter; `onExecute` can hold its executions. */
function session(root: string, modes: ModeToken[], onExecute?: () => Promise<void>) {
  const adapter = new FakeAdapter({
    root,
    tasks: { t1: "books" },
    ...(onExecute ? { onExecute } : {}),
  });
  const quiet = () => {};
  return runSweepSession({
    io: { stdout: quiet, stderr: quiet, isTTY: false, env: {}, cwd: root },
    location: { runsDir: root, dbPath: join(root, "harness2.db"), pg: null },
    frontEnd: "json",
    title: "lock",
    sessionLimit: 2,
    makeProposer: () => new ScriptedProposer(join(root, "sessions")),
    inputs: {
      adapter,
      limits: LIMITS,
      runsRoot: join(root, "adapt"),
      libraryRoot: join(root, "library"),
      k: 1,
      modes,
    },
    sweepOptions: {},
  });
}

describe("two sweeps with the same settings and different modes", () => {
  const cases: [ModeToken, ModeToken][] = [
    ["seq", "agg"],
    ["agg", "seq"],
  ];
  for (const [first, second] of cases) {
    test(`a ${first}-only sweep running refuses a ${second}-only one, naming the holder`, async () => {
      const root = tempDir("lock-ns");
      const running = gate();
      const release = gate();
      const holder = session(root, [first], async () => {
        running.open();
        await release.wait;
      });
      await running.wait; // the first sweep is executing its base rollout, lock held

      const db = openStore(join(root, "harness2.db"));
      const held = readLocks(db);
      db.close();
      expect(held.map((r) => r.namespace).sort()).toEqual(
        first === "seq" ? [AGG, SEQ].sort() : [AGG],
      );
      const holderSweep = held[0]?.sweepId;

      let refused: unknown;
      try {
        await session(root, [second]);
      } catch (err) {
        refused = err;
      }
      release.open();
      const done = await holder;

      expect(refused).toBeInstanceOf(SweepLockedError);
      const e = refused as SweepLockedError;
      expect(e.holder.namespace).toBe(AGG);
      expect(e.holder.sweepId).toBe(done.sweep);
      expect(e.holder.sweepId).toBe(holderSweep as string);
      expect(e.holder.pid).toBe(process.pid);
      expect(e.message).toContain(`sweep ${done.sweep}`);
      // The refused sweep left the holder's locks alone, and the holder released them all.
      expect(done.exitCode).toBe(0);
      const after = openStore(join(root, "harness2.db"));
      expect(readLocks(after)).toEqual([]);
      after.close();
    });
  }
});

describe("harness2 run --dry-run", () => {
  const FIXTURE_TASKS = join(import.meta.dir, "..", "..", "fixtures", "tasks");
  const dryRun = (mode: string) =>
    runCli([
      "run",
      "--bench",
      "tasks",
      "--tasks",
      FIXTURE_TASKS,
      "--runs",
      tempDir("lock-dry"),
      "--dry-run",
      "--mode",
      mode,
    ]);

  test("a sequential-only plan lists the parallel namespace among its locks", async () => {
    const r = await dryRun("sequential");
    expect(r.code).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.startsWith("Locked while it runs: "));
    expect(line).toBeDefined();
    expect(line).toMatch(/^Locked while it runs: \S+-agg1, \S+-seq1 \(the parallel one holds/);
  });

  test("a parallel-only plan locks its own namespace only", async () => {
    const r = await dryRun("parallel");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Locked while it runs: \S+-agg1$/m);
  });
});
