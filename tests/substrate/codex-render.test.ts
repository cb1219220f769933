// The Codex trajectory renderer (docs/method.md §2), the settings and config.toml of a session, and
// the price table: pure functions, no binary.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CodexSetupError,
  codexConfigToml,
  codexExecArgv,
  codexSettings,
  readCodexStream,
} from "../../src/agent-cli/codex.ts";
import { costOf, loadPriceTable } from "../../src/agent-cli/codex-prices.ts";
import { countStream } from "../../src/benchmarks/lab/lab-metrics.ts";
import { truncationMarker } from "../../src/core/evidence/clip.ts";
import {
  finalCodexMessage,
  renderCodexTrajectory,
  textOf,
} from "../../src/substrate/codex/render.ts";
import { testTempDir } from "../helpers/temp.ts";

const O = { obsTrunc: 10_000, maxChars: 0 };
const lines = (...events: unknown[]) => events.map((e) => JSON.stringify(e)).join("\n");

describe("renderCodexTrajectory", () => {
  test("items in first position with their latest state; commands, exit codes, messages", () => {
    const text = renderCodexTrajectory(
      lines(
        { type: "thread.started", thread_id: "t" },
        { type: "turn.started" },
        {
          type: "item.started",
          item: { id: "i1", type: "command_execution", command: "ls", status: "in_progress" },
        },
        { type: "item.completed", item: { id: "i2", type: "agent_message", text: "Listing." } },
        {
          type: "item.completed",
          item: {
            id: "i1",
            type: "command_execution",
            command: "ls",
            aggregated_output: "a.txt\n",
            exit_code: 2,
            status: "completed",
          },
        },
        {
          type: "turn.completed",
          usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 3 },
        },
      ),
      O,
    );
    expect(text.split("\n")).toEqual([
      "[ACTION] shell: ls",
      "[OBSERVATION ERROR] a.txt | exit_code=2",
      "[ASSISTANT] Listing.",
      "[HARNESS] turn completed | tokens in=10 cached=4 out=3 reasoning=null",
      "[HARNESS] session usage | turns=1 tokens in=10 cached=4 out=3 reasoning=0",
    ]);
  });

  test("a command still running at the end says so; long commands are clipped at 2,000", () => {
    const cmd = "x".repeat(2500);
    const text = renderCodexTrajectory(
      lines({
        type: "item.started",
        item: { id: "a", type: "command_execution", command: cmd, status: "in_progress" },
      }),
      O,
    );
    expect(text).toContain(`[ACTION] shell: ${"x".repeat(2000)}${truncationMarker(500)}`);
    expect(text).toContain("still in progress when the stream ended");
  });

  test("reasoning, todo lists, harness notes, AGENTS.md, file changes, errors", () => {
    const text = renderCodexTrajectory(
      lines(
        { type: "item.completed", item: { id: "r", type: "reasoning", text: "Think." } },
        {
          type: "item.completed",
          item: {
            id: "t",
            type: "todo_list",
            items: [
              { text: "read", completed: true },
              { text: "write", completed: false },
            ],
          },
        },
        { type: "item.completed", item: { id: "e", type: "error", message: "metadata missing" } },
        {
          type: "item.completed",
          item: {
            id: "u",
            type: "user_message",
            text: "# AGENTS.md instructions for /w\nBe brief.",
          },
        },
        {
          type: "item.completed",
          item: {
            id: "f",
            type: "file_change",
            changes: [{ path: "/w/output/a.md", kind: "add" }],
            status: "completed",
          },
        },
        { type: "item.completed", item: { id: "w", type: "web_search" } },
        { type: "error", message: "Reconnecting... 1/5" },
        { type: "turn.failed", error: { message: "stream closed" } },
      ),
      O,
    );
    expect(text.split("\n")).toEqual([
      "[REASONING] Think.",
      "[ASSISTANT] plan: [x] read | [ ] write",
      "[HARNESS] metadata missing",
      "[HARNESS AGENTS.md] # AGENTS.md instructions for /w",
      "Be brief.",
      "[ACTION] file_change: add /w/output/a.md",
      // A tool item is a call even when it recorded nothing more (agent-cli/codex.ts counts it too).
      "[ACTION] web_search: (no query recorded)",
      "[ERROR] Reconnecting... 1/5",
      "[ERROR] stream closed",
    ]);
  });

  test("the rollout-file payload format, with repeated lines shown once", () => {
    const text = renderCodexTrajectory(
      lines(
        {
          timestamp: "t",
          type: "response_item",
          payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Go" }] },
        },
        {
          timestamp: "t",
          type: "response_item",
          payload: { type: "function_call", name: "shell", arguments: '{"cmd":"pwd"}' },
        },
        {
          timestamp: "t",
          type: "response_item",
          payload: { type: "function_call_output", output: "/w" },
        },
        { timestamp: "t", type: "event_msg", payload: { type: "agent_message", message: "Done." } },
        { timestamp: "t", type: "event_msg", payload: { type: "agent_message", message: "Done." } },
        {
          timestamp: "t",
          type: "response_item",
          payload: { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch" },
        },
      ),
      O,
    );
    expect(text.split("\n")).toEqual([
      "[USER] Go",
      "[ACTION] shell: pwd",
      "[OBSERVATION] /w",
      "[ASSISTANT] Done.",
      "[ACTION] apply_patch: *** Begin Patch",
    ]);
    expect(finalCodexMessage(lines({ item: { type: "agent_message", text: "last" } }))).toBe(
      "last",
    );
  });

  test("garbage degrades: no throw, no events says so, pretty-printed lines are skipped", () => {
    expect(renderCodexTrajectory("not json\n{broken\n[1,2]\n", O)).toBe(
      "(no parseable events in trajectory)",
    );
    expect(renderCodexTrajectory(lines({ item: null }, { item: { id: 3, type: 7 } }), O)).toBe(
      "(no parseable events in trajectory)",
    );
    expect(textOf({ content: [{ text: " " }, { text: "b" }] })).toBe("b");
  });

  test("the whole-text cap keeps beginning and end, and the usage line after it", () => {
    const many = Array.from({ length: 200 }, (_, i) => ({
      type: "item.completed",
      item: { id: `m${i}`, type: "agent_message", text: `message ${i} ${"y".repeat(50)}` },
    }));
    const text = renderCodexTrajectory(
      lines(...many, { type: "turn.completed", usage: { input_tokens: 1 } }),
      { obsTrunc: 1000, maxChars: 2000 },
    );
    expect(text).toContain("message 0 ");
    expect(text).toContain("message 199 ");
    expect(text).toContain("render truncation: the middle of this trajectory was cut");
    expect(text.split("\n").at(-1)).toStartWith("[HARNESS] session usage | turns=1");
  });
});

describe("one recorded Codex stream, one tool-call count", () => {
  test("the trajectory's actions, the stream facts and LAB's metrics count the same calls", () => {
    const stream = lines(
      { type: "thread.started", thread_id: "t" },
      { type: "turn.started" },
      {
        type: "item.started",
        item: {
          id: "i1",
          type: "command_execution",
          command: "cat documents/a.md",
          status: "in_progress",
        },
      },
      {
        type: "item.completed",
        item: {
          id: "i1",
          type: "command_execution",
          command: "cat documents/a.md",
          aggregated_output: "A",
          exit_code: 0,
          status: "completed",
        },
      },
      { type: "item.completed", item: { id: "i2", type: "reasoning", text: "think" } },
      {
        type: "item.completed",
        item: {
          id: "i3",
          type: "file_change",
          changes: [{ path: "output/x.md", kind: "add" }],
          status: "completed",
        },
      },
      {
        type: "item.completed",
        item: {
          id: "i4",
          type: "mcp_tool_call",
          server: "docs",
          tool: "search",
          arguments: { q: "tax" },
          status: "completed",
        },
      },
      // Cut off before it completed: still a call.
      { type: "item.started", item: { id: "i5", type: "web_search", query: "tax rates 2026" } },
      { type: "item.completed", item: { id: "i6", type: "agent_message", text: "done" } },
      {
        type: "turn.completed",
        usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 },
      },
    );
    const rendered = renderCodexTrajectory(stream, O);
    const actions = rendered.split("\n").filter((l) => l.startsWith("[ACTION]"));
    expect(actions).toEqual([
      "[ACTION] shell: cat documents/a.md",
      "[ACTION] file_change: add output/x.md",
      '[ACTION] mcp_tool_call: docs.search {"q":"tax"}',
      "[ACTION] web_search: tax rates 2026",
    ]);
    expect(readCodexStream(stream).toolCalls).toBe(4);
    const file = join(testTempDir("h2-cx-count-"), "codex.jsonl");
    writeFileSync(file, stream);
    const metrics = countStream(file);
    expect(metrics.toolCalls).toBe(4);
    expect(metrics.documentsRead).toBe(1);
    expect(metrics.tokens).toMatchObject({ input: 10, output: 5 });
  });
});

describe("Codex session settings", () => {
  const base = { HARNESS2_CODEX_BASE_URL: "http://127.0.0.1:9/v1/", HARNESS2_CODEX_API_KEY: "k" };

  test("a missing endpoint, key or model, a bad URL, effort or sandbox is one CodexSetupError", () => {
    const bad: [Record<string, string>, string, RegExp][] = [
      [{}, "m", /HARNESS2_CODEX_BASE_URL is not set/],
      [{ ...base, HARNESS2_CODEX_BASE_URL: "ftp://x" }, "m", /not an http\(s\) URL/],
      [{ ...base, HARNESS2_CODEX_API_KEY: " " }, "m", /HARNESS2_CODEX_API_KEY is not set/],
      [base, "", /HARNESS2_CODEX_MODEL is not set/],
      [{ ...base, HARNESS2_CODEX_EFFORT: "max" }, "m", /HARNESS2_CODEX_EFFORT="max"/],
      [{ ...base, HARNESS2_CODEX_SANDBOX: "none" }, "m", /HARNESS2_CODEX_SANDBOX="none"/],
    ];
    for (const [env, model, re] of bad) {
      let err: unknown;
      try {
        codexSettings(env, model);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CodexSetupError);
      expect((err as Error).message).toMatch(re);
      expect((err as Error).message).not.toContain("\n");
    }
  });

  test("config.toml names the endpoint, never the key, and trusts only the workspace", () => {
    const s = codexSettings(base, "gpt-x");
    expect(s.baseUrl).toBe("http://127.0.0.1:9/v1");
    const toml = codexConfigToml(s, '/w/with "quote"');
    expect(toml).toContain('base_url = "http://127.0.0.1:9/v1"');
    expect(toml).toContain('env_key = "HARNESS2_CODEX_API_KEY"');
    expect(toml).toContain('wire_api = "responses"');
    expect(toml).toContain('[projects."/w/with \\"quote\\""]');
    expect(toml).toContain("exclude_slash_tmp = true");
    expect(toml).not.toContain('"k"');
  });

  test("the sandbox choice is explicit in argv; the prompt comes from stdin", () => {
    const cmd = { bin: "/c/codex", toolsDir: null, source: "x" };
    const argv = (sandbox: string) =>
      codexExecArgv(cmd, codexSettings({ ...base, HARNESS2_CODEX_SANDBOX: sandbox }, "m"), "/w");
    expect(argv("workspace-write")).toContain("workspace-write");
    expect(argv("workspace-write")).not.toContain("--dangerously-bypass-hook-trust");
    expect(argv("with-hooks")).toContain("--dangerously-bypass-hook-trust");
    expect(argv("bypass")).toContain("--dangerously-bypass-approvals-and-sandbox");
    expect(argv("workspace-write").at(-1)).toBe("-");
    expect(argv("workspace-write")).toContain("--ephemeral");
  });
});

describe("Codex price table", () => {
  const usage = { turns: 2, input: 2_000_000, cached: 1_000_000, output: 100_000, reasoning: 0 };

  test("priced models cost tokens × price; unknown models cost null, never 0", () => {
    const table = loadPriceTable({
      HARNESS2_CODEX_PRICES: '{"m": {"input": 2, "cachedInput": 0.5, "output": 10}}',
    });
    expect(costOf(table, "m", usage)).toBe(1_000_000 * 2e-6 + 1_000_000 * 0.5e-6 + 1);
    expect(costOf(table, "other", usage)).toBeNull();
    expect(costOf(loadPriceTable({}), "m", usage)).toBeNull();
  });

  test("a file works; a bad file, bad JSON or a bad entry is one line naming the problem", () => {
    const dir = testTempDir("h2-prices-");
    const file = join(dir, "prices.json");
    writeFileSync(file, '{"m": {"input": 1, "output": 1}}');
    expect(loadPriceTable({ HARNESS2_CODEX_PRICES: file }).m?.output).toBe(1);
    const bad: [string, RegExp][] = [
      [join(dir, "missing.json"), /cannot be read \(ENOENT\)/],
      ["{nope", /is not valid JSON/],
      ['{"m": {"input": -1, "output": 1}}', /m\.input/],
      ['{"m": {"input": 1}}', /m\.output/],
      ['{"m": {"input": 1, "output": 1, "extra": 2}}', /not a price table/],
    ];
    for (const [value, re] of bad) {
      expect(() => loadPriceTable({ HARNESS2_CODEX_PRICES: value })).toThrow(re);
    }
  });
});
