// The bridge's way in (docs/architecture.md "The bridge"): a Responses-API request as Codex sends
// it becomes a chat-completions request (the way back is responses-stream.ts). Pure: no network.
//
// What crosses: instructions and messages (developer → system), function calls and their outputs,
// free-form ("custom") tools such as apply_patch as one-string-argument functions, text and
// reasoning deltas, usage. What does not: hosted tools (web_search, namespaces of sub-agent
// tools), encrypted reasoning, images (a text note says one was left out).

import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { z } from "zod";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The part of a Responses request the bridge reads; everything else is ignored. */
export const ResponsesRequest = z.looseObject({
  model: z.string().min(1, "model is required"),
  instructions: z.string().nullish(),
  input: z.union([z.string(), z.array(z.unknown())]),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  stream: z.boolean().nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

/** The text of a Responses content list (input_text, output_text, text parts). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const out: string[] = [];
  for (const part of content) {
    if (!isObj(part)) continue;
    if (typeof part.text === "string") out.push(part.text);
    else if (part.type === "input_image" || part.type === "input_file") {
      out.push(
        `[the bridge left out an ${part.type === "input_image" ? "image" : "attached file"}]`,
      );
    }
  }
  return out.join("\n");
}

/** A call's output as text (a string, or a list of content parts). */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  const text = contentText(output);
  return text !== "" ? text : JSON.stringify(output ?? "");
}

export type Translated = {
  chat: ChatCompletionCreateParamsStreaming;
  /** Names of free-form tools: their calls go back to Codex as custom_tool_call items. */
  customTools: ReadonlySet<string>;
};

/**
 * The chat-completions request for a Responses request. `model` overrides the request's model
 * when given (the upstream's own id).
 */
export function toChat(req: ResponsesRequest, model?: string): Translated {
  const messages: ChatCompletionMessageParam[] = [];
  if (req.instructions) messages.push({ role: "system", content: req.instructions });
  const items =
    typeof req.input === "string"
      ? [{ type: "message", role: "user", content: req.input }]
      : req.input;
  // Consecutive calls of one model turn become one assistant message with several tool calls.
  let open: Extract<ChatCompletionMessageParam, { role: "assistant" }> | null = null;
  const call = (id: string, name: string, args: string) => {
    if (open === null) {
      open = { role: "assistant", content: null, tool_calls: [] };
      messages.push(open);
    }
    open.tool_calls = [
      ...(open.tool_calls ?? []),
      { id, type: "function", function: { name, arguments: args } },
    ];
  };
  for (const raw of items) {
    if (!isObj(raw)) continue;
    const type = str(raw.type) || (raw.role !== undefined ? "message" : "");
    if (type === "function_call") {
      call(str(raw.call_id) || str(raw.id), str(raw.name), str(raw.arguments) || "{}");
      continue;
    }
    if (type === "custom_tool_call") {
      call(
        str(raw.call_id) || str(raw.id),
        str(raw.name),
        JSON.stringify({ input: str(raw.input) }),
      );
      continue;
    }
    if (type === "function_call_output" || type === "custom_tool_call_output") {
      messages.push({
        role: "tool",
        tool_call_id: str(raw.call_id),
        content: outputText(raw.output),
      });
      continue;
    }
    if (type !== "message") continue; // reasoning items and anything else stay on this side
    const text = contentText(raw.content);
    const role = str(raw.role);
    if (role === "assistant") {
      open = { role: "assistant", content: text };
      messages.push(open);
      continue;
    }
    open = null;
    if (text === "") continue;
    messages.push({
      role: role === "developer" || role === "system" ? "system" : "user",
      content: text,
    });
  }
  const tools: ChatCompletionTool[] = [];
  const customTools = new Set<string>();
  for (const t of req.tools ?? []) {
    if (!isObj(t)) continue;
    if (t.type === "function" && str(t.name) !== "") {
      tools.push({
        type: "function",
        function: {
          name: str(t.name),
          ...(typeof t.description === "string" ? { description: t.description } : {}),
          parameters: isObj(t.parameters) ? t.parameters : { type: "object", properties: {} },
        },
      });
    } else if (t.type === "custom" && str(t.name) !== "") {
      customTools.add(str(t.name));
      tools.push({
        type: "function",
        function: {
          name: str(t.name),
          description:
            `${str(t.description)}\n(Free-form tool: put the whole input in the "input" string.)`.trim(),
          parameters: {
            type: "object",
            properties: { input: { type: "string" } },
            required: ["input"],
          },
        },
      });
    }
  }
  const chat: ChatCompletionCreateParamsStreaming = {
    model: model ?? req.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(tools.length > 0 ? { tools } : {}),
    ...(tools.length > 0 && typeof req.parallel_tool_calls === "boolean"
      ? { parallel_tool_calls: req.parallel_tool_calls }
      : {}),
    ...(tools.length > 0 &&
    (req.tool_choice === "auto" || req.tool_choice === "required" || req.tool_choice === "none")
      ? { tool_choice: req.tool_choice }
      : {}),
    ...(req.max_output_tokens ? { max_tokens: req.max_output_tokens } : {}),
    ...(typeof req.temperature === "number" ? { temperature: req.temperature } : {}),
  };
  return { chat, customTools };
}
