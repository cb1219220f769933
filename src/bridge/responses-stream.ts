// The bridge's way back (docs/architecture.md "The bridge"): the chat-completions stream's chunks,
// as the openai library parses them, become the Responses stream events Codex consumes — output
// items for reasoning, text and each tool call, their deltas, and `response.completed` with the
// output and usage (or `response.failed`). Pure: no network here.

import type { ChatCompletionChunk } from "openai/resources/chat/completions";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

export type ResponsesEvent = { type: string } & Obj;

type Call = {
  index: number;
  id: string;
  callId: string;
  name: string;
  args: string;
  outputIndex: number;
};

/**
 * Turns chat-completion chunks into Responses stream events, in order. Feed every chunk to
 * `chunk()`, then call `finish()` (or `fail()` on an upstream error) once; each returns the events
 * to send.
 */
export class ResponsesStream {
  readonly id: string;
  #seq = 0;
  readonly #created = Math.floor(Date.now() / 1000);
  readonly #output: Obj[] = [];
  #text: { id: string; outputIndex: number; text: string } | null = null;
  #reasoning: { id: string; outputIndex: number; text: string } | null = null;
  readonly #calls = new Map<number, Call>();
  #usage: Obj | null = null;
  #n = 0;

  constructor(
    readonly model: string,
    readonly customTools: ReadonlySet<string>,
    id = `resp_bridge_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
  ) {
    this.id = id;
  }

  #ev(type: string, data: Obj): ResponsesEvent {
    return { type, sequence_number: this.#seq++, ...data };
  }

  #response(status: string, error: Obj | null = null): Obj {
    return {
      id: this.id,
      object: "response",
      created_at: this.#created,
      status,
      model: this.model,
      output: status === "in_progress" ? [] : this.#output,
      usage: status === "completed" ? this.#usage : null,
      error,
    };
  }

  start(): ResponsesEvent[] {
    return [
      this.#ev("response.created", { response: this.#response("in_progress") }),
      this.#ev("response.in_progress", { response: this.#response("in_progress") }),
    ];
  }

  chunk(c: ChatCompletionChunk): ResponsesEvent[] {
    const out: ResponsesEvent[] = [];
    if (c.usage) {
      const u = c.usage as unknown as Obj;
      const cached = isObj(u.prompt_tokens_details)
        ? Number(u.prompt_tokens_details.cached_tokens ?? 0)
        : 0;
      const reasoning = isObj(u.completion_tokens_details)
        ? Number(u.completion_tokens_details.reasoning_tokens ?? 0)
        : 0;
      this.#usage = {
        input_tokens: c.usage.prompt_tokens,
        input_tokens_details: { cached_tokens: cached },
        output_tokens: c.usage.completion_tokens,
        output_tokens_details: { reasoning_tokens: reasoning },
        total_tokens: c.usage.total_tokens,
      };
    }
    for (const choice of c.choices ?? []) {
      const delta = (choice.delta ?? {}) as Obj;
      const thought = str(delta.reasoning_content) || str(delta.reasoning);
      if (thought !== "") out.push(...this.#reasoningDelta(thought));
      const text = str(delta.content);
      if (text !== "") out.push(...this.#textDelta(text));
      const calls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      for (const tc of calls) if (isObj(tc)) out.push(...this.#callDelta(tc));
    }
    return out;
  }

  #reasoningDelta(delta: string): ResponsesEvent[] {
    const out: ResponsesEvent[] = [];
    if (this.#reasoning === null) {
      this.#reasoning = {
        id: `rs_${this.id}_${this.#n++}`,
        outputIndex: this.#output.length,
        text: "",
      };
      this.#output.push({ type: "reasoning", id: this.#reasoning.id, summary: [] });
      out.push(
        this.#ev("response.output_item.added", {
          output_index: this.#reasoning.outputIndex,
          item: { type: "reasoning", id: this.#reasoning.id, summary: [] },
        }),
        this.#ev("response.reasoning_summary_part.added", {
          item_id: this.#reasoning.id,
          output_index: this.#reasoning.outputIndex,
          summary_index: 0,
          part: { type: "summary_text", text: "" },
        }),
      );
    }
    this.#reasoning.text += delta;
    out.push(
      this.#ev("response.reasoning_summary_text.delta", {
        item_id: this.#reasoning.id,
        output_index: this.#reasoning.outputIndex,
        summary_index: 0,
        delta,
      }),
    );
    return out;
  }

  #textDelta(delta: string): ResponsesEvent[] {
    const out: ResponsesEvent[] = [];
    if (this.#text === null) {
      this.#text = {
        id: `msg_${this.id}_${this.#n++}`,
        outputIndex: this.#output.length,
        text: "",
      };
      this.#output.push({ type: "message", id: this.#text.id });
      out.push(
        this.#ev("response.output_item.added", {
          output_index: this.#text.outputIndex,
          item: {
            type: "message",
            id: this.#text.id,
            role: "assistant",
            status: "in_progress",
            content: [],
          },
        }),
        this.#ev("response.content_part.added", {
          item_id: this.#text.id,
          output_index: this.#text.outputIndex,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] },
        }),
      );
    }
    this.#text.text += delta;
    out.push(
      this.#ev("response.output_text.delta", {
        item_id: this.#text.id,
        output_index: this.#text.outputIndex,
        content_index: 0,
        delta,
      }),
    );
    return out;
  }

  #callDelta(tc: Obj): ResponsesEvent[] {
    const index = typeof tc.index === "number" ? tc.index : this.#calls.size;
    const fn = isObj(tc.function) ? tc.function : {};
    let call = this.#calls.get(index);
    const out: ResponsesEvent[] = [];
    if (call === undefined) {
      const name = str(fn.name);
      call = {
        index,
        id: `fc_${this.id}_${this.#n++}`,
        callId: str(tc.id) || `call_${this.id}_${index}`,
        name,
        args: "",
        outputIndex: this.#output.length,
      };
      this.#calls.set(index, call);
      this.#output.push({ type: "function_call", id: call.id });
      if (!this.customTools.has(name)) {
        out.push(
          this.#ev("response.output_item.added", {
            output_index: call.outputIndex,
            item: this.#callItem(call, "in_progress"),
          }),
        );
      }
    } else if (str(fn.name) !== "" && call.name === "") call.name = str(fn.name);
    const args = str(fn.arguments);
    if (args !== "") {
      call.args += args;
      if (!this.customTools.has(call.name)) {
        out.push(
          this.#ev("response.function_call_arguments.delta", {
            item_id: call.id,
            output_index: call.outputIndex,
            delta: args,
          }),
        );
      }
    }
    return out;
  }

  #callItem(call: Call, status: string): Obj {
    if (this.customTools.has(call.name)) {
      let input = call.args;
      try {
        const parsed = JSON.parse(call.args) as unknown;
        if (isObj(parsed) && typeof parsed.input === "string") input = parsed.input;
      } catch {
        // a model that sent the raw text: passed on as it is
      }
      return {
        type: "custom_tool_call",
        id: call.id,
        call_id: call.callId,
        name: call.name,
        input,
        status,
      };
    }
    return {
      type: "function_call",
      id: call.id,
      call_id: call.callId,
      name: call.name,
      arguments: status === "in_progress" ? "" : call.args || "{}",
      status,
    };
  }

  /** The closing events: every open item done, then `response.completed` with output and usage. */
  finish(): ResponsesEvent[] {
    const out: ResponsesEvent[] = [];
    if (this.#reasoning !== null) {
      const r = this.#reasoning;
      const item = {
        type: "reasoning",
        id: r.id,
        summary: [{ type: "summary_text", text: r.text }],
      };
      this.#output[r.outputIndex] = item;
      out.push(
        this.#ev("response.reasoning_summary_text.done", {
          item_id: r.id,
          output_index: r.outputIndex,
          summary_index: 0,
          text: r.text,
        }),
        this.#ev("response.reasoning_summary_part.done", {
          item_id: r.id,
          output_index: r.outputIndex,
          summary_index: 0,
          part: { type: "summary_text", text: r.text },
        }),
        this.#ev("response.output_item.done", { output_index: r.outputIndex, item }),
      );
    }
    if (this.#text !== null) {
      const t = this.#text;
      const part = { type: "output_text", text: t.text, annotations: [] };
      const item = {
        type: "message",
        id: t.id,
        role: "assistant",
        status: "completed",
        content: [part],
      };
      this.#output[t.outputIndex] = item;
      out.push(
        this.#ev("response.output_text.done", {
          item_id: t.id,
          output_index: t.outputIndex,
          content_index: 0,
          text: t.text,
        }),
        this.#ev("response.content_part.done", {
          item_id: t.id,
          output_index: t.outputIndex,
          content_index: 0,
          part,
        }),
        this.#ev("response.output_item.done", { output_index: t.outputIndex, item }),
      );
    }
    for (const call of [...this.#calls.values()].sort((a, b) => a.outputIndex - b.outputIndex)) {
      const item = this.#callItem(call, "completed");
      this.#output[call.outputIndex] = item;
      if (!this.customTools.has(call.name)) {
        out.push(
          this.#ev("response.function_call_arguments.done", {
            item_id: call.id,
            output_index: call.outputIndex,
            arguments: call.args || "{}",
          }),
        );
      } else {
        out.push(this.#ev("response.output_item.added", { output_index: call.outputIndex, item }));
      }
      out.push(this.#ev("response.output_item.done", { output_index: call.outputIndex, item }));
    }
    this.#usage ??= {
      input_tokens: 0,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    };
    out.push(this.#ev("response.completed", { response: this.#response("completed") }));
    return out;
  }

  /** The closing event of a stream the upstream broke off. */
  fail(message: string, code = "upstream_error"): ResponsesEvent[] {
    return [this.#ev("response.failed", { response: this.#response("failed", { code, message }) })];
  }

  /** The whole response object after finish(), for a request that did not ask to stream. */
  completed(): Obj {
    return this.#response("completed");
  }
}
