// `harness2 judge` on a `tasks` sweep: the judge loads that benchmark's scorer by the sweep's bench
// name and runs the task's own tests/check on each picked run's output (k=1, parallel mode).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { recordTasksSweep } from "../helpers/tasks-sweep.ts";

const TASKS_DIR = resolve(import.meta.dir, "../../fixtures/tasks");
const TASK = "data/csv-total";
const SLOW = 60_000;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-judge-tasks-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function recordSweep(runsDir: string, config: Record<string, unknown>): string {
  return recordTasksSweep({
    runsDir,
    execRoot: join(root, "exec", runsDir.split("/").pop() as string),
    tasks: [{ domain: "data", task: TASK }],
    config,
  });
}

describe("judging a tasks sweep", () => {
  test(
    "the task's own check grades the pick 1 and the base 0",
    async () => {
      const runsDir = join(root, "with-config");
      recordSweep(runsDir, { tasksDir: TASKS_DIR });
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
      recordSweep(runsDir, {});
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
