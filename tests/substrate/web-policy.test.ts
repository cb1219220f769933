// The executor's web policy with the REAL binaries (docs/method.md "The web"): a scripted model
// asks the executor to fetch a URL served on loopback — OpenCode with its webfetch tool, Codex
// with a command in its shell. By default the request never arrives; with the web allowed
// (HARNESS2_ALLOW_WEB=1, what `run --allow-web` sets) it does. Sequential: one session at a time.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import { codexConfigToml, codexSettings } from "../../src/agent-cli/codex.ts";
import { createTasksAdapter } from "../../src/benchmarks/tasks/tasks-adapter.ts";
import { webPolicyOf, withWebTools } from "../../src/core/run/web-policy.ts";
import { CodexSubstrate } from "../../src/substrate/codex/substrate.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";

const SCRATCH = mkdtempSync(join(tmpdir(), "h2-web-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));
const SESSION_MS = 240_000;

/** A loopback page standing in for a task's published answer key; it counts every request. */
function answerKeyServer() {
  let hits = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      hits++;
      return new Response("RUBRIC: the answer is 42\n");
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/rubric.txt`,
    hits: () => hits,
    stop: () => server.stop(true),
  };
}

function tasksFolder(name: string, harness: Record<string, string>): string {
  const dir = join(SCRATCH, name, "tasks");
  const files: Record<string, string> = {
    ...harness,
    "notes/lookup/task.md": "Write the answer into output/answer.md.\n",
    "notes/lookup/task.toml": 'deliverables = ["answer.md"]\n',
    "notes/lookup/inputs/notes.txt": "alpha\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe("the web policy, unit", () => {
  test("what is recorded, per executor and setting; the deny rules; Codex's network switch", () => {
    expect(webPolicyOf({}, "oc")).toMatchObject({ web: "off" });
    expect(webPolicyOf({ HARNESS2_ALLOW_WEB: "1" }, "oc")).toMatchObject({ web: "allowed" });
    expect(webPolicyOf({}, "cx")).toMatchObject({
      web: "off",
      how: expect.stringContaining("without network"),
    });
    expect(webPolicyOf({ HARNESS2_CODEX_SANDBOX: "bypass" }, "cx")).toMatchObject({ web: "open" });
    expect(() => webPolicyOf({ HARNESS2_ALLOW_WEB: "yes" }, "oc")).toThrow(/HARNESS2_ALLOW_WEB/);
    expect(JSON.parse(withWebTools('{"external_directory":{"*":"deny"}}', false))).toEqual({
      external_directory: { "*": "deny" },
      webfetch: "deny",
      websearch: "deny",
      codesearch: "deny",
    });
    expect(withWebTools("{}", true)).toBe("{}");
    const base = { HARNESS2_CODEX_BASE_URL: "http://127.0.0.1:1/v1", HARNESS2_CODEX_API_KEY: "k" };
    expect(codexConfigToml(codexSettings(base, "m"), "/w")).toContain("network_access = false");
    expect(
      codexConfigToml(codexSettings({ ...base, HARNESS2_ALLOW_WEB: "1" }, "m"), "/w"),
    ).toContain("network_access = true");
  });
});

describe("the web policy with the real executors", () => {
  test(
    "OpenCode: its webfetch of a loopback page is denied by default and reaches it with the web allowed",
    async () => {
      const page = answerKeyServer();
      try {
        for (const allow of [false, true]) {
          const model = startChatServer({
            turns: [
              { toolCalls: [{ name: "webfetch", arguments: { url: page.url, format: "text" } }] },
              {
                toolCalls: [
                  { name: "write", arguments: { filePath: "output/answer.md", content: "done\n" } },
                ],
              },
              { text: "Done." },
            ],
          });
          try {
            const env = {
              PATH: process.env.PATH,
              HOME: join(SCRATCH, "home"),
              OPENCODE_CONFIG_CONTENT: JSON.stringify(opencodeProviderConfig(model.url)),
              HARNESS2_SOLVER_MODEL: "local/mock-model",
              ...(allow ? { HARNESS2_ALLOW_WEB: "1" } : {}),
            };
            const { adapter } = createTasksAdapter({
              tasksDir: tasksFolder(`oc-${allow}`, {}),
              runsDir: join(SCRATCH, `oc-${allow}`, "runs"),
              env,
              executor: new OpencodeSubstrate({ env, graceS: 2 }),
            });
            const before = page.hits();
            const runDir = await adapter.execute(
              "notes/lookup",
              null,
              "tasks-oc-agg1/notes/lookup/base1",
            );
            expect(page.hits() - before).toBe(allow ? 1 : 0);
            // What the model was told the tool returned: the page, or a refusal.
            const told = JSON.stringify(model.requests.filter((r) => r.role === "turn")[1]?.body);
            if (allow) expect(told).toContain("the answer is 42");
            else expect(told).not.toContain("the answer is 42");
            expect(runDir).toBe(adapter.rolloutDir("tasks-oc-agg1/notes/lookup/base1"));
          } finally {
            await model.stop();
          }
        }
      } finally {
        page.stop();
      }
    },
    SESSION_MS,
  );

  test(
    "Codex: a command fetching a loopback page reaches nothing in its sandbox by default, and reaches it with the web allowed",
    async () => {
      const page = answerKeyServer();
      try {
        for (const allow of [false, true]) {
          const fetch = `python3 -c "import urllib.request as u; print(u.urlopen('${page.url}', timeout=5).read())" ; echo fetched`;
          const model = startResponsesServer({
            turns: [
              { toolCalls: [{ name: "exec_command", arguments: { cmd: fetch } }] },
              {
                toolCalls: [
                  {
                    name: "exec_command",
                    arguments: {
                      cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: output/answer.md\n+done\n*** End Patch\nEOF",
                    },
                  },
                ],
              },
              { text: "Done." },
            ],
          });
          try {
            const env = {
              PATH: process.env.PATH,
              HOME: join(SCRATCH, "home"),
              HARNESS2_CODEX_BASE_URL: model.url,
              HARNESS2_CODEX_API_KEY: "scripted-key",
              HARNESS2_CODEX_MODEL: "mock-model",
              ...(allow ? { HARNESS2_ALLOW_WEB: "1" } : {}),
            };
            const { adapter } = createTasksAdapter({
              tasksDir: tasksFolder(`cx-${allow}`, {
                "harness-codex/AGENTS.md": "Work in output/.\n",
              }),
              runsDir: join(SCRATCH, `cx-${allow}`, "runs"),
              env,
              executor: new CodexSubstrate({ env, graceS: 2 }),
            });
            const before = page.hits();
            const [task] = await adapter.tasks();
            await adapter.execute(task as string, null, "tasks-cx-agg1/notes/lookup/base1");
            expect(page.hits() - before).toBe(allow ? 1 : 0);
          } finally {
            await model.stop();
          }
        }
      } finally {
        page.stop();
      }
    },
    SESSION_MS,
  );
});
