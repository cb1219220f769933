// The Codex executor with the REAL codex binary against the scripted Responses server, through the
// tasks adapter: a rollout that edits files in its workspace (shell and apply_patch), renders as
// the shared trajectory grammar, is priced from the price table, and whose sandbox refuses a
// write outside the workspace; a failing endpoint leaves no run mark. Sequential and few.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { createTasksAdapter } from "../../src/benchmarks/tasks/tasks-adapter.ts";
import { readRunMark } from "../../src/core/rollout/runmark.ts";
import { CodexSubstrate } from "../../src/substrate/codex/substrate.ts";
import { RolloutError } from "../../src/substrate/rollout-workspace.ts";
import { MAIN, runCli } from "../helpers/cli.ts";

const SCRATCH = mkdtempSync(join(tmpdir(), "h2-codex-exec-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

/** A Codex session is ~0.5–3 s here; generous for a loaded machine. */
const SESSION_TEST_MS = 120_000;

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
  }
}

/** A task folder inside a directory whose AGENTS.md must never reach the solver. */
function folders() {
  const outer = mkdtempSync(join(SCRATCH, "t-"));
  const outside = join(outer, "outside");
  mkdirSync(outside);
  return { outer, outside };
}

function setup(
  where: { outer: string },
  server: ScriptedServer,
  extraEnv: Record<string, string> = {},
) {
  const { outer } = where;
  writeFileSync(join(outer, "AGENTS.md"), "OUTER-AGENTS-MUST-NOT-LEAK\n");
  const tasksDir = join(outer, "tasks");
  write(tasksDir, {
    "harness-codex/AGENTS.md": "CODEX-HARNESS-MARKER: write deliverables under output/.\n",
    "harness-codex/scripts/count.py": '"""Counts lines."""\nprint(1)\n',
    "notes/summary/task.md": "Summarise notes.txt into output/answer.md.\n",
    "notes/summary/task.toml": 'deliverables = ["answer.md"]\n',
    "notes/summary/inputs/notes.txt": "alpha\nbeta\n",
  });
  const env = {
    PATH: process.env.PATH,
    HOME: join(outer, "real-home"),
    HARNESS2_CODEX_BASE_URL: server.url,
    HARNESS2_CODEX_API_KEY: "scripted-key",
    HARNESS2_CODEX_MODEL: "mock-model",
    HARNESS2_CODEX_PRICES: JSON.stringify({
      "mock-model": { input: 2, cachedInput: 1, output: 10 },
    }),
    OPENAI_API_KEY: "must-not-leak",
    ...extraEnv,
  };
  const { adapter } = createTasksAdapter({
    tasksDir,
    runsDir: join(outer, "runs"),
    env,
    executor: new CodexSubstrate({ env, graceS: 2 }),
  });
  return { adapter };
}

describe("Codex executor with the real codex binary", () => {
  const servers: ScriptedServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  test(
    "a rollout edits its workspace, renders, is priced, and cannot write outside it",
    async () => {
      const where = folders();
      const outsideFile = join(where.outside, "c.txt");
      const server = startResponsesServer({
        usage: { input: 1000, output: 50 },
        turns: [
          {
            reasoning: "Read the notes first.",
            toolCalls: [
              {
                name: "exec_command",
                // Ends with `echo`: Codex prints no item for a command whose failure it takes for a
                // sandbox denial (docs/differences.md X18), so this one must exit 0.
                arguments: { cmd: `cat notes.txt; echo escaped > ${outsideFile}; echo after` },
              },
            ],
          },
          {
            toolCalls: [
              {
                name: "exec_command",
                arguments: {
                  cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: output/answer.md\n+alpha and beta\n*** End Patch\nEOF",
                },
              },
            ],
          },
          { text: "Wrote output/answer.md." },
        ],
      });
      servers.push(server);
      const { adapter } = setup(where, server);
      const [task] = await adapter.tasks();
      await adapter.preflight();
      const runDir = await adapter.execute(task as string, null, "cx-ns/notes/summary/base_1");

      // The edit happened inside the workspace; the write outside it was refused by the sandbox.
      expect(readFileSync(join(runDir, "workspace/output/answer.md"), "utf8")).toBe(
        "alpha and beta\n",
      );
      expect(existsSync(outsideFile)).toBe(false);
      expect(await adapter.delivered(runDir)).toBe(true);

      // The harness was installed at the workspace root and reached the model; the outer AGENTS.md
      // and other providers' keys did not.
      expect(existsSync(join(runDir, "workspace/AGENTS.md"))).toBe(true);
      expect(existsSync(join(runDir, "workspace/scripts/count.py"))).toBe(true);
      const first = JSON.stringify(server.requests.find((r) => r.role === "turn")?.body);
      expect(first).toContain("CODEX-HARNESS-MARKER");
      expect(first).toContain("Summarise notes.txt");
      expect(first).not.toContain("OUTER-AGENTS-MUST-NOT-LEAK");
      expect(JSON.stringify(server.requests.map((r) => r.headers))).not.toContain("must-not-leak");
      expect(server.requests.find((r) => r.role === "turn")?.headers.authorization).toBe(
        "Bearer scripted-key",
      );

      // Priced from the table: 3 turns × (1000 in, 50 out) at $2 / $10 per million.
      const mark = await readRunMark(runDir);
      expect(mark?.extras.executor).toBe("codex");
      expect(mark?.extras.usd).toBeCloseTo((3 * 1000 * 2 + 3 * 50 * 10) / 1e6, 9);
      const record = JSON.parse(readFileSync(join(runDir, "rollout.json"), "utf8"));
      expect(record.sandbox).toBe("workspace-write");
      expect(record.tokens.input).toBe(3000);
      // The session's HOME and CODEX_HOME (with the key's config) are gone.
      expect(existsSync(join(runDir, "session"))).toBe(false);

      const text = await adapter.trajectory(runDir, { obsTrunc: 10_000 });
      expect(text).toContain("[REASONING] Read the notes first.");
      expect(text).toMatch(/\[ACTION\] shell: .*cat notes\.txt/);
      // The command's stdout and stderr reach Codex as one stream in whichever order the shell
      // flushed them: the observation holds both, in either order.
      const observation = /\[OBSERVATION\] ([\s\S]*?)\n\[ACTION\]/.exec(text)?.[1] ?? "";
      expect(observation).toContain("alpha\nbeta\n");
      expect(observation).toContain("Read-only file system");
      expect(text).toContain("[ACTION] file_change: add ");
      expect(text).toContain("[ASSISTANT] Wrote output/answer.md.");
      expect(text).toContain("[HARNESS] turn completed | tokens in=");
      expect(text.split("\n").at(-1)).toMatch(
        /^\[HARNESS\] session usage \| turns=1 tokens in=\d+ cached=\d+ out=\d+ reasoning=\d+$/,
      );
    },
    SESSION_TEST_MS,
  );

  test(
    "an endpoint that fails leaves no run mark and reports the error",
    async () => {
      const server = startResponsesServer({
        turns: [{ fail: { status: 400, message: "scripted refusal" } }],
      });
      servers.push(server);
      const { adapter } = setup(folders(), server, { HARNESS2_CODEX_PRICES: "" });
      const [task] = await adapter.tasks();
      const err = await adapter
        .execute(task as string, null, "cx-ns/notes/summary/base_2")
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RolloutError);
      expect((err as RolloutError).failure).toBe("exit");
      expect((err as RolloutError).message).toContain("scripted refusal");
      const runDir = adapter.rolloutDir("cx-ns/notes/summary/base_2");
      expect(await readRunMark(runDir)).toBeNull();
      // No price for the model: the cost is recorded as unknown, not as 0.
      expect(JSON.parse(readFileSync(join(runDir, "rollout.json"), "utf8")).usd).toBeNull();
    },
    SESSION_TEST_MS,
  );

  test(
    "through `harness2 bridge` in front of a chat-completions server: a real rollout, a kept port and key",
    async () => {
      const chat = startChatServer({
        model: "chat-model",
        turns: [
          {
            reasoning: "Write the answer.",
            toolCalls: [
              {
                name: "exec_command",
                arguments: { cmd: "mkdir -p output && sort -r notes.txt > output/answer.md" },
              },
            ],
          },
          { text: "Sorted the notes into output/answer.md." },
        ],
      });
      servers.push(chat);
      const runs = mkdtempSync(join(SCRATCH, "bridge-"));
      const startBridge = async () => {
        const proc = Bun.spawn(
          [
            process.execPath,
            MAIN,
            "bridge",
            "--upstream",
            chat.url,
            "--model",
            "chat-model",
            "--runs",
            runs,
          ],
          { env: { PATH: process.env.PATH, HOME: runs }, stdout: "pipe", stderr: "pipe" },
        );
        const reader = proc.stdout.getReader();
        let out = "";
        while (!out.includes("HARNESS2_CODEX_API_KEY=")) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`bridge ended early: ${out}`);
          out += new TextDecoder().decode(value);
        }
        reader.releaseLock();
        const env = (name: string) => new RegExp(`export ${name}=(\\S+)`).exec(out)?.[1] ?? "";
        return {
          proc,
          out,
          url: env("HARNESS2_CODEX_BASE_URL"),
          key: env("HARNESS2_CODEX_API_KEY"),
        };
      };
      const first = await startBridge();
      expect(first.out).toContain("export HARNESS2_CODEX_MODEL=chat-model");
      try {
        const where = folders();
        const fake = { url: first.url } as ScriptedServer;
        const { adapter } = setup(where, fake, {
          HARNESS2_CODEX_API_KEY: first.key,
          HARNESS2_CODEX_MODEL: "codex-side-name",
          HARNESS2_CODEX_PRICES: "",
        });
        const [task] = await adapter.tasks();
        await adapter.preflight();
        const runDir = await adapter.execute(task as string, null, "cx-ns/notes/summary/base_3");
        expect(readFileSync(join(runDir, "workspace/output/answer.md"), "utf8")).toBe(
          "beta\nalpha\n",
        );
        const text = await adapter.trajectory(runDir, { obsTrunc: 10_000 });
        expect(text).toContain("[REASONING] Write the answer.");
        expect(text).toContain(
          "[ACTION] shell: /bin/bash -lc 'mkdir -p output && sort -r notes.txt",
        );
        expect(text).toContain("[ASSISTANT] Sorted the notes into output/answer.md.");
        // the upstream got its own model id and the harness's AGENTS.md, not the bridge's key
        const turn = chat.requests.find((r) => r.role === "turn");
        expect((turn?.body as { model?: string } | undefined)?.model).toBe("chat-model");
        expect(JSON.stringify(turn?.body)).toContain("CODEX-HARNESS-MARKER");
        expect(JSON.stringify(chat.requests.map((r) => r.headers))).not.toContain(first.key);
      } finally {
        first.proc.kill("SIGTERM");
        expect(await first.proc.exited).toBe(0);
      }
      // Restarted, it serves on the same port with the same key: the env lines stay valid.
      const second = await startBridge();
      expect([second.url, second.key]).toEqual([first.url, first.key]);
      // While it runs, a third one finds the kept port taken: it says so and serves on another.
      const third = await startBridge();
      third.proc.kill("SIGTERM");
      expect(await third.proc.exited).toBe(0);
      expect(third.url).not.toBe(second.url);
      expect(third.key).toBe(first.key);
      expect(await new Response(third.proc.stderr).text()).toContain("is in use; serving on");
      second.proc.kill("SIGTERM");
      expect(await second.proc.exited).toBe(0);
      // --json: the same env as one object, nothing else on stdout.
      const json = Bun.spawn(
        [process.execPath, MAIN, "bridge", "--upstream", chat.url, "--runs", runs, "--json"],
        { env: { PATH: process.env.PATH, HOME: runs }, stdout: "pipe", stderr: "pipe" },
      );
      const line = (await json.stdout.getReader().read()).value;
      const printed = JSON.parse(new TextDecoder().decode(line)) as {
        url: string;
        env: Record<string, string>;
      };
      expect(printed.env.HARNESS2_CODEX_API_KEY).toBe(first.key);
      expect(printed.env.HARNESS2_CODEX_BASE_URL).toBe(printed.url);
      json.kill("SIGTERM");
      expect(await json.exited).toBe(0);
      const mode = (await Bun.file(join(runs, "bridge.json")).stat()).mode & 0o777;
      expect(mode).toBe(0o600);

      // A bad upstream is one line and exit 1, not a hang; --litellm without litellm likewise.
      const bad = await runCli(["bridge", "--upstream", "http://127.0.0.1:9/v1", "--runs", runs]);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim().split("\n")).toHaveLength(1);
      expect(bad.stderr).toContain("cannot be reached (ECONNREFUSED)");
      const lite = await runCli(["bridge", "--upstream", chat.url, "--litellm", "--runs", runs], {
        env: { PATH: "/nonexistent" },
      });
      expect(lite.code).toBe(1);
      expect(lite.stderr).toContain("litellm is not on PATH");
    },
    SESSION_TEST_MS,
  );
});
