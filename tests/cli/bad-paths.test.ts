// Path values a new user can get wrong — empty ones, a regular file where a directory belongs, an
// interpreter override that names nothing — are refused in one line before anything is written,
// with the documented exit code (2 when the command line is wrong, 1 when the environment is).

import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfCommand } from "../../src/cli/help/self.ts";
import { type CliResult, runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-bad-paths-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

let n = 0;
/** A fresh empty working directory, so "nothing written" is `readdirSync(cwd)` being unchanged. */
function freshCwd(): string {
  const dir = join(ROOT, `cwd${n++}`);
  mkdirSync(dir);
  return dir;
}

const ENV = { HARNESS2_RUNS_DIR: undefined, HARNESS2_DB: undefined };

async function cliIn(cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(args, { cwd, env: { ...ENV, ...env } });
}

function oneLine(r: CliResult, code: number, text: string): void {
  expect(r.stdout).toBe("");
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain(text);
  expect(r.code).toBe(code);
}

describe("an empty value for a path option or positional is a usage error", () => {
  const cases: [string, string[], string][] = [
    [
      "demo --output ''",
      ["demo", "--output", ""],
      "--output needs a directory, got an empty value",
    ],
    ["demo --output=", ["demo", "--output="], "--output needs a directory, got an empty value"],
    ["demo --runs ''", ["demo", "--runs", ""], "--runs needs a directory, got an empty value"],
    ["validate ''", ["validate", ""], "'validate' needs a directory (DIR), got an empty value"],
    [
      "run --tasks '' --dry-run",
      ["run", "--bench", "tasks", "--tasks", "", "--dry-run"],
      "--tasks needs a directory, got an empty value",
    ],
    ["runs --runs ''", ["runs", "--runs", ""], "--runs needs a directory, got an empty value"],
    ["show ''", ["show", ""], "'show' needs RUN, got an empty value"],
    ["judge --tasks ''", ["judge", "--tasks", ""], "--tasks needs a directory, got an empty value"],
    ["check --tasks ''", ["check", "--tasks", ""], "--tasks needs a directory, got an empty value"],
  ];
  for (const [name, args, text] of cases) {
    test(`${name}: exit 2, nothing written`, async () => {
      const cwd = freshCwd();
      const r = await cliIn(cwd, args);
      // The hint names harness2 as it can be typed here (tests/cli/launcher.test.ts).
      oneLine(r, 2, `harness2: ${text} (see '${selfCommand(process.env, cwd)} help `);
      expect(readdirSync(cwd)).toEqual([]);
    });
  }
});

describe("a regular file where a directory belongs", () => {
  test("demo --output FILE: exit 2, names the path and the fix, writes nothing", async () => {
    const cwd = freshCwd();
    writeFileSync(join(cwd, "FILE"), "mine\n");
    const r = await cliIn(cwd, ["demo", "--runs", "R", "--output", "FILE"]);
    oneLine(
      r,
      2,
      `harness2 demo: ${join(cwd, "FILE")} is not a directory. Fix: choose another directory with --output DIR`,
    );
    expect(readdirSync(cwd)).toEqual(["FILE"]);
  });

  test("demo --output FILE/sub: the file on the way is named", async () => {
    const cwd = freshCwd();
    writeFileSync(join(cwd, "FILE"), "mine\n");
    const r = await cliIn(cwd, ["demo", "--runs", "R", "--output", "FILE/sub"]);
    oneLine(r, 2, `${join(cwd, "FILE")} is not a directory`);
    expect(readdirSync(cwd)).toEqual(["FILE"]);
  });

  const RUNS_FIX =
    "is not a directory. Fix: choose a writable directory with --runs or HARNESS2_RUNS_DIR";
  for (const command of [["demo"], ["runs"], ["show", "last"], ["report"], ["judge"]]) {
    test(`${command[0]} --runs FILE: exit 2 with check's words`, async () => {
      const cwd = freshCwd();
      writeFileSync(join(cwd, "FILE"), "mine\n");
      const r = await cliIn(cwd, [...command, "--runs", "FILE"]);
      oneLine(r, 2, `harness2 ${command[0]}: ${join(cwd, "FILE")} ${RUNS_FIX}`);
      expect(readdirSync(cwd)).toEqual(["FILE"]);
    });
  }

  test("run --runs FILE (also with --dry-run): exit 2 with check's words", async () => {
    const cwd = freshCwd();
    writeFileSync(join(cwd, "FILE"), "mine\n");
    const tasks = join(import.meta.dir, "../../fixtures/tasks");
    for (const extra of [[], ["--dry-run"]]) {
      const r = await cliIn(cwd, [
        "run",
        "--bench",
        "tasks",
        "--tasks",
        tasks,
        "--runs",
        "FILE",
        ...extra,
      ]);
      oneLine(r, 2, `harness2 run: ${join(cwd, "FILE")} ${RUNS_FIX}`);
    }
    expect(readdirSync(cwd)).toEqual(["FILE"]);
  });

  test("HARNESS2_RUNS_DIR=FILE is the environment's fault: exit 4, same words", async () => {
    const cwd = freshCwd();
    writeFileSync(join(cwd, "FILE"), "mine\n");
    for (const command of [["runs"], ["demo"]]) {
      const r = await cliIn(cwd, command, { HARNESS2_RUNS_DIR: "FILE" });
      oneLine(r, 4, `${join(cwd, "FILE")} ${RUNS_FIX}`);
    }
    expect(readdirSync(cwd)).toEqual(["FILE"]);
  });

  test("check says the same about --runs FILE", async () => {
    const cwd = freshCwd();
    writeFileSync(join(cwd, "FILE"), "mine\n");
    const r = await cliIn(cwd, ["check", "--runs", "FILE"]);
    expect(r.stdout).toContain(`FAIL  runs directory: ${join(cwd, "FILE")} ${RUNS_FIX}`);
  });
});

describe("demo with an interpreter override that names nothing", () => {
  test("names the variable, exit 1, and creates no store", async () => {
    const cwd = freshCwd();
    const r = await cliIn(cwd, ["demo", "--runs", "R"], { HARNESS2_PYTHON: "/nonexistent" });
    oneLine(
      r,
      1,
      "harness2 demo: HARNESS2_PYTHON=/nonexistent is not an executable file: fix or unset it",
    );
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe("judge --tasks", () => {
  test("a folder that does not exist is a usage error, before the store is read", async () => {
    const cwd = freshCwd();
    const r = await cliIn(cwd, ["judge", "--tasks", "/nonexistent", "--runs", "R"]);
    oneLine(r, 2, "harness2: --tasks /nonexistent does not exist");
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("a regular file is a usage error too", async () => {
    const cwd = freshCwd();
    writeFileSync(join(cwd, "FILE"), "");
    const r = await cliIn(cwd, ["judge", "--tasks", "FILE", "--runs", "R"]);
    oneLine(r, 2, `--tasks ${join(cwd, "FILE")} is not a directory`);
  });
});

describe("help --help", () => {
  for (const flag of ["--help", "-h"]) {
    test(`help ${flag} prints help's own usage, exit 0`, async () => {
      const r = await runCli(["help", flag]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toStartWith("Usage: harness2 help [COMMAND]\n");
    });
  }
});
