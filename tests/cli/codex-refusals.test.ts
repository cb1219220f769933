// A bad Codex executor setup is one line from `check --substrate cx` and from `run --substrate
// cx`, exit 1, before anything is recorded or spent: no endpoint, no key, a malformed URL, an
// endpoint that does not answer, no binary, a bad price table. Also the Codex task folder's own
// base harness, `harness-codex/`, is validated on the Codex surface.
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-codex-cli-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
const FIXTURE_TASKS = join(import.meta.dir, "..", "..", "fixtures", "tasks");

const GOOD = {
  HARNESS2_CODEX_BASE_URL: "http://127.0.0.1:9/v1",
  HARNESS2_CODEX_API_KEY: "k",
  HARNESS2_CODEX_MODEL: "m",
  HARNESS2_IMPROVER_MODEL: "local/improver",
  HARNESS2_SOLVER_MODEL: undefined,
  HARNESS2_CODEX_PRICES: undefined,
  HARNESS2_CODEX_BIN: undefined,
  HARNESS2_RUNS_DIR: undefined,
  HARNESS2_DB: undefined,
};

let n = 0;
const runs = () => join(ROOT, `runs${n++}`);

/** `run --substrate cx` on the fixture tasks at k=1, headless, in `dir`. */
const runArgs = (dir: string, extra: string[] = []) => [
  "run",
  "--bench",
  "tasks",
  "--substrate",
  "cx",
  "--tasks",
  FIXTURE_TASKS,
  "--runs",
  dir,
  "--no-tui",
  "--k",
  "1",
  ...extra,
];

const cases: [string, Record<string, string | undefined>, RegExp][] = [
  ["no endpoint", { HARNESS2_CODEX_BASE_URL: undefined }, /HARNESS2_CODEX_BASE_URL is not set/],
  ["no key", { HARNESS2_CODEX_API_KEY: "" }, /HARNESS2_CODEX_API_KEY is not set/],
  ["a malformed URL", { HARNESS2_CODEX_BASE_URL: "localhost:4000" }, /is not an http\(s\) URL/],
  ["an endpoint that does not answer", {}, /cannot be reached \(ECONNREFUSED\)/],
  [
    "no binary",
    { HARNESS2_CODEX_BIN: "/nonexistent/codex" },
    /HARNESS2_CODEX_BIN=\/nonexistent\/codex is not an executable file/,
  ],
  [
    "a bad price table",
    { HARNESS2_CODEX_PRICES: '{"m": {"input": "cheap"}}' },
    /HARNESS2_CODEX_PRICES is not a price table: m\.input/,
  ],
];

describe("run --substrate cx refuses a bad Codex setup in one line, spending nothing", () => {
  for (const [what, env, re] of cases) {
    test(what, async () => {
      const dir = runs();
      const r = await runCli(runArgs(dir), { env: { ...GOOD, ...env } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(re);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toContain("    at ");
      // nothing was recorded: no store, no rollout
      expect(existsSync(join(dir, "harness2.db"))).toBe(false);
      expect(existsSync(join(dir, "tasks", "rollouts"))).toBe(false);
    });
  }
});

describe("costs that would be unknown are refused before anything is spent", () => {
  const servers: { stop: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });
  const reachable = () => {
    // Only its port is reached: nothing is sent before the refusals.
    const s = startResponsesServer({ turns: [{ text: "never asked" }] });
    servers.push(s);
    return s.url;
  };

  test("--max-usd with an unpriced Codex executor model (the cap could not count it)", async () => {
    const dir = runs();
    const r = await runCli(runArgs(dir, ["--max-usd", "5"]), {
      env: { ...GOOD, HARNESS2_CODEX_BASE_URL: reachable() },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^harness2 run: --max-usd cannot be enforced: the Codex executor model "m" has no price in HARNESS2_CODEX_PRICES.*Fix: add it/,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "harness2.db"))).toBe(false);
  });

  test("Codex improvers on a model without a price", async () => {
    const dir = runs();
    const r = await runCli(runArgs(dir), {
      env: {
        ...GOOD,
        HARNESS2_CODEX_BASE_URL: reachable(),
        HARNESS2_CODEX_PRICES: '{"m": {"input": 1, "output": 2}}',
        HARNESS2_IMPROVER_CHANNEL: "codex",
        HARNESS2_IMPROVER_MODEL: "imp",
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /codex channel: the improver model "imp" has no price in HARNESS2_CODEX_PRICES/,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "harness2.db"))).toBe(false);
  });
});

describe("check --substrate cx", () => {
  test("reports each problem on its own FAIL line with its fix, exit 1", async () => {
    const r = await runCli(
      ["check", "--substrate", "cx", "--tasks", FIXTURE_TASKS, "--runs", runs()],
      {
        env: { ...GOOD, HARNESS2_CODEX_BASE_URL: undefined },
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ok {4}codex: 0\.171\.0 \(@openai\/codex \(pinned\)\)$/m);
    expect(r.stdout).toMatch(
      /^FAIL {2}codex setup: HARNESS2_CODEX_BASE_URL is not set\. Fix: Set it to a Responses-API endpoint/m,
    );
    expect(r.stdout).not.toMatch(/HARNESS2_SOLVER_MODEL/);
  });

  test("an unreachable endpoint fails; an unknown --substrate is a bad command line", async () => {
    const r = await runCli(
      ["check", "--substrate", "cx", "--tasks", FIXTURE_TASKS, "--runs", runs()],
      { env: GOOD },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^ok {4}codex model: m at http:\/\/127\.0\.0\.1:9\/v1 \(sandbox workspace-write\)$/m,
    );
    expect(r.stdout).toMatch(/^note {2}codex prices: m has no price in HARNESS2_CODEX_PRICES/m);
    expect(r.stdout).toMatch(
      /^FAIL {2}codex setup: HARNESS2_CODEX_BASE_URL=http:\/\/127\.0\.0\.1:9\/v1 cannot be reached/m,
    );
    const bad = await runCli(["check", "--substrate", "xx", "--tasks", FIXTURE_TASKS]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--substrate must be oc or cx, got 'xx'");
  });

  test("the folder's harness-codex/ is checked on the Codex surface; harness/ is not a domain", async () => {
    const tasks = join(ROOT, "tasks-with-codex-harness");
    cpSync(FIXTURE_TASKS, tasks, { recursive: true });
    mkdirSync(join(tasks, "harness-codex", ".codex"), { recursive: true });
    writeFileSync(join(tasks, "harness-codex", "AGENTS.md"), "Write under output/.\n");
    writeFileSync(
      join(tasks, "harness-codex", ".codex", "hooks.json"),
      '{"hooks": {"AfterTool": []}}',
    );
    const r = await runCli(["check", "--substrate", "cx", "--tasks", tasks, "--runs", runs()], {
      env: GOOD,
    });
    expect(r.stdout).toMatch(
      /FAIL {2}.*harness-codex: \.codex\/hooks\.json: .*AfterTool.*--surface codex/,
    );
    const dryRun = () =>
      runCli(
        [
          "run",
          "--bench",
          "tasks",
          "--substrate",
          "cx",
          "--tasks",
          tasks,
          "--runs",
          runs(),
          "--dry-run",
        ],
        {
          env: GOOD,
        },
      );
    const dry = await dryRun();
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("the task folder's harness-codex/ is not a valid harness");
    writeFileSync(join(tasks, "harness-codex", ".codex", "hooks.json"), '{"hooks": {"Stop": []}}');
    const ok = await dryRun();
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("tasks/cx");
  });
});
