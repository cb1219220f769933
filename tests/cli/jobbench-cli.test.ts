// `harness2 setup`, `check`, `run --dry-run` and `judge` for JobBench from the command line: each
// refusal is one line with its fix and its exit code (2 for a bad command line, 1 for a refusal).

import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { JB_FIXTURE } from "../helpers/jobbench.ts";

const root = mkdtempSync(join(tmpdir(), "h2-jb-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const models = { HARNESS2_SOLVER_MODEL: "solver/m", HARNESS2_IMPROVER_MODEL: "improver/m" };

function oneLine(text: string): void {
  expect(text.trim().split("\n")).toHaveLength(1);
}

describe("JobBench on the command line", () => {
  test("setup: bad command lines exit 2, a bad --from exits 1, each in one line", async () => {
    for (const [args, message] of [
      [["setup"], "--bench is required (available: jb, lab, wb)"],
      [["setup", "--bench", "jb", "--subset", "web"], "--subset is for --bench wb"],
      [["setup", "--bench", "wb", "--subset", "desk"], "--subset must be office, web or code"],
      [["setup", "--bench", "zz"], "--bench must be jb, lab or wb, got 'zz'"],
    ] as const) {
      const r = await runCli([...args], { cwd: root });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      oneLine(r.stderr);
    }
    const bad = await runCli(["setup", "--bench", "jb", "--from", join(root, "nope")], {
      cwd: root,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("is not a folder");
    oneLine(bad.stderr);
  }, 120_000);

  test("before setup, run and check say to run setup; after it, the dry run lists the stream", async () => {
    const deps = join(root, "deps");
    const env = { ...models, HARNESS2_DEPENDENCIES: deps };
    const before = await runCli(["run", "--bench", "jb", "--dry-run"], { cwd: root, env });
    // Benchmark data not set up is the environment's (exit 4): setup fixes it.
    expect(before.code).toBe(4);
    expect(before.stderr).toContain("JobBench is not set up");
    expect(before.stderr).toContain("harness2 setup --bench jb");
    oneLine(before.stderr);
    const check0 = await runCli(["check", "--bench", "jb", "--json"], { cwd: root, env });
    expect(check0.code).toBe(1);
    const lines0 = JSON.parse(check0.stdout).checks as { status: string; subject: string }[];
    expect(lines0.find((l) => l.subject === "JobBench data")?.status).toBe("FAIL");

    const setup = await runCli(["setup", "--bench", "jb", "--from", JB_FIXTURE, "--json"], {
      cwd: root,
      env,
    });
    expect(setup.code).toBe(0);
    expect(JSON.parse(setup.stdout)).toMatchObject({ source: "from", tasks: { main: 4, easy: 1 } });

    const plan = await runCli(["run", "--bench", "jb", "--dry-run", "--json", "--split", "easy"], {
      cwd: root,
      env,
    });
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).domains).toEqual([
      { domain: "accountant", tasks: ["accountant/task1"] },
    ]);
    const bad = await runCli(["run", "--bench", "jb", "--split", "hard", "--dry-run"], {
      cwd: root,
      env,
    });
    expect(bad.code).toBe(2);
    const tasksFlag = await runCli(["run", "--bench", "jb", "--tasks", ".", "--dry-run"], {
      cwd: root,
      env,
    });
    expect(tasksFlag.code).toBe(2);
    expect(tasksFlag.stderr).toContain("--tasks is for --bench tasks");

    const check = await runCli(["check", "--bench", "jb", "--json"], {
      cwd: root,
      env: {
        ...env,
        HARNESS2_JUDGE_BASE_URL: "http://judge.invalid/v1",
        HARNESS2_JUDGE_API_KEY: "k",
      },
    });
    const out = JSON.parse(check.stdout) as {
      ready: boolean;
      tasks: number;
      checks: { subject: string; text: string }[];
    };
    expect(out.tasks).toBe(4);
    expect(out.checks.find((l) => l.subject === "JobBench tasks")?.text).toBe(
      "4 main tasks in 2 professions: accountant 2, logistics_coordinator 2",
    );
    const badUrl = await runCli(["check", "--bench", "jb"], {
      cwd: root,
      env: { ...env, HARNESS2_JUDGE_BASE_URL: "ftp://judge", HARNESS2_JUDGE_API_KEY: "k" },
    });
    expect(badUrl.stdout).toContain(
      "FAIL  judge endpoint: HARNESS2_JUDGE_BASE_URL 'ftp://judge' is not an http(s) URL",
    );
    const noJudge = await runCli(["check", "--bench", "jb"], { cwd: root, env });
    expect(noJudge.stdout).toContain(
      "FAIL  judge endpoint: HARNESS2_JUDGE_BASE_URL and HARNESS2_JUDGE_API_KEY are not set",
    );
  }, 120_000);

  test("check tries the judge's environment: each missing package named with the command, the spreadsheet runtime", async () => {
    const deps = join(root, "env-deps");
    const setup = await runCli(
      ["setup", "--bench", "jb", "--from", JB_FIXTURE, "--dependencies", deps],
      {
        cwd: root,
      },
    );
    expect(setup.code).toBe(0);
    const endpoint = {
      HARNESS2_JUDGE_BASE_URL: "http://judge.invalid/v1",
      HARNESS2_JUDGE_API_KEY: "k",
    };
    const check = (extra: Record<string, string>) =>
      runCli(["check", "--bench", "jb", "--dependencies", deps], {
        cwd: root,
        env: { ...process.env, ...models, ...endpoint, ...extra },
      });
    // A judge python with every package but openai, and no Docker engine holding the runtime.
    const partial = stubPython(join(root, "py-partial"), [
      "openpyxl",
      "xlrd",
      "pptx",
      "mammoth",
      "pdfplumber",
    ]);
    const missing = await check({
      HARNESS2_JB_JUDGE_PYTHON: partial,
      HARNESS2_JB_DOCKER: dockerCli(join(root, "d0"), false),
    });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      `FAIL  judge packages: ${partial} cannot import openai (ModuleNotFoundError: No module named 'openai'); the judge would fail every rubric for it`,
    );
    expect(missing.stdout).toContain(`uv sync --locked\` in ${JB_FIXTURE}`);
    expect(missing.stdout).toMatch(
      /FAIL {2}spreadsheet runtime: jobbench-calc:[0-9a-f]{20} is not available \(Error: No such image.*\): the judge would refuse every \.xlsx deliverable/,
    );
    expect(missing.stdout).toContain("./eval/setup_judge.sh) with Docker running");
    // Everything there: both ok, and the check passes.
    const full = stubPython(join(root, "py-full"), [
      "openai",
      "openpyxl",
      "xlrd",
      "pptx",
      "mammoth",
      "pdfplumber",
    ]);
    const ready = await check({
      HARNESS2_JB_JUDGE_PYTHON: full,
      HARNESS2_JB_DOCKER: dockerCli(join(root, "d1"), true),
    });
    if (ready.code !== 0) console.error(ready.stdout);
    expect(ready.code).toBe(0);
    expect(ready.stdout).toContain(
      `ok    judge packages: ${full} imports openai, openpyxl, xlrd, pptx, mammoth, pdfplumber`,
    );
    expect(ready.stdout).toMatch(
      /ok {4}spreadsheet runtime: jobbench-calc:[0-9a-f]{20} is in the Docker engine/,
    );
  }, 120_000);
});

/** A python whose only third-party packages are empty stand-ins named `modules`. */
function stubPython(dir: string, modules: string[]): string {
  for (const m of modules) {
    mkdirSync(join(dir, "site", m), { recursive: true });
    writeFileSync(join(dir, "site", m, "__init__.py"), "");
  }
  const path = join(dir, "python");
  writeFileSync(
    path,
    `#!/bin/sh\nPYTHONPATH='${join(dir, "site")}' exec /usr/bin/python3 -S "$@"\n`,
    { mode: 0o755 },
  );
  return path;
}

/** A `docker` CLI answering `image inspect` as Docker does: the runtime image is there, or "No such image". */
function dockerCli(dir: string, holds: boolean): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "docker");
  const body = holds
    ? '[ "$1 $2" = "image inspect" ] && { echo sha256:abc; exit 0; }; exit 1'
    : 'echo "Error: No such image: $5" >&2; exit 1';
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

describe("the JobBench judge as harness2 judge builds it", () => {
  test("refuses in one line without an endpoint or a key; names the judge by script and model", async () => {
    const { loadBenchJudge } = await import("../../src/cli/bench/bench-judges.ts");
    const config = { jbRoot: JB_FIXTURE, split: "main" };
    const ctx = (env: Record<string, string>) => ({
      config,
      runsDir: root,
      env: { PATH: process.env.PATH, ...env },
    });
    await expect(loadBenchJudge("jb", ctx({}))).rejects.toThrow(
      /no judge endpoint: set HARNESS2_JUDGE_BASE_URL/,
    );
    await expect(
      loadBenchJudge("jb", ctx({ HARNESS2_JUDGE_BASE_URL: "http://j/v1" })),
    ).rejects.toThrow(/no judge key: set HARNESS2_JUDGE_API_KEY/);
    const judge = await loadBenchJudge(
      "jb",
      ctx({
        HARNESS2_JUDGE_BASE_URL: "http://j/v1",
        HARNESS2_JUDGE_API_KEY: "k",
        HARNESS2_JUDGE_MODEL: "judge-x",
      }),
    );
    expect(judge.identity).toMatchObject({ scorer: "jobbench-judge", model: "judge-x" });
    expect(judge.identity.script).toMatch(/^[0-9a-f]{16}$/);
    await expect(
      loadBenchJudge("jb", {
        config: { jbRoot: root },
        runsDir: root,
        env: { HARNESS2_DEPENDENCIES: join(root, "none") },
      }),
    ).rejects.toThrow(/no JobBench judge at .*eval\/judge\.py|not set up/);
  }, 120_000);
});
