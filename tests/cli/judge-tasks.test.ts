// `harness2 judge` on a `tasks` sweep: the judge loads that benchmark's scorer by the sweep's bench
// name and runs the task's own tests/check on each picked run's output (k=1, parallel mode); an
// imported sweep's recorded task folder is never run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

describe("an imported sweep is data: judge never runs a path the file recorded", () => {
  test(
    "a planted task folder recorded in the file is not run; the local one named with --tasks is",
    async () => {
      // The sweep's own store recorded a task folder whose check passes everything and leaves a mark.
      const planted = join(root, "planted");
      cpSync(TASKS_DIR, planted, { recursive: true });
      const mark = join(root, "planted-check-ran");
      writeFileSync(
        join(planted, TASK, "tests", "check"),
        `#!/bin/sh\ntouch ${mark}\necho '{"passed": 1, "total": 1}'\n`,
        { mode: 0o755 },
      );
      const from = join(root, "imported-from");
      recordSweep(from, { tasksDir: planted });
      const file = join(root, "planted.sweep");
      const out = await runCli(["export", "last", file, "--runs", from]);
      expect(out.code).toBe(0);
      const into = join(root, "imported-into");
      expect((await runCli(["import", file, "--runs", into])).code).toBe(0);

      const env = { HARNESS2_RUNS_DIR: into, HARNESS2_DB: undefined };
      const refused = await runCli(["judge", "--bases"], { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(refused.stderr).toContain("was imported (planted.sweep)");
      expect(refused.stderr).toContain("--tasks DIR");
      expect(existsSync(mark)).toBe(false);

      const local = await runCli(["judge", "--bases", "--tasks", TASKS_DIR], { env });
      expect(local.code).toBe(0);
      expect(local.stdout).toContain(`${TASK} parallel k=1 agg1: 1.000`);
      expect(local.stdout).toContain(`base ${TASK} k=1 base1: 0.000`);
      expect(existsSync(mark)).toBe(false);

      // The store it came from still trusts its own record: the planted check runs there.
      const own = await runCli(["judge", "--bases"], {
        env: { HARNESS2_RUNS_DIR: from, HARNESS2_DB: undefined },
      });
      expect(own.code).toBe(0);
      expect(own.stdout).toContain(`base ${TASK} k=1 base1: 1.000`);
      expect(existsSync(mark)).toBe(true);
    },
    SLOW,
  );
});
