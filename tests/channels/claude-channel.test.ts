// The Claude Code channel: a fake `claude` (fixtures/fake-claude) for every outcome the channel
// must tell apart, and the real binary against the scripted Anthropic server when it is installed.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startAnthropicServer } from "../../fixtures/servers/anthropic-server.ts";
import { lastApiRetry, parseClaudeJson } from "../../src/agent-cli/claude.ts";
import { ChannelSetupError } from "../../src/agent-cli/session-env.ts";
import {
  ClaudeChannel,
  claudeInput,
  LONG_SYSTEM_POINTER,
  SYSTEM_ARG_MAX,
} from "../../src/channels/claude-channel.ts";
import { which } from "../../src/core/lib/process.ts";
import type { ChannelRequest } from "../../src/core/seams/channel.ts";
import { processesMentioning } from "../helpers/procs.ts";
import { testTempDir } from "../helpers/temp.ts";

// The pinned development dependency @anthropic-ai/claude-code provides node_modules/.bin/claude.
const pinnedClaude = resolve(import.meta.dir, "../../node_modules/.bin/claude");

const FAKE = resolve(import.meta.dir, "../../fixtures/fake-claude/claude");

function request(over: Partial<ChannelRequest> = {}): ChannelRequest {
  const root = testTempDir("h2-claude-");
  const workspace = join(root, "work");
  const sessionDir = join(root, "session");
  mkdirSync(join(workspace, "context"), { recursive: true });
  mkdirSync(sessionDir, { recursive: true });
  return {
    workspace,
    context: join(workspace, "context"),
    sessionDir,
    mission: "Do the task.",
    system: "",
    model: "claude-sonnet-4-5",
    effort: "high",
    steps: 10,
    timeoutS: 60,
    ...over,
  };
}

const fakeEnv = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/home/real-user",
  HARNESS2_CLAUDE_BIN: FAKE,
  ...extra,
});

type FakeRecord = {
  argv: string[];
  env: Record<string, string>;
  stdin: string;
  cwd: string;
  grandchild?: number;
};
const fakeRecord = (req: ChannelRequest): FakeRecord =>
  JSON.parse(readFileSync(join(req.workspace, ".fake-claude.json"), "utf8"));

const withMode = (mode: string) => `Do the task.\nFAKE-CLAUDE-MODE: ${mode}\n`;

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

describe("Claude output parsing", () => {
  test("whole output, last {…} line, then first { to last }; nothing else", () => {
    expect(parseClaudeJson('{"result":"a","total_cost_usd":1}')).toMatchObject({ result: "a" });
    expect(parseClaudeJson('log {x}\n{"result":"b"}\nmore')).toMatchObject({ result: "b" });
    expect(parseClaudeJson('pre {\n "result": "c"\n} post')).toMatchObject({ result: "c" });
    expect(parseClaudeJson("plain text answer")).toBeNull();
    expect(parseClaudeJson("")).toBeNull();
    expect(parseClaudeJson("[1,2]")).toBeNull();
  });

  test("stream-json: the result line wins over the events before it; retries are read as words", () => {
    const init = '{"type":"system","subtype":"init","cwd":"/w"}';
    const retry = (n: number) =>
      `{"type":"system","subtype":"api_retry","attempt":${n},"max_retries":10,"retry_delay_ms":500,"error_status":529,"error":"overloaded"}`;
    const result = '{"type":"result","subtype":"success","is_error":false,"result":"done"}';
    expect(parseClaudeJson([init, retry(1), result].join("\n"))).toMatchObject({ result: "done" });
    // Cut off while retrying: no result, and an event line is never taken for one.
    expect(parseClaudeJson([init, retry(1), retry(2)].join("\n"))).toBeNull();
    expect(lastApiRetry([init, retry(1), retry(2)].join("\n"))).toBe(
      "HTTP 529 overloaded (retry 2 of 10)",
    );
    expect(lastApiRetry([init, result].join("\n"))).toBe("");
    expect(lastApiRetry('{"type":"system","subtype":"api_retry"}')).toBe("an API error");
    expect(lastApiRetry("not json api_retry")).toBe("");
  });

  test("a long system text moves into stdin behind a short pointer", () => {
    expect(claudeInput("m", "")).toEqual({ stdin: "m", appendSystem: null });
    expect(claudeInput("m", "sys")).toEqual({ stdin: "m", appendSystem: "sys" });
    const long = "s".repeat(SYSTEM_ARG_MAX + 1);
    const input = claudeInput("the mission", long);
    expect(input.appendSystem).toBe(LONG_SYSTEM_POINTER);
    expect(
      input.stdin.startsWith(`[SYSTEM INSTRUCTIONS]\n${long}\n[END SYSTEM INSTRUCTIONS]`),
    ).toBe(true);
    expect(input.stdin.endsWith("\n\nthe mission")).toBe(true);
  });
});

describe("Claude channel setup and environment", () => {
  test("a missing executable is a ChannelSetupError; the pinned one is found without PATH", () => {
    // node_modules/.bin/claude (the pinned development dependency) needs no PATH entry.
    expect(existsSync(pinnedClaude)).toBe(true);
    expect(new ClaudeChannel({ env: { PATH: "/nonexistent" } }).kind).toBe("claude_cli");
    expect(
      () => new ClaudeChannel({ env: { PATH: "", HARNESS2_CLAUDE_BIN: "/nonexistent/claude" } }),
    ).toThrow(ChannelSetupError);
    expect(
      () => new ClaudeChannel({ env: { PATH: "", HARNESS2_CLAUDE_BIN: "/nonexistent/claude" } }),
    ).toThrow(/HARNESS2_CLAUDE_BIN/);
  });

  test("only Claude's routing variables pass; HOME and config are the session's own", () => {
    const ch = new ClaudeChannel({
      env: fakeEnv({
        ANTHROPIC_API_KEY: "ak",
        ANTHROPIC_BASE_URL: "http://x",
        OPENAI_API_KEY: "must-not-pass",
        GOOGLE_CLOUD_PROJECT: "proj",
        CLAUDE_CODE_USE_VERTEX: "1",
        CLAUDE_CODE_MAX_RETRIES: "999",
      }),
    });
    const req = request();
    const env = ch.sessionEnv(req);
    expect(env.ANTHROPIC_API_KEY).toBe("ak");
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.HARNESS2_CLAUDE_BIN).toBeUndefined();
    expect(env.HOME).toBe(join(req.sessionDir, "home"));
    expect(env.CLAUDE_CONFIG_DIR).toBe(join(req.sessionDir, "home/.claude"));
    expect(env.CLAUDE_CODE_MAX_RETRIES).toBe("2");
    expect(env.ANTHROPIC_VERTEX_PROJECT_ID).toBe("proj");
    expect(env.CLOUD_ML_REGION).toBe("global");
    expect(env.DISABLE_AUTOUPDATER).toBe("1");
    expect(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBe("1");
    expect(
      new ClaudeChannel({ env: fakeEnv({ CLAUDE_CODE_MAX_RETRIES: "0" }) }).sessionEnv(req)
        .CLAUDE_CODE_MAX_RETRIES,
    ).toBe("0");
  });
});

describe("Claude channel with a fake claude", () => {
  const ch = new ClaudeChannel({
    env: fakeEnv({ ANTHROPIC_API_KEY: "ak", OPENAI_API_KEY: "no" }),
    graceS: 1,
  });

  test("a result: text and cost; mission on stdin, flags and session env as specified", async () => {
    const req = request({ mission: withMode("result"), system: "Be careful." });
    expect(await ch.run(req)).toEqual({
      text: "fake answer",
      usd: 0.0123,
      error: "",
      timedOut: false,
    });
    const rec = fakeRecord(req);
    expect(rec.argv).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--model",
      "claude-sonnet-4-5",
      "--max-turns",
      "10",
      "--effort",
      "high",
      "--append-system-prompt",
      "Be careful.",
    ]);
    expect(rec.stdin).toBe(withMode("result"));
    expect(rec.cwd).toBe(req.workspace);
    expect(rec.env.HOME).toBe(join(req.sessionDir, "home"));
    expect(rec.env.ANTHROPIC_API_KEY).toBe("ak");
    expect(rec.env.OPENAI_API_KEY).toBeUndefined();
    expect(existsSync(join(req.sessionDir, "home/.claude"))).toBe(true);
  });

  test("no --effort when the effort is empty; a long system text rides on stdin", async () => {
    const long = "x".repeat(SYSTEM_ARG_MAX + 10);
    const req = request({ mission: withMode("result"), system: long, effort: "" });
    expect((await ch.run(req)).text).toBe("fake answer");
    const rec = fakeRecord(req);
    expect(rec.argv).not.toContain("--effort");
    expect(rec.argv.at(-1)).toBe(LONG_SYSTEM_POINTER);
    expect(rec.stdin.length).toBeGreaterThan(SYSTEM_ARG_MAX);
    expect(rec.stdin).toContain(withMode("result"));
  });

  test("the proposer's steps limit is passed as --max-turns (docs/differences.md E24)", async () => {
    const req = request({ mission: withMode("result"), steps: 3 });
    expect((await ch.run(req)).text).toBe("fake answer");
    const argv = fakeRecord(req).argv;
    expect(argv.filter((a) => a === "--max-turns")).toHaveLength(1);
    expect(argv[argv.indexOf("--max-turns") + 1]).toBe("3");
  });

  test("a session stopped by the turn cap is an error, never a partial answer", async () => {
    const req = request({ mission: withMode("max_turns"), steps: 1 });
    const r = await ch.run(req);
    expect(r).toMatchObject({ text: "", usd: 0.3 });
    expect(r.error).toBe("CLI error: error_max_turns: partial work");
    expect(fakeRecord(req).argv).toContain("--max-turns");
  });

  test("the fallback parsers find the result among other output", async () => {
    expect((await ch.run(request({ mission: withMode("noisy") }))).text).toBe("answer after noise");
    expect(await ch.run(request({ mission: withMode("wrapped") }))).toMatchObject({
      text: "wrapped answer",
      usd: 0.01,
    });
  });

  test("is_error wins over subtype 'success'; its cost is still reported", async () => {
    const r = await ch.run(request({ mission: withMode("is_error") }));
    expect(r.text).toBe("");
    expect(r.usd).toBe(0.002);
    expect(r.error).toBe("CLI error: success (HTTP 400): API Error: 400 mock failure");
  });

  test("a non-success subtype is an error", async () => {
    const r = await ch.run(request({ mission: withMode("max_turns") }));
    expect(r.text).toBe("");
    expect(r.error).toContain("error_max_turns");
  });

  test("non-JSON stdout is an error, never the answer", async () => {
    const r = await ch.run(request({ mission: withMode("garbled") }));
    expect(r.text).toBe("");
    expect(r.error).toBe(
      "rc=0: no JSON result from claude: Hello! I did the task, here is my answer in plain text.",
    );
  });

  test("a non-zero exit with no output reports the stderr tail", async () => {
    const r = await ch.run(request({ mission: withMode("nonzero") }));
    expect(r).toEqual({
      text: "",
      usd: 0,
      error: "rc=3: no JSON result from claude: fatal: could not reach the model",
      timedOut: false,
    });
  });

  test("an empty result is an error, not an empty answer", async () => {
    const r = await ch.run(request({ mission: withMode("empty") }));
    expect(r).toEqual({ text: "", usd: 0.04, error: "rc=0: empty reply", timedOut: false });
  });

  test("the timeout kills the session and everything it started", async () => {
    const req = request({ mission: withMode("hang"), timeoutS: 3 });
    const r = await ch.run(req);
    expect(r).toEqual({ text: "", usd: 0, error: "timeout after 3s", timedOut: true });
    expect(processesMentioning(req.sessionDir)).toEqual([]);
  });

  test("an abort kills the session and its grandchild", async () => {
    const ac = new AbortController();
    const req = request({ mission: withMode("hang"), signal: ac.signal });
    const running = ch.run(req);
    while (!existsSync(join(req.workspace, ".fake-claude.json"))) await Bun.sleep(10);
    const grandchild = fakeRecord(req).grandchild ?? 0;
    expect(alive(grandchild)).toBe(true);
    ac.abort();
    expect(await running).toMatchObject({ text: "", error: "aborted", timedOut: false });
    for (let i = 0; i < 200 && alive(grandchild); i++) await Bun.sleep(10);
    expect(alive(grandchild)).toBe(false);
  });
});

const realClaude =
  process.env.HARNESS2_CLAUDE_BIN ||
  (existsSync(pinnedClaude) ? pinnedClaude : which("claude", process.env));
const realTest = realClaude ? test : test.skip;
if (!realClaude) {
  console.log(
    "claude-channel: real-binary tests skipped — no node_modules/.bin/claude (run bun install), no claude on PATH, HARNESS2_CLAUDE_BIN unset",
  );
}

describe("Claude channel with the real claude binary", () => {
  realTest(
    "edits the harness through Write against the scripted Anthropic server",
    async () => {
      const req = request({ system: "SYSTEM-MARKER-7", effort: "high" });
      const target = join(req.workspace, "context/harness/systemprompt.md");
      mkdirSync(join(req.workspace, "context/harness"), { recursive: true });
      const server = startAnthropicServer([
        {
          text: "Writing.",
          toolCalls: [
            { name: "Write", arguments: { file_path: target, content: "New prompt.\n" } },
          ],
        },
        { text: "Harness updated." },
      ]);
      try {
        const ch = new ClaudeChannel({
          env: {
            PATH: process.env.PATH ?? "",
            HARNESS2_CLAUDE_BIN: realClaude as string,
            ANTHROPIC_BASE_URL: server.url,
            ANTHROPIC_API_KEY: "sk-ant-mock",
          },
        });
        const r = await ch.run(req);
        expect(r.error).toBe("");
        expect(r.text).toBe("Harness updated.");
        expect(readFileSync(target, "utf8")).toBe("New prompt.\n");
        // Claude prices the mock's usage (2 turns × 100 in / 20 out) from its own table: > 0.
        expect(r.usd).toBeGreaterThan(0);
        const turns = server.requests.filter((q) => q.role === "turn");
        expect(turns.map((q) => q.turn)).toEqual([0, 1]);
        expect(JSON.stringify(turns[0]?.body)).toContain("SYSTEM-MARKER-7");
        expect(JSON.stringify(turns[0]?.body)).toContain("Do the task.");
        expect(existsSync(join(req.sessionDir, "home/.claude"))).toBe(true);
      } finally {
        await server.stop();
      }
    },
    120_000,
  );

  realTest(
    "an API error comes back as is_error and becomes the channel's error",
    async () => {
      const req = request();
      const server = startAnthropicServer([{ fail: { status: 400, message: "bad thing" } }]);
      try {
        const ch = new ClaudeChannel({
          env: {
            PATH: process.env.PATH ?? "",
            HARNESS2_CLAUDE_BIN: realClaude as string,
            ANTHROPIC_BASE_URL: server.url,
            ANTHROPIC_API_KEY: "sk-ant-mock",
          },
        });
        const r = await ch.run(req);
        expect(r.text).toBe("");
        expect(r.error).toContain("CLI error");
        expect(r.error).toContain("400");
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
  realTest(
    "a session cut off while Claude retries a 500 says so: the timeout keeps the CLI's last error",
    async () => {
      // Issue 37: the record used to read a bare "timeout after Ns".
      const req = request({ timeoutS: 6 });
      const server = startAnthropicServer(
        Array.from({ length: 20 }, () => ({ fail: { status: 500, message: "upstream exploded" } })),
      );
      try {
        const ch = new ClaudeChannel({
          graceS: 1,
          env: {
            PATH: process.env.PATH ?? "",
            HARNESS2_CLAUDE_BIN: realClaude as string,
            ANTHROPIC_BASE_URL: server.url,
            ANTHROPIC_API_KEY: "sk-ant-mock",
            CLAUDE_CODE_MAX_RETRIES: "10",
          },
        });
        const r = await ch.run(req);
        expect(r.timedOut).toBe(true);
        expect(r.error).toMatch(
          /^timeout after 6s; the CLI's last error: HTTP 500 \S+ \(retry \d+ of 10\)$/,
        );
        expect(server.requests.length).toBeGreaterThan(1);
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
});
