// The bridge's translations, both ways, and its server in process against the scripted chat
// server, called through the openai library's Responses client (what Codex's wire looks like).
import { afterAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { ResponsesStream } from "../../src/bridge/responses-stream.ts";
import { probeUpstream, startBridge } from "../../src/bridge/server.ts";
import { ResponsesRequest, toChat } from "../../src/bridge/to-chat.ts";

describe("toChat", () => {
  test("messages, consecutive calls as one assistant turn, outputs, tools, custom tools", () => {
    const req = ResponsesRequest.parse({
      model: "m",
      instructions: "Be brief.",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "Rules." }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Do it" }] },
        { type: "reasoning", summary: [], encrypted_content: "x" },
        { type: "function_call", call_id: "c1", name: "exec_command", arguments: '{"cmd":"ls"}' },
        { type: "custom_tool_call", call_id: "c2", name: "apply_patch", input: "*** Begin Patch" },
        { type: "function_call_output", call_id: "c1", output: "a.txt" },
        {
          type: "custom_tool_call_output",
          call_id: "c2",
          output: [{ type: "input_text", text: "ok" }],
        },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done." }] },
      ],
      tools: [
        {
          type: "function",
          name: "exec_command",
          description: "run",
          parameters: { type: "object" },
        },
        { type: "custom", name: "apply_patch", description: "patch" },
        { type: "web_search" },
        { type: "namespace", name: "multi_agent_v1", tools: [] },
      ],
      tool_choice: "auto",
      parallel_tool_calls: true,
      max_output_tokens: 500,
    });
    const { chat, customTools } = toChat(req, "upstream-model");
    expect(chat.model).toBe("upstream-model");
    expect(chat.max_tokens).toBe(500);
    expect(chat.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Rules." },
      { role: "user", content: "Do it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "exec_command", arguments: '{"cmd":"ls"}' },
          },
          {
            id: "c2",
            type: "function",
            function: { name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "a.txt" },
      { role: "tool", tool_call_id: "c2", content: "ok" },
      { role: "assistant", content: "Done." },
    ]);
    expect(chat.tools?.map((t) => (t.type === "function" ? t.function.name : t.type))).toEqual([
      "exec_command",
      "apply_patch",
    ]);
    expect([...customTools]).toEqual(["apply_patch"]);
    expect(chat.stream_options).toEqual({ include_usage: true });
  });

  test("a bare string input is one user message; a request without a model is refused", () => {
    expect(toChat(ResponsesRequest.parse({ model: "m", input: "hi" })).chat.messages).toEqual([
      { role: "user", content: "hi" },
    ]);
    expect(ResponsesRequest.safeParse({ input: "hi" }).success).toBe(false);
  });
});

const chunk = (delta: object, extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk =>
  ({
    id: "x",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  }) as ChatCompletionChunk;

describe("ResponsesStream", () => {
  test("text, reasoning and calls become output items in order, with usage at the end", () => {
    const s = new ResponsesStream("m", new Set(["apply_patch"]), "resp_t");
    const events = [
      ...s.start(),
      ...s.chunk(chunk({ reasoning_content: "Think." })),
      ...s.chunk(chunk({ content: "Hel" })),
      ...s.chunk(chunk({ content: "lo" })),
      ...s.chunk(
        chunk({
          tool_calls: [
            { index: 0, id: "call_a", function: { name: "exec_command", arguments: '{"cmd":' } },
          ],
        }),
      ),
      ...s.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] })),
      ...s.chunk(
        chunk({
          tool_calls: [
            {
              index: 1,
              id: "call_b",
              function: { name: "apply_patch", arguments: '{"input":"P"}' },
            },
          ],
        }),
      ),
      ...s.chunk({
        ...chunk({}),
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          total_tokens: 15,
          prompt_tokens_details: { cached_tokens: 4 },
        },
      } as ChatCompletionChunk),
      ...s.finish(),
    ];
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.reasoning_summary_text.delta");
    expect(types.filter((t) => t === "response.output_text.delta").length).toBe(2);
    expect(types.filter((t) => t === "response.function_call_arguments.delta").length).toBe(2);
    expect(types.at(-1)).toBe("response.completed");
    const seq = events.map((e) => e.sequence_number);
    expect(seq).toEqual(seq.map((_, i) => i));
    const done = events.at(-1)?.response as {
      output: { type: string }[];
      usage: Record<string, unknown>;
    };
    expect(done.output.map((o) => o.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "custom_tool_call",
    ]);
    expect(done.output[2]).toMatchObject({
      call_id: "call_a",
      name: "exec_command",
      arguments: '{"cmd":"ls"}',
    });
    expect(done.output[3]).toMatchObject({ call_id: "call_b", name: "apply_patch", input: "P" });
    expect(done.usage).toMatchObject({
      input_tokens: 10,
      output_tokens: 5,
      input_tokens_details: { cached_tokens: 4 },
    });
  });

  test("a broken-off stream ends with response.failed and the message", () => {
    const s = new ResponsesStream("m", new Set());
    const [failed] = s.fail("upstream 500: boom");
    expect(failed?.type).toBe("response.failed");
    expect(JSON.stringify(failed)).toContain("upstream 500: boom");
  });
});

describe("the bridge server", () => {
  const chat = startChatServer({
    model: "up-model",
    turns: [
      { toolCalls: [{ name: "exec_command", arguments: { cmd: "ls" } }] },
      { text: "All done." },
    ],
  });
  const bridge = startBridge({
    host: "127.0.0.1",
    port: 0,
    upstream: chat.url,
    upstreamKey: "k",
    key: "bridge-key-0123456789",
    model: "up-model",
  });
  afterAll(async () => {
    await bridge.stop();
    await chat.stop();
  });

  test("a Responses client gets the upstream's tool call, then its text, streamed", async () => {
    const client = new OpenAI({ baseURL: bridge.url, apiKey: "bridge-key-0123456789" });
    const tools = [
      {
        type: "function" as const,
        name: "exec_command",
        parameters: { type: "object" },
        strict: false,
      },
    ];
    const first = await client.responses.create({
      model: "codex-side",
      input: "go",
      tools,
      stream: true,
    });
    const items: string[] = [];
    let callId = "";
    for await (const e of first) {
      if (e.type === "response.output_item.done" && e.item.type === "function_call") {
        items.push(e.item.name);
        callId = e.item.call_id;
      }
    }
    expect(items).toEqual(["exec_command"]);
    const second = await client.responses.create({
      model: "codex-side",
      input: [
        { type: "message", role: "user", content: "go" },
        { type: "function_call", call_id: callId, name: "exec_command", arguments: '{"cmd":"ls"}' },
        { type: "function_call_output", call_id: callId, output: "a.txt" },
      ],
      tools,
      stream: true,
    });
    let text = "";
    for await (const e of second) if (e.type === "response.output_text.delta") text += e.delta;
    expect(text).toBe("All done.");
    // the upstream saw its own model id and the call's output as a tool message
    const last = chat.requests.filter((r) => r.role === "turn").at(-1)?.body as {
      model: string;
      messages: { role: string }[];
    };
    expect(last.model).toBe("up-model");
    expect(last.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  test("a wrong key is 401; an upstream 4xx is passed on; a bad body is 400", async () => {
    const wrong = await fetch(`${bridge.url}/responses`, {
      method: "POST",
      headers: { authorization: "Bearer nope" },
      body: "{}",
    });
    expect(wrong.status).toBe(401);
    const bad = await fetch(`${bridge.url}/responses`, {
      method: "POST",
      headers: { authorization: "Bearer bridge-key-0123456789" },
      body: "not json",
    });
    expect(bad.status).toBe(400);
    // the scripted server has two turns: a third is "script exhausted", an HTTP 400
    const client = new OpenAI({
      baseURL: bridge.url,
      apiKey: "bridge-key-0123456789",
      maxRetries: 0,
    });
    const err = await client.responses
      .create({
        model: "m",
        input: [
          { type: "function_call", call_id: "a", name: "x", arguments: "{}" },
          { type: "message", role: "assistant", content: "one" },
          { type: "message", role: "assistant", content: "two" },
        ],
        tools: [{ type: "function", name: "x", parameters: {}, strict: false }],
        stream: true,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(String((err as Error).message)).toContain("script exhausted");
  });

  test("an unreachable upstream is one line, fast", async () => {
    const t0 = Date.now();
    await expect(probeUpstream("http://127.0.0.1:9/v1", "k")).rejects.toThrow(
      /cannot be reached \(ECONNREFUSED\)/,
    );
    expect(Date.now() - t0).toBeLessThan(5000);
    await probeUpstream(chat.url, "k");
    const refusing = Bun.serve({ port: 0, fetch: () => new Response("no", { status: 401 }) });
    try {
      await expect(probeUpstream(`http://127.0.0.1:${refusing.port}/v1`, "bad")).rejects.toThrow(
        /refused the key \(HTTP 401\)\. Set HARNESS2_BRIDGE_UPSTREAM_KEY/,
      );
    } finally {
      await refusing.stop(true);
    }
  });
});
