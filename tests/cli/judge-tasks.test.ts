// `harness2 judge` on a `tasks` sweep: the judge loads that benchmark's scorer by the sweep's bench
// name and runs the task's own tests/check on each picked run's output (k=1, parallel mode).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { newSweepId } from "../../store/ids.ts";
import { StoreWriter } from "../../store/writer.ts";
import { runCli } from "../helpers/cli.ts";

const TASKS_DIR = resolve(import.meta.dir, "../../fixtures/tasks");
const TASK = "data/csv-total";
const SLOW = 60_000;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-judge-tasks-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A run dir as the OpenCode executor leaves it: the deliverable under workspace/output/. */
function runDir(name: string, total: string): string {
  const dir = join(root, "exec", name);
  mkdirSync(join(dir, "workspace", "output"), { recursive: true });
  writeFileSync(join(dir, "workspace", "output", "total.txt"), `${total}\n`);
  return dir;
}

function recordTasksSweep(runsDir: string, config: Record<string, unknown>): string {
  const writer = StoreWriter.open(join(runsDir, "harness2.db"));
  const sweep = newSweepId();
  let ts = Date.UTC(2026, 10, 30, 12);
  const emit = (e: Record<string, unknown>) =>
    writer.emit({ ts: ts++, sweep, ...e } as unknown as HarnessEvent);
  const where = { domain: "data", task: TASK, k: 1 };
  emit({
    type: "sweep.started",
    bench: "tasks",
    substrate: "oc",
    ks: [1],
    modes: ["agg"],
    seed: null,
    tag: "",
    argv: ["run", "--bench", "tasks"],
    config,
    identity: {},
    runsRoot: runsDir,
    domains: [{ domain: "data", tasks: [TASK] }],
  });
  emit({ type: "task.started", ...where, modes: ["agg"], index: 1, of: 1, taskDir: runsDir });
  const runs = [
    ["base1", runDir("base1", "75.00")],
    ["agg1", runDir("agg1", "80.35")],
  ] as const;
  for (const [label, dir] of runs) {
    emit({
      type: "rollout.finished",
      ...where,
      label,
      runId: `tasks-oc-agg1/${TASK}/${label}`,
      runDir: dir,
      ok: true,
      delivered: true,
      usd: 0,
      wallS: 1,
      reused: false,
      error: "",
    });
  }
  emit({ type: "mode.started", ...where, mode: "agg" });
  emit({
    type: "selection.made",
    ...where,
    mode: "agg",
    chosenLabel: "agg1",
    anonId: "A",
    idMap: { A: "agg1" },
    why: "trivial",
    ok: true,
    fallback: false,
    trivial: true,
    dropped: [],
    usd: 0,
    error: "",
  });
  emit({
    type: "mode.finished",
    ...where,
    mode: "agg",
    status: "ok",
    R: 4,
    P: 3,
    expectedR: 4,
    expectedP: 3,
    fellBack: [],
    keptBase: [],
    similarity: null,
    usd: 0,
    error: "",
  });
  writer.close();
  return sweep;
}

describe("judging a tasks sweep", () => {
  test(
    "the task's own check grades the pick 1 and the base 0",
    async () => {
      const runsDir = join(root, "with-config");
      recordTasksSweep(runsDir, { tasksDir: TASKS_DIR });
      const env = { HARNESS2_RUNS_DIR: runsDir, HARNESS2_DB: undefined };
      const r = await runCli(["judge", "--bases"], { env });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${TASK} parallel k=1 agg1: 1.000`);
      expect(r.stdout).toContain(`base ${TASK} k=1 base1: 0.000`);
      const report = await runCli(["report", "--json"], { env });
      const json = JSON.parse(report.stdout);
      expect(json.summaries[0]).toMatchObject({
        n: 1,
        score: 1,
        allPass: 1,
        delta: { n: 1, mean: 1 },
      });
    },
    SLOW,
  );

  test(
    "without a recorded task folder the judge asks for --tasks, and takes it",
    async () => {
      const runsDir = join(root, "without-config");
      recordTasksSweep(runsDir, {});
      const env = { HARNESS2_RUNS_DIR: runsDir, HARNESS2_DB: undefined };
      const refused = await runCli(["judge"], { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("--tasks DIR");
      const given = await runCli(["judge", "--tasks", TASKS_DIR], { env });
      expect(given.code).toBe(0);
      expect(given.stdout).toContain("1 pick(s): 1 graded, 0 ungraded");
      const again = await runCli(["judge", "--json", "--tasks", TASKS_DIR], { env });
      expect(again.code).toBe(0);
      const json = JSON.parse(again.stdout);
      expect(json).toMatchObject({ picks: 1, bases: 0, graded: 0, ungraded: 0, kept: 1 });
      expect(json.rows[0]).toMatchObject({ task: TASK, label: "agg1", pass: "kept", score: 1 });
    },
    SLOW,
  );
});
