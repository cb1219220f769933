// The Codex improver channel: setup refusals and the stdin it writes, then the REAL codex binary
// against the scripted Responses server (sequential, few sessions): an edit in the workspace with
// the answer file winning and the cost priced from the table, the OS sandbox refusing a read and a
// write outside the workspace (and, opted out, the read succeeding, so the test proves the
// sandbox), the final message as the answer when no file was written, a refused request's error,
// and a timeout.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { ChannelSetupError } from "../../src/agent-cli/session-env.ts";
import {
  CODEX_ANSWER_NOTE,
  CodexChannel,
  type CodexChannelOptions,
} from "../../src/channels/codex-channel.ts";
import { makeChannel } from "../../src/channels/make-channel.ts";
import { sessionRequest } from "../helpers/opencode.ts";
import { testTempDir } from "../helpers/temp.ts";

/** A Codex session is ~0.5–3 s here; generous for a loaded machine. */
const SESSION_TEST_MS = 120_000;
const PRICES = JSON.stringify({ "mock-model": { input: 2, cachedInput: 1, output: 10 } });

function env(url: string, over: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: testTempDir("h2-cxch-home-"),
    HARNESS2_CODEX_BASE_URL: url,
    HARNESS2_CODEX_API_KEY: "scripted-key",
    HARNESS2_CODEX_PRICES: PRICES,
    OPENAI_API_KEY: "must-not-leak",
    ...over,
  };
}

const request = (over: Parameters<typeof sessionRequest>[1] = {}) =>
  sessionRequest(testTempDir("h2-cxch-"), { model: "mock-model", effort: "high", ...over });

const setupError = (opts: CodexChannelOptions): ChannelSetupError => {
  try {
    new CodexChannel(opts);
  } catch (err) {
    if (err instanceof ChannelSetupError) return err;
    throw err;
  }
  throw new Error("expected a ChannelSetupError");
};

describe("Codex channel setup", () => {
  test("a missing endpoint or key is a setup error naming the variable", () => {
    const noUrl = setupError({ env: { PATH: process.env.PATH, HARNESS2_CODEX_API_KEY: "k" } });
    expect(noUrl.channel).toBe("codex");
    expect(noUrl.reason).toBe("HARNESS2_CODEX_BASE_URL is not set");
    const noKey = setupError({
      env: { PATH: process.env.PATH, HARNESS2_CODEX_BASE_URL: "http://127.0.0.1:9/v1" },
    });
    expect(noKey.reason).toBe("HARNESS2_CODEX_API_KEY is not set");
    const badPrices = setupError({
      env: env("http://127.0.0.1:9/v1", { HARNESS2_CODEX_PRICES: "{" }),
    });
    expect(badPrices.reason).toContain("HARNESS2_CODEX_PRICES is not valid JSON");
  });

  test("the improvers' own endpoint and key win over the executor's", () => {
    const ch = new CodexChannel({
      env: env("http://127.0.0.1:9/v1", {
        HARNESS2_IMPROVER_CODEX_BASE_URL: "http://127.0.0.1:8/v1/",
        HARNESS2_IMPROVER_CODEX_API_KEY: "improver-key",
      }),
    });
    const s = ch.settings({ model: "mock-model", effort: "low" });
    expect(s.baseUrl).toBe("http://127.0.0.1:8/v1");
    expect(s.apiKey).toBe("improver-key");
    expect(s.effort).toBe("low");
    // Our sandbox holds the session, so Codex's own is off; opted out, Codex's keeps the writes in.
    expect(s.sandbox).toBe("bypass");
    const off = new CodexChannel({
      env: env("http://127.0.0.1:9/v1", { HARNESS2_IMPROVER_SANDBOX: "off" }),
    });
    expect(off.settings({ model: "mock-model", effort: "high" }).sandbox).toBe("workspace-write");
  });

  test("a model without a price is refused before a session starts; a bad effort names itself", async () => {
    const ch = new CodexChannel({ env: env("http://127.0.0.1:9/v1") });
    expect(() => ch.assertPriced("gpt-unpriced")).toThrow(
      /the improver model "gpt-unpriced" has no price in HARNESS2_CODEX_PRICES/,
    );
    await expect(ch.run(request({ model: "gpt-unpriced" }))).rejects.toBeInstanceOf(
      ChannelSetupError,
    );
    await expect(
      makeChannel("codex", env("http://127.0.0.1:9/v1"), "gpt-unpriced"),
    ).rejects.toThrow(/no price/);
    expect(() => ch.settings({ model: "mock-model", effort: "max" })).toThrow(
      /HARNESS2_CODEX_EFFORT="max" is not allowed/,
    );
  });

  test("stdin holds the system text, the mission and where the answer goes", () => {
    expect(CodexChannel.input({ system: "SYS", mission: "Do it." })).toBe(
      `SYS\n\n---\n\nDo it.\n\n${CODEX_ANSWER_NOTE}\n`,
    );
    expect(CodexChannel.input({ system: "", mission: "Do it." })).toBe(
      `Do it.\n\n${CODEX_ANSWER_NOTE}\n`,
    );
  });
});

describe("Codex channel with the real codex binary", () => {
  const servers: ScriptedServer[] = [];
  const serve = (script: unknown) => {
    const s = startResponsesServer(script);
    servers.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  test(
    "a session edits the harness and output/answer.md wins; the cost is priced; only its own env",
    async () => {
      const server = serve({
        usage: { input: 1000, output: 50 },
        turns: [
          {
            toolCalls: [
              {
                name: "exec_command",
                arguments: {
                  cmd: "printf 'You are terse and check your work.\\n' > context/harness/systemprompt.md && env > env.txt",
                },
              },
            ],
          },
          {
            toolCalls: [
              {
                name: "exec_command",
                arguments: { cmd: "mkdir -p output && printf 'THE ANSWER\\n' > output/answer.md" },
              },
            ],
          },
          { text: "final message (not the answer)" },
        ],
      });
      const req = request({ system: "SYSTEM TEXT", mission: "Improve the system prompt." });
      mkdirSync(join(req.workspace, "context/harness"), { recursive: true });
      writeFileSync(join(req.workspace, "context/harness/systemprompt.md"), "You are terse.\n");
      const result = await new CodexChannel({ env: env(server.url) }).run(req);

      // 3 turns × (1,000 input at $2 + 50 output at $10 per million) = 3 × $0.0025.
      expect(result).toEqual({ text: "THE ANSWER\n", usd: 0.0075, error: "", timedOut: false });
      expect(readFileSync(join(req.workspace, "context/harness/systemprompt.md"), "utf8")).toBe(
        "You are terse and check your work.\n",
      );
      const first = JSON.stringify(server.requests.find((r) => r.role === "turn")?.body);
      expect(first).toContain("SYSTEM TEXT");
      expect(first).toContain("Improve the system prompt.");
      expect(first).toContain("output/answer.md");
      const seen = readFileSync(join(req.workspace, "env.txt"), "utf8");
      expect(seen).toContain(`CODEX_HOME=${join(req.sessionDir, "codex-home")}`);
      expect(seen).not.toContain("must-not-leak");
      expect(JSON.stringify(server.requests.map((r) => r.headers))).not.toContain("must-not-leak");
    },
    SESSION_TEST_MS,
  );

  test(
    "in its OS sandbox the session's shell can neither read a planted answer key nor write outside; opted out, it reads it",
    async () => {
      const outside = testTempDir("h2-cxch-outside-");
      const key = join(outside, "ANSWER-KEY.txt");
      writeFileSync(key, "PLANTED-ANSWER-KEY-4711\n");
      for (const sandbox of ["bwrap", "off"]) {
        const escapeFile = join(outside, `escape-${sandbox}.txt`);
        const server = serve({
          turns: [
            {
              toolCalls: [
                {
                  name: "exec_command",
                  arguments: { cmd: `cat ${key}; echo x > ${escapeFile}; echo read-done` },
                },
              ],
            },
            { text: "ok" },
          ],
        });
        const ch = new CodexChannel({
          env: env(server.url, { HARNESS2_IMPROVER_SANDBOX: sandbox }),
        });
        const result = await ch.run(request());
        // The session went on after the command, and its final message is the answer.
        expect(result.error).toBe("");
        expect(result.text).toBe("ok");
        const sent = JSON.stringify(server.requests.map((r) => r.body));
        expect(sent).toContain("read-done");
        // Codex's own sandbox (opted out of ours) still keeps writes in the workspace.
        expect(existsSync(escapeFile)).toBe(false);
        if (sandbox === "bwrap") expect(sent).not.toContain("PLANTED-ANSWER-KEY-4711");
        else expect(sent).toContain("PLANTED-ANSWER-KEY-4711");
      }
    },
    SESSION_TEST_MS,
  );

  test(
    "a refused request is an error with the endpoint's message; a session that hangs times out",
    async () => {
      const refused = serve({
        turns: [{ fail: { status: 400, message: "model mock-model is not served here" } }],
      });
      const failed = await new CodexChannel({ env: env(refused.url) }).run(request());
      expect(failed.text).toBe("");
      expect(failed.timedOut).toBe(false);
      expect(failed.error).toMatch(/^rc=1: .*model mock-model is not served here/);

      const hanging = serve({ turns: [{ hang: true }] });
      const slow = await new CodexChannel({ env: env(hanging.url), graceS: 1 }).run(
        request({ timeoutS: 3 }),
      );
      expect(slow.timedOut).toBe(true);
      expect(slow.text).toBe("");
      expect(slow.error).toMatch(/^timeout after 3s/);
    },
    SESSION_TEST_MS,
  );
});
