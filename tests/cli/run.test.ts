// `harness2 run` refusing bad input before anything runs: unknown domains, tasks or task folders
// are a bad command line (exit 2) that writes nothing; a different endpoint for the same model is a
// different experiment (exit 1, the exact difference printed); the identity never holds a secret.
import { afterAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { experimentIdentity, publicUrl } from "../../src/cli/sweep/experiment-identity.ts";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { loadRunConfig } from "../../src/core/run/config.ts";
import { newSweepId } from "../../store/ids.ts";
import { StoreWriter } from "../../store/writer.ts";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-run-cli-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const FIXTURE_TASKS = join(import.meta.dir, "..", "..", "fixtures", "tasks");
const MODEL = "local/solver";

/** Model settings that get `run` past its own checks; the provider lives at `baseURL`. */
function modelEnv(baseURL: string): Record<string, string | undefined> {
  return {
    HARNESS2_SOLVER_MODEL: MODEL,
    HARNESS2_IMPROVER_MODEL: undefined,
    HARNESS2_IMPROVER_CHANNEL: undefined,
    HARNESS2_OPENCODE_CONFIG: undefined,
    HARNESS2_RUNS_DIR: undefined,
    HARNESS2_DB: undefined,
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      provider: {
        local: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL, apiKey: "sk-inline-secret" },
          models: { solver: {} },
        },
      },
    }),
  };
}

let n = 0;
const freshRuns = () => join(ROOT, `runs${n++}`);

describe("harness2 run: unknown names are a bad command line", () => {
  const run = (runs: string, ...extra: string[]) =>
    runCli(["run", "--bench", "tasks", "--tasks", FIXTURE_TASKS, "--runs", runs, ...extra], {
      env: modelEnv("http://127.0.0.1:9/v1"),
    });

  const cases: [string[], string][] = [
    [
      ["--only-domains", "nope"],
      "--only-domains: no domain 'nope' in benchmark 'tasks'; its domains: data, writing",
    ],
    [
      ["--only-tasks", "nope"],
      "--only-tasks: no task 'nope' in benchmark 'tasks'; its tasks: data/csv-total, writing/haiku",
    ],
    [
      ["--only-domains", "data", "--only-tasks", "writing/haiku"],
      "--only-tasks: no task 'writing/haiku' in benchmark 'tasks'; its tasks in the chosen domains: data/csv-total",
    ],
    [
      ["--tasks", join(ROOT, "nonexistent")],
      `--tasks: task folder '${join(ROOT, "nonexistent")}' does not exist or is not a directory`,
    ],
  ];
  for (const [extra, message] of cases) {
    test(`${extra.join(" ")}: one line, exit 2, nothing written`, async () => {
      const runs = freshRuns();
      const r = await run(runs, ...extra);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(message);
      expect(existsSync(runs)).toBe(false);
    });
  }

  test("--dry-run refuses an unknown domain the same way", async () => {
    const r = await run(freshRuns(), "--dry-run", "--only-domains", "nope");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("its domains: data, writing");
  });

  test("an empty --tasks folder is a bad command line (2); a folder of malformed tasks is refused (1)", async () => {
    const empty = join(ROOT, "empty-tasks");
    mkdirSync(empty, { recursive: true });
    const r = await runCli(
      ["run", "--bench", "tasks", "--tasks", empty, "--runs", freshRuns(), "--dry-run"],
      {
        env: modelEnv("http://127.0.0.1:9/v1"),
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("holds no tasks");
    const malformed = join(ROOT, "malformed-tasks");
    mkdirSync(join(malformed, "d", "t"), { recursive: true });
    const m = await runCli(
      ["run", "--bench", "tasks", "--tasks", malformed, "--runs", freshRuns(), "--dry-run"],
      {
        env: modelEnv("http://127.0.0.1:9/v1"),
      },
    );
    expect(m.code).toBe(1);
    expect(m.stderr).toContain("task.md: is missing");
  });

  test("a long list of names shows the first few and how many there are", async () => {
    const tasks = join(ROOT, "many-tasks");
    for (let i = 0; i < 12; i++) {
      cpSync(
        join(FIXTURE_TASKS, "data", "csv-total"),
        join(tasks, "many", `t${String(i).padStart(2, "0")}`),
        {
          recursive: true,
        },
      );
    }
    const r = await runCli(
      [
        "run",
        "--bench",
        "tasks",
        "--tasks",
        tasks,
        "--only-tasks",
        "many/t99",
        "--runs",
        freshRuns(),
      ],
      { env: modelEnv("http://127.0.0.1:9/v1") },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "its tasks: many/t00, many/t01, many/t02, many/t03, many/t04, many/t05, many/t06, many/t07, … (12 in all)",
    );
  });
});

describe("harness2 run: the experiment identity includes endpoints", () => {
  test("the same model at another base URL is a different experiment: exit 1, exact difference", async () => {
    const runs = freshRuns();
    const before = modelEnv("http://127.0.0.1:9/v1");
    const config = loadRunConfig(before as Record<string, string | undefined>);
    const identity = experimentIdentity(
      config,
      { kind: "opencode", model: MODEL, effort: config.proposerEffort },
      before,
    );
    const writer = StoreWriter.open(join(runs, "harness2.db"));
    const sweep = newSweepId();
    writer.emit({
      type: "sweep.started",
      ts: Date.now(),
      sweep,
      bench: "tasks",
      substrate: "oc",
      ks: [1],
      modes: ["agg"],
      seed: null,
      tag: "",
      argv: ["run", "--bench", "tasks"],
      config: {},
      identity,
      runsRoot: join(runs, "tasks", "adapt"),
      domains: [{ domain: "data", tasks: ["data/csv-total"] }],
    } as HarnessEvent);
    writer.close();

    const r = await runCli(["run", "--bench", "tasks", "--tasks", FIXTURE_TASKS, "--runs", runs], {
      env: modelEnv("http://127.0.0.1:10/v1"),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(
      `this runs directory holds a different experiment (last sweep ${sweep}): `,
    );
    // Every difference, in field order, and nothing else.
    expect(r.stderr).toContain(
      `(last sweep ${sweep}): identity.improverEndpoint.baseURL: was "http://127.0.0.1:9/v1", now "http://127.0.0.1:10/v1"; identity.solverEndpoint.baseURL: was "http://127.0.0.1:9/v1", now "http://127.0.0.1:10/v1". Use the same settings`,
    );
    expect(r.stderr).not.toContain("sk-inline-secret");
    // Refused before anything ran: the store is all there is.
    expect(readdirSync(runs).filter((f) => !f.startsWith("harness2.db"))).toEqual([]);
  });

  test("a corrupt store is refused before anything is written", async () => {
    const runs = freshRuns();
    mkdirSync(runs);
    writeFileSync(join(runs, "harness2.db"), "not a database ".repeat(20));
    const r = await runCli(["run", "--bench", "tasks", "--tasks", FIXTURE_TASKS, "--runs", runs], {
      env: modelEnv("http://127.0.0.1:9/v1"),
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("is not a readable harness2 store");
    expect(readdirSync(runs)).toEqual(["harness2.db"]);
  });
});

describe("experimentIdentity", () => {
  const secretEnv = {
    HARNESS2_SOLVER_MODEL: "anthropic/claude-x",
    ANTHROPIC_API_KEY: "sk-ant-secret",
    ANTHROPIC_BASE_URL: "https://user:pw-secret@proxy.example/v1?api_key=q-secret&region=eu",
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      provider: { local: { options: { baseURL: "{env:LOCAL_URL}", apiKey: "sk-inline" } } },
    }),
    LOCAL_URL: "http://10.0.0.5:8000/v1",
  };

  test("endpoints of both models, with no key, token or password in them", () => {
    const id = experimentIdentity(
      { solverModel: "anthropic/claude-x" },
      { kind: "opencode", model: "local/m", effort: "high" },
      secretEnv,
    );
    expect(id).toEqual({
      solverModel: "anthropic/claude-x",
      solverEndpoint: {
        provider: "anthropic",
        baseURL: "https://proxy.example/v1?api_key=%28redacted%29&region=eu",
      },
      improverChannel: "opencode",
      improverModel: "local/m",
      improverEndpoint: { provider: "local", baseURL: "http://10.0.0.5:8000/v1" },
      effort: "high",
    });
    const text = JSON.stringify(id);
    for (const secret of ["sk-ant-secret", "pw-secret", "q-secret", "sk-inline", "user:"]) {
      expect(text).not.toContain(secret);
    }
  });

  test("the provider file and the inline config layer, inline over the file", () => {
    const file = join(ROOT, "providers.json");
    writeFileSync(
      file,
      JSON.stringify({
        provider: {
          a: { options: { baseURL: "http://file-a/v1" } },
          b: { options: { baseURL: "http://file-b/v1" } },
        },
      }),
    );
    const env = {
      HARNESS2_OPENCODE_CONFIG: file,
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        provider: { b: { options: { baseURL: "http://inline-b/v1" } } },
      }),
    };
    const id = experimentIdentity(
      { solverModel: "a/x" },
      { kind: "opencode", model: "b/y", effort: "high" },
      env,
    );
    expect(id.solverEndpoint).toEqual({ provider: "a", baseURL: "http://file-a/v1" });
    expect(id.improverEndpoint).toEqual({ provider: "b", baseURL: "http://inline-b/v1" });
  });

  test("Codex improvers record their own endpoint, else the executor's, never the key", () => {
    const shared = { HARNESS2_CODEX_BASE_URL: "http://exec/v1", HARNESS2_CODEX_API_KEY: "sk-1" };
    const improver = { kind: "codex", model: "gpt-x", effort: "high" } as const;
    expect(experimentIdentity({ solverModel: "a/x" }, improver, shared).improverEndpoint).toEqual({
      provider: "codex",
      baseURL: "http://exec/v1",
    });
    const own = { ...shared, HARNESS2_IMPROVER_CODEX_BASE_URL: "http://imp/v1" };
    const id = experimentIdentity({ solverModel: "a/x" }, improver, own);
    expect(id.improverEndpoint).toEqual({ provider: "codex", baseURL: "http://imp/v1" });
    expect(JSON.stringify(id)).not.toContain("sk-1");
  });

  test("Vertex project and location, for OpenCode and for Claude Code", () => {
    const env = {
      GOOGLE_CLOUD_PROJECT: "proj-1",
      GOOGLE_CLOUD_LOCATION: "us-east5",
      CLAUDE_CODE_USE_VERTEX: "1",
      GOOGLE_APPLICATION_CREDENTIALS: "/secret/adc.json",
    };
    const id = experimentIdentity(
      { solverModel: "google-vertex/gemini-x" },
      { kind: "claude_cli", model: "claude-y", effort: "high" },
      env,
    );
    expect(id.solverEndpoint).toEqual({
      provider: "google-vertex",
      baseURL: "",
      project: "proj-1",
      location: "us-east5",
    });
    expect(id.improverEndpoint).toEqual({
      provider: "vertex",
      baseURL: "",
      project: "proj-1",
      location: "us-east5",
    });
    expect(JSON.stringify(id)).not.toContain("adc.json");
  });

  test("claude_cli without Vertex or Bedrock records ANTHROPIC_BASE_URL", () => {
    const id = experimentIdentity(
      { solverModel: "a/x" },
      { kind: "claude_cli", model: "claude-y", effort: "high" },
      { ANTHROPIC_BASE_URL: "http://127.0.0.1:4000" },
    );
    expect(id.improverEndpoint).toEqual({
      provider: "anthropic",
      baseURL: "http://127.0.0.1:4000/",
    });
  });

  test("publicUrl keeps what is not a URL as given and drops credentials from what is", () => {
    expect(publicUrl("")).toBe("");
    expect(publicUrl("not a url")).toBe("not a url");
    expect(publicUrl("https://k:s@h.example/x?token=t&v=2")).toBe(
      "https://h.example/x?token=%28redacted%29&v=2",
    );
  });
});

describe("settings from .env", () => {
  // Bun itself loads a .env in the working directory into the environment; the shell wins.
  const dryRun = (cwd: string, env: Record<string, string | undefined>) =>
    runCli(
      [
        "run",
        "--bench",
        "tasks",
        "--tasks",
        FIXTURE_TASKS,
        "--runs",
        join(cwd, "runs"),
        "--dry-run",
      ],
      {
        cwd,
        env: { ...modelEnv("http://127.0.0.1:9/v1"), HARNESS2_PHASE_WIDTH: undefined, ...env },
      },
    );

  test("a .env value is read, and a shell value wins over it", async () => {
    const cwd = join(ROOT, "dotenv");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, ".env"), "HARNESS2_PHASE_WIDTH=zero\n");
    const fromFile = await dryRun(cwd, {});
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain('HARNESS2_PHASE_WIDTH="zero" is not allowed');
    const fromShell = await dryRun(cwd, { HARNESS2_PHASE_WIDTH: "2" });
    expect(fromShell.code).toBe(0);
  });
});

describe("inputs that could leak an answer key are refused before anything runs", () => {
  test("run --dry-run and check refuse an input matching an answer-key path, strict or not", async () => {
    const tasks = join(ROOT, "leaky-tasks");
    cpSync(FIXTURE_TASKS, tasks, { recursive: true });
    // data/csv-total's answer key is tests/expected.txt: the same path as another task's input.
    mkdirSync(join(tasks, "writing/haiku/inputs/tests"), { recursive: true });
    writeFileSync(join(tasks, "writing/haiku/inputs/tests/expected.txt"), "42");
    const runs = freshRuns();
    const dry = await runCli(
      ["run", "--bench", "tasks", "--tasks", tasks, "--runs", runs, "--dry-run"],
      { env: modelEnv("http://127.0.0.1:9/v1") },
    );
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("matches the answer-key path 'tests/expected.txt'");
    expect(existsSync(runs)).toBe(false);
    const check = await runCli(["check", "--tasks", tasks, "--runs", runs], {
      env: modelEnv("http://127.0.0.1:9/v1"),
    });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(
      /FAIL +\S+inputs\/tests\/expected\.txt: matches the answer-key path/,
    );
  });
});

describe("the task folder's own harness/ is validated before anything runs", () => {
  test("a root harness/ holding a symlink refuses run --dry-run (strict or not), exit 1, nothing written", async () => {
    const tasks = join(ROOT, "linked-harness");
    cpSync(FIXTURE_TASKS, tasks, { recursive: true });
    mkdirSync(join(tasks, "harness"), { recursive: true });
    writeFileSync(join(tasks, "harness/systemprompt.md"), "Be careful.\n");
    writeFileSync(join(ROOT, "outside-guardrails.md"), "Follow the outside.\n");
    symlinkSync(join(ROOT, "outside-guardrails.md"), join(tasks, "harness/guardrails.md"));
    for (const strict of [[], ["--strict"]]) {
      const runs = freshRuns();
      const r = await runCli(
        ["run", "--bench", "tasks", "--tasks", tasks, "--runs", runs, "--dry-run", ...strict],
        { env: modelEnv("http://127.0.0.1:9/v1") },
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("the task folder's harness/ is not a valid harness");
      expect(r.stderr).toContain("symlink (guardrails.md)");
      expect(existsSync(runs)).toBe(false);
    }
  });

  test("a root harness/ without any always-on file refuses the run instead of using the baseline", async () => {
    const tasks = join(ROOT, "no-always-on-harness");
    cpSync(FIXTURE_TASKS, tasks, { recursive: true });
    mkdirSync(join(tasks, "harness"), { recursive: true });
    writeFileSync(join(tasks, "harness/notes.md"), "my harness, misnamed\n");
    for (const strict of [[], ["--strict"]]) {
      const runs = freshRuns();
      const r = await runCli(
        ["run", "--bench", "tasks", "--tasks", tasks, "--runs", runs, "--dry-run", ...strict],
        { env: modelEnv("http://127.0.0.1:9/v1") },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "harness: holds no OpenCode harness (none of its always-on files)",
      );
      expect(existsSync(runs)).toBe(false);
    }
  });
});
