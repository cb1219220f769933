// `harness2 check` from the outside: problems are one FAIL line each with the fix and exit 1; a good
// setup with --live reaches the scripted model through both real channels and prints latency.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";

const EXAMPLE = resolve(import.meta.dir, "../../fixtures/tasks");
const ROOT = mkdtempSync(join(tmpdir(), "h2-check-cli-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

/** The developer's own settings must not leak into these runs (runCli starts from process.env). */
const CLEAN = {
  HARNESS2_SOLVER_MODEL: "",
  HARNESS2_IMPROVER_MODEL: "",
  HARNESS2_IMPROVER_CHANNEL: "",
  HARNESS2_RUNS_DIR: "",
  HARNESS2_DB: "",
  HARNESS2_OPENCODE_DIR: "",
  HARNESS2_OPENCODE_CONFIG: "",
  OPENCODE_CONFIG_CONTENT: "",
  GOOGLE_CLOUD_PROJECT: "",
};

const failLines = (stdout: string) => stdout.split("\n").filter((l) => l.startsWith("FAIL"));

describe("harness2 check, offline", () => {
  test("a missing solver model is one FAIL line with its fix, and exit 1", async () => {
    const runs = join(ROOT, "runs-a");
    const r = await runCli(["check", "--tasks", EXAMPLE, "--runs", runs], { env: CLEAN });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    expect(failLines(r.stdout)).toEqual([
      "FAIL  HARNESS2_SOLVER_MODEL: is not set: the executor model, as provider/model. Fix: set HARNESS2_SOLVER_MODEL=provider/model (e.g. anthropic/claude-sonnet-4-5) in .env or the shell",
    ]);
    expect(r.stdout).toMatch(/^ok {4}opencode: 1\.18\.33 at /m);
    expect(r.stdout).toContain(
      `ok    task folder: ${EXAMPLE}: 2 tasks in 2 domains, baseline harness\n`,
    );
    expect(r.stdout).toContain(`ok    runs directory: ${runs} (created on the first run)\n`);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("Setup incomplete: 1 problem.");
  });

  test("the improver sandbox: ok where bubblewrap works, FAIL with the fix where it cannot start, warn when opted out", async () => {
    const env = { ...CLEAN, HARNESS2_SOLVER_MODEL: "p/m", HARNESS2_IMPROVER_MODEL: "p/m" };
    const ok = await runCli(["check", "--tasks", EXAMPLE, "--runs", join(ROOT, "runs-sb")], {
      env,
    });
    expect(ok.stdout).toMatch(
      /^ok {4}improver sandbox: .*bwrap: bwrap \(each improver session sees only its workspace/m,
    );
    const none = await runCli(["check", "--tasks", EXAMPLE, "--runs", join(ROOT, "runs-sb")], {
      env: { ...env, HARNESS2_BWRAP: join(ROOT, "no-bwrap") },
    });
    expect(none.code).toBe(1);
    expect(failLines(none.stdout)).toEqual([
      expect.stringMatching(
        /^FAIL {2}improver sandbox: improver sessions run in a sandbox and bwrap cannot start .*Fix: Install bubblewrap \(e\.g\. apt-get install bubblewrap\), or set HARNESS2_IMPROVER_SANDBOX=off/,
      ),
    ]);
    const off = await runCli(["check", "--tasks", EXAMPLE, "--runs", join(ROOT, "runs-sb")], {
      env: { ...env, HARNESS2_IMPROVER_SANDBOX: "off" },
    });
    expect(off.stdout).toContain("warn  improver sandbox: off (HARNESS2_IMPROVER_SANDBOX=off");
  });

  test("a reserved string in a task.md or an input is a FAIL line with the fix (run refuses it)", async () => {
    const tasks = join(ROOT, "tasks-reserved");
    mkdirSync(join(tasks, "qa/report/inputs/data"), { recursive: true });
    mkdirSync(join(tasks, "qa/clean"), { recursive: true });
    writeFileSync(join(tasks, "qa/report/task.md"), 'Write summary.json with a "pass_rate" key.');
    writeFileSync(join(tasks, "qa/report/inputs/data/last.json"), '{"passed_count": 3}\n');
    writeFileSync(join(tasks, "qa/clean/task.md"), "Summarise the batch.");
    const runs = join(ROOT, "runs-reserved");
    const env = { ...CLEAN, HARNESS2_SOLVER_MODEL: "local/m", HARNESS2_IMPROVER_MODEL: "local/m" };
    const r = await runCli(["check", "--tasks", tasks, "--runs", runs], { env });
    expect(r.code).toBe(1);
    const reserved = failLines(r.stdout).filter((l) => l.includes("reserved string"));
    expect(reserved).toEqual([
      expect.stringMatching(
        /^FAIL {2}qa\/report\/task\.md: holds a reserved string \(the JSON key "p·ass_rate", at byte \d+\) that only a grader's output carries: blocked before any model saw it.* Fix: rename it in the task; the reserved strings are listed in fixtures\/tasks\/README\.md, "Reserved strings"$/,
      ),
      expect.stringMatching(
        /^FAIL {2}qa\/report\/inputs\/data\/last\.json: holds a reserved string \(the JSON key "p·assed_count", at byte \d+\)/,
      ),
    ]);
    // No line quotes the marker itself: a check's output may be pasted anywhere.
    expect(r.stdout).not.toContain('"pass_rate"');
    expect(r.stdout).not.toContain('"passed_count"');
    // run refuses the folder before anything is spent, in the same words, without the marker.
    const run = await runCli(
      ["run", "--bench", "tasks", "--tasks", tasks, "--dry-run", "--runs", runs],
      { env },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("last.json: holds a reserved string");
    expect(run.stderr).toContain("blocked before any model saw it");
    expect(run.stderr).not.toContain('"passed_count"');
    expect(run.stdout).not.toContain("Dry run");
  });

  test("--json: one object with every check, the same problems and exit code as the lines", async () => {
    const runs = join(ROOT, "runs-json");
    const r = await runCli(["check", "--tasks", EXAMPLE, "--runs", runs, "--json"], { env: CLEAN });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      ready: false,
      problems: 1,
      bench: "tasks",
      substrate: "oc",
      tasks: 2,
      modelsCalled: false,
    });
    expect(out.checks).toContainEqual({
      status: "FAIL",
      subject: "HARNESS2_SOLVER_MODEL",
      text: "is not set: the executor model, as provider/model",
      fix: "set HARNESS2_SOLVER_MODEL=provider/model (e.g. anthropic/claude-sonnet-4-5) in .env or the shell",
    });
    expect(out.checks).toContainEqual(
      expect.objectContaining({ status: "ok", subject: "task folder" }),
    );
  });

  test("a malformed task, a missing key and a foreign store file each get their line", async () => {
    const tasks = join(ROOT, "tasks-b");
    mkdirSync(join(tasks, "d/good"), { recursive: true });
    mkdirSync(join(tasks, "d/bad"), { recursive: true });
    writeFileSync(join(tasks, "d/good/task.md"), "Do it.");
    const runs = join(ROOT, "runs-b");
    mkdirSync(runs);
    writeFileSync(join(runs, "harness2.db"), "not a database at all, just text");
    const r = await runCli(["check", "--tasks", tasks, "--runs", runs], {
      env: { ...CLEAN, HARNESS2_SOLVER_MODEL: "openai/gpt-x", OPENAI_API_KEY: "" },
    });
    expect(r.code).toBe(1);
    const fails = failLines(r.stdout);
    expect(fails).toHaveLength(3);
    expect(fails[0]).toBe(
      "FAIL  solver credentials: openai/gpt-x needs OPENAI_API_KEY, and none is set (sessions run with their own config dirs, so an `opencode auth login` is not seen). Fix: export OPENAI_API_KEY=… in .env or the shell",
    );
    expect(fails[1]).toBe(
      `FAIL  ${join(tasks, "d/bad/task.md")}: is missing. Fix: write the task's instructions into task.md`,
    );
    expect(fails[2]).toStartWith(
      `FAIL  store: ${join(runs, "harness2.db")} is not a readable harness2 store`,
    );
    // The store's own sentence says what to do; check does not say it a second time.
    expect(fails[2]).toEndWith("or point HARNESS2_DB at another file.");
    expect(fails[2]?.match(/HARNESS2_DB/g)).toHaveLength(1);
    expect(fails[2]).not.toContain("Fix:");
    expect(r.stdout).toContain("Setup incomplete: 3 problems.");
  });

  test("an improver model inherited from a bad solver model says it was inherited", async () => {
    const r = await runCli(["check", "--tasks", EXAMPLE, "--runs", join(ROOT, "runs-inherit")], {
      env: { ...CLEAN, HARNESS2_SOLVER_MODEL: "bare-model" },
    });
    expect(r.code).toBe(1);
    expect(failLines(r.stdout)).toContain(
      'FAIL  HARNESS2_IMPROVER_MODEL: "bare-model" (unset, so inherited from HARNESS2_SOLVER_MODEL) has no provider prefix, which the opencode channel needs. Fix: write it as provider/model (e.g. anthropic/claude-sonnet-4-5), or set HARNESS2_IMPROVER_CHANNEL=claude_cli for a bare Claude id',
    );
    // Set explicitly, the same mistake is the variable's own.
    const own = await runCli(["check", "--tasks", EXAMPLE, "--runs", join(ROOT, "runs-inherit")], {
      env: { ...CLEAN, HARNESS2_SOLVER_MODEL: "bare-model", HARNESS2_IMPROVER_MODEL: "bare-model" },
    });
    expect(own.stdout).not.toContain("inherited");
  });

  test("an unknown bench is a usage error", async () => {
    const r = await runCli(["check", "--bench", "nope"], { env: CLEAN });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--bench must be tasks, jb, lab, wb or demo, got 'nope'");
  });
});

describe("harness2 check --live against the scripted model server", () => {
  let server: ScriptedServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  test("both models answer through their real channels: latency and cost printed, exit 0", async () => {
    server = startChatServer({ turns: [{ text: "OK" }] });
    const config = opencodeProviderConfig(server.url, { cost: { input: 1, output: 2 } });
    const r = await runCli(
      ["check", "--tasks", EXAMPLE, "--runs", join(ROOT, "runs-c"), "--live"],
      {
        env: {
          ...CLEAN,
          HOME: join(ROOT, "home"),
          HARNESS2_SOLVER_MODEL: "local/mock-model",
          OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        },
      },
    );
    expect(r.stderr).toBe("");
    expect(failLines(r.stdout)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^live {2}improver local\/mock-model \(opencode\): answered in \d+\.\d s, cost \$0\.000140$/m,
    );
    expect(r.stdout).toMatch(
      /^live {2}solver local\/mock-model \(opencode executor\): answered in \d+\.\d s, cost \$0\.000140$/m,
    );
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(
      "Ready: tasks/oc, 2 tasks. Both models answered.",
    );
    // One model turn per session: the improver's points at its MISSION.md (which holds the
    // tiny prompt), the solver's carries the prompt itself.
    const turns = server.requests
      .filter((q) => q.role === "turn")
      .map((q) => JSON.stringify(q.body));
    expect(turns).toHaveLength(2);
    expect(turns[0]).toContain("Read MISSION.md");
    expect(turns[1]).toContain("connectivity check");
  }, 300_000);
});
