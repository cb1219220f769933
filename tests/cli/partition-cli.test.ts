// Partitions on the command line: `harness2 split` (reproducible, never overwriting, its refusals),
// then `--split-file FILE --part train|test` on run (the stream narrowed to the part, recorded in
// the experiment identity, refused once the task list changed), check, judge and report (only the
// part's tasks, and a note saying which part). A sweep continued on another part is refused.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStore } from "../../store/db.ts";
import { assertContinuesExperiment, IdentityMismatchError } from "../../store/identity.ts";
import { runCli } from "../helpers/cli.ts";
import { recordTasksSweep } from "../helpers/tasks-sweep.ts";

const FIXTURE = resolve(import.meta.dir, "../../fixtures/tasks");
const SLOW = 120_000;
let root: string;
let tasks: string;
const env = () => ({
  HARNESS2_SOLVER_MODEL: "solver/m",
  HARNESS2_IMPROVER_MODEL: "improver/m",
  HARNESS2_RUNS_DIR: join(root, "runs"),
  HARNESS2_DB: undefined,
});

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-partition-cli-"));
  // Two domains: data with three tasks, writing with two (copies of the fixture's tasks).
  tasks = join(root, "tasks");
  cpSync(join(FIXTURE, "prompts.toml"), join(tasks, "prompts.toml"));
  for (const t of ["t1", "t2", "t3"])
    cpSync(join(FIXTURE, "data/csv-total"), join(tasks, "data", t), { recursive: true });
  for (const t of ["h1", "h2"])
    cpSync(join(FIXTURE, "writing/haiku"), join(tasks, "writing", t), { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cell = () => ["--bench", "tasks", "--tasks", tasks];

describe("harness2 split", () => {
  test(
    "writes a stratified partition, the same for the same seed, never over an existing file",
    async () => {
      const out = join(root, "p.json");
      const r = await runCli(["split", ...cell(), "--seed", "7", "--output", out], {
        cwd: root,
        env: env(),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        `wrote ${out}: tasks, seed 7, 3 train and 2 test tasks in 2 domain(s)`,
      );
      expect(r.stdout).toContain(`--split-file ${out} --part train`);
      const p = JSON.parse(readFileSync(out, "utf8"));
      expect(p.domains.data.train).toHaveLength(2);
      expect(p.domains.data.test).toHaveLength(1);
      expect(p.domains.writing.train).toHaveLength(1);
      expect(p.domains.writing.test).toHaveLength(1);
      const again = join(root, "p2.json");
      expect(
        (
          await runCli(["split", ...cell(), "--seed", "7", "--output", again], {
            cwd: root,
            env: env(),
          })
        ).code,
      ).toBe(0);
      const q = JSON.parse(readFileSync(again, "utf8"));
      expect({ ...q, created_at: "" }).toEqual({ ...p, created_at: "" });
      const over = await runCli(["split", ...cell(), "--seed", "8", "--output", out], {
        cwd: root,
        env: env(),
      });
      expect(over.code).toBe(1);
      expect(over.stderr).toContain("exists: a partition is never overwritten");
      expect(JSON.parse(readFileSync(out, "utf8")).seed).toBe(7);
      for (const [args, message] of [
        [["split", ...cell(), "--output", join(root, "x.json")], "--seed N is required"],
        [["split", ...cell(), "--seed", "1"], "--output FILE is required"],
        [
          ["split", ...cell(), "--seed", "1", "--train", "1.5", "--output", join(root, "x.json")],
          "--train must be a number between 0 and 1",
        ],
      ] as const) {
        const bad = await runCli([...args], { cwd: root, env: env() });
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain(message);
      }
    },
    SLOW,
  );

  test(
    "run, check: the stream is the part, its identity records it; a changed task list is refused",
    async () => {
      const out = join(root, "p.json");
      const p = JSON.parse(readFileSync(out, "utf8"));
      const dry = await runCli(
        ["run", ...cell(), "--split-file", out, "--part", "test", "--dry-run", "--json"],
        {
          cwd: root,
          env: env(),
        },
      );
      expect(dry.code).toBe(0);
      const plan = JSON.parse(dry.stdout);
      expect(plan.partition).toMatchObject({
        file: out,
        part: "test",
        seed: 7,
        fingerprint: p.fingerprint,
      });
      expect(plan.domains.flatMap((d: { tasks: string[] }) => d.tasks).sort()).toEqual(
        [...p.domains.data.test, ...p.domains.writing.test].sort(),
      );
      const check = await runCli(["check", ...cell(), "--split-file", out, "--part", "train"], {
        cwd: root,
        env: env(),
      });
      expect(check.stdout).toContain(
        `ok    partition: the train part of ${out} (seed 7), 3 of 5 tasks`,
      );
      const outside = await runCli(
        [
          "run",
          ...cell(),
          "--split-file",
          out,
          "--part",
          "train",
          "--only-tasks",
          p.domains.data.test[0],
          "--dry-run",
        ],
        { cwd: root, env: env() },
      );
      expect(outside.code).toBe(1);
      expect(outside.stderr).toContain("outside the train part");
      const noPart = await runCli(["run", ...cell(), "--split-file", out, "--dry-run"], {
        cwd: root,
        env: env(),
      });
      expect(noPart.code).toBe(2);
      expect(noPart.stderr).toContain("--split-file needs --part train or --part test");
      // A task added since the partition was made: refused, with the command that fixes it.
      cpSync(join(FIXTURE, "data/csv-total"), join(tasks, "data", "t4"), { recursive: true });
      try {
        const changed = await runCli(
          ["run", ...cell(), "--split-file", out, "--part", "train", "--dry-run"],
          {
            cwd: root,
            env: env(),
          },
        );
        expect(changed.code).toBe(1);
        expect(changed.stderr).toContain("the task list changed since");
        expect(changed.stderr).toContain("harness2 split");
      } finally {
        rmSync(join(tasks, "data", "t4"), { recursive: true, force: true });
      }
    },
    SLOW,
  );

  test(
    "judge and report show one part of a recorded sweep; continuing it on another part is refused",
    async () => {
      const out = join(root, "p.json");
      const p = JSON.parse(readFileSync(out, "utf8"));
      const runsDir = join(root, "runs");
      const identity = {
        partition: { file: out, sha256: "x", seed: 7, part: "train", fingerprint: p.fingerprint },
      };
      recordTasksSweep({
        runsDir,
        execRoot: join(root, "exec"),
        tasks: ["data/t1", "data/t2", "data/t3"].map((task) => ({ domain: "data", task })),
        config: { tasksDir: tasks },
        identity,
      });
      const testTask = p.domains.data.test[0] as string;
      const judged = await runCli(["judge", "--bases", "--split-file", out, "--part", "test"], {
        cwd: root,
        env: env(),
      });
      expect(judged.code).toBe(0);
      expect(judged.stdout).toContain(`partition: the test part of ${out} (seed 7), 2 task(s)`);
      expect(judged.stdout).toContain(`${testTask} parallel k=1 agg1: 1.000`);
      expect(judged.stdout).toContain("1 pick(s) and 1 base run(s)");
      const report = await runCli(["report", "--json", "--split-file", out, "--part", "test"], {
        cwd: root,
        env: env(),
      });
      const json = JSON.parse(report.stdout);
      expect(json.summaries[0]).toMatchObject({ tasks: 1 });
      expect(json.notes[0]).toBe(
        `partition: the test part of ${out} (seed 7), 2 task(s) (the sweep itself ran on the train part of another or the same file)`,
      );
      // Without --part, the report says which part the sweep ran on.
      const whole = await runCli(["report"], { cwd: root, env: env() });
      expect(whole.stdout).toContain(
        `partition: the sweep ran on the train part of ${out} (seed 7)`,
      );
      // The store refuses to continue the experiment on another part.
      const db = openStore(join(runsDir, "harness2.db"));
      try {
        expect(() =>
          assertContinuesExperiment(db, {
            bench: "tasks",
            substrate: "oc",
            tag: "",
            seed: null,
            identity: { partition: { ...identity.partition, part: "test" } },
            domains: [{ domain: "data", tasks: ["data/t1"] }],
          }),
        ).toThrow(IdentityMismatchError);
      } finally {
        db.close();
      }
    },
    SLOW,
  );
});
