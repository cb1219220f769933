// Renders a Codex `exec --json` event stream (or a rollout file of `~/.codex/sessions`, whose lines
// carry a `payload`) into the shared trajectory grammar (docs/method.md §2): [ACTION] shell:
// [OBSERVATION] [OBSERVATION ERROR] [ASSISTANT] [REASONING] [USER] [HARNESS AGENTS.md] [HARNESS]
// [ERROR], a usage line per finished turn, and one closing session usage line in the same shape as
// the OpenCode renderer's. Pure and total: a malformed line degrades to nothing, never a throw.

import { readFile } from "node:fs/promises";
import {
  addCodexUsage,
  emptyUsage,
  isCodexFailure,
  isCodexTurnCompleted,
} from "../../agent-cli/codex-stream.ts";
import { asText, capTrajectory, clipText } from "../../core/evidence/clip.ts";
import { jsonObjects, stringify } from "../../core/lib/jsonl.ts";

/** Clip of a shell command (docs/method.md §2: 2,000 for Codex). */
export const CODEX_ARGS_TRUNC = 2000;
/** Clip of one [ERROR] or [HARNESS] message. */
export const CODEX_ERROR_TRUNC = 1000;
/** Longest text kept of one step of the agent's plan (Codex's plan item, one line per step). */
const PLAN_ROW_TRUNC = 200;

export type CodexRenderOptions = {
  obsTrunc: number;
  maxChars: number;
  argsTrunc?: number;
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const blank = (s: string) => s.trim() === "";

const TEXT_KEYS = ["text", "message", "content", "summary"] as const;

/** The readable text of a value: a string, an object's first non-blank text field, a list's texts. */
export function textOf(x: unknown): string {
  if (typeof x === "string") return x;
  if (Array.isArray(x)) {
    return x
      .map(textOf)
      .filter((t) => !blank(t))
      .join("\n");
  }
  if (isObj(x)) {
    for (const key of TEXT_KEYS) {
      const v = x[key];
      if (typeof v === "string") {
        if (!blank(v)) return v;
        continue;
      }
      if (v !== null && typeof v === "object") {
        const t = textOf(v);
        if (!blank(t)) return t;
      }
    }
  }
  return "";
}

const AGENTS_MD = /^\s*# AGENTS\.md instructions/;

function userLine(text: string, obsTrunc: number): string | null {
  if (blank(text)) return null;
  const tag = AGENTS_MD.test(text) ? "HARNESS AGENTS.md" : "USER";
  return `[${tag}] ${clipText(text, obsTrunc)}`;
}

const num = (v: unknown): string => (typeof v === "number" ? String(v) : "null");

function turnUsageLine(usage: Obj): string {
  return `[HARNESS] turn completed | tokens in=${num(usage.input_tokens)} cached=${num(usage.cached_input_tokens)} out=${num(usage.output_tokens)} reasoning=${num(usage.reasoning_output_tokens)}`;
}

function commandLines(item: Obj, o: Required<CodexRenderOptions>): string[] {
  const lines = [
    `[ACTION] shell: ${clipText(str(item.command) ?? stringify(item.command), o.argsTrunc)}`,
  ];
  const code = item.exit_code;
  const status = str(item.status) ?? "";
  // Trailing newlines trimmed, so the exit-code note stays on the observation's last line.
  const output = asText(item.aggregated_output).replace(/\s+$/, "");
  const failed = status === "failed" || (typeof code === "number" && code !== 0);
  if (status === "in_progress" && blank(output)) {
    lines.push(
      "[OBSERVATION] (no output captured: the command was still in progress when the stream ended)",
    );
    return lines;
  }
  const suffix = typeof code === "number" && code !== 0 ? ` | exit_code=${code}` : "";
  lines.push(`[OBSERVATION${failed ? " ERROR" : ""}] ${clipText(output, o.obsTrunc)}${suffix}`);
  return lines;
}

/**
 * A file edit (apply_patch), which the original hid from the improver (docs/differences.md X18):
 * one line naming each changed path and how it changed.
 */
function fileChangeLine(item: Obj, o: Required<CodexRenderOptions>): string | null {
  const changes = Array.isArray(item.changes) ? item.changes : [];
  const parts = changes
    .filter(isObj)
    .map((c) => `${str(c.kind) ?? "change"} ${str(c.path) ?? "?"}`);
  if (parts.length === 0) return null;
  const failed = item.status === "failed" ? " (failed)" : "";
  return `[ACTION] file_change: ${clipText(parts.join(", "), o.argsTrunc)}${failed}`;
}

function renderItem(item: Obj, o: Required<CodexRenderOptions>): string[] {
  const type = str(item.type) ?? "";
  switch (type) {
    case "command_execution":
      return commandLines(item, o);
    case "agent_message": {
      const t = asText(item.text);
      return blank(t) ? [] : [`[ASSISTANT] ${clipText(t, o.obsTrunc)}`];
    }
    case "reasoning": {
      const t = textOf(item);
      return blank(t) ? [] : [`[REASONING] ${clipText(t, o.obsTrunc)}`];
    }
    case "todo_list": {
      const rows = (Array.isArray(item.items) ? item.items : [])
        .filter(isObj)
        .map(
          (r) =>
            `${r.completed === true ? "[x]" : "[ ]"} ${clipText(asText(r.text), PLAN_ROW_TRUNC)}`,
        );
      return rows.length === 0 ? [] : [`[ASSISTANT] plan: ${rows.join(" | ")}`];
    }
    case "error":
      return [`[HARNESS] ${clipText(asText(item.message), CODEX_ERROR_TRUNC)}`];
    case "user_message":
    case "message": {
      const line = userLine(textOf(item), o.obsTrunc);
      return line === null ? [] : [line];
    }
    case "file_change": {
      const line = fileChangeLine(item, o);
      return line === null ? [] : [line];
    }
    // Every tool item is an action, as its reader counts it (agent-cli/codex.ts CODEX_TOOL_ITEMS).
    case "mcp_tool_call": {
      const what = `${str(item.server) ?? "?"}.${str(item.tool) ?? "?"}`;
      const args = item.arguments === undefined ? "" : ` ${stringify(item.arguments)}`;
      const failed = item.status === "failed" ? " (failed)" : "";
      return [`[ACTION] mcp_tool_call: ${clipText(`${what}${args}`, o.argsTrunc)}${failed}`];
    }
    case "web_search": {
      const query = asText(item.query) || textOf(item);
      return [
        `[ACTION] web_search: ${blank(query) ? "(no query recorded)" : clipText(query, o.argsTrunc)}`,
      ];
    }
    default: {
      const t = textOf(item);
      return blank(t) ? [] : [`[HARNESS] ${type || "item"}: ${clipText(t, o.obsTrunc)}`];
    }
  }
}

function renderPayload(p: Obj, o: Required<CodexRenderOptions>): string[] {
  const type = str(p.type) ?? "";
  switch (type) {
    case "function_call": {
      let args: unknown = p.arguments;
      if (typeof args === "string") {
        try {
          args = JSON.parse(args);
        } catch {
          // kept as the raw string
        }
      }
      const command = isObj(args) && args.cmd !== undefined ? args.cmd : args;
      const shown = typeof command === "string" ? command : stringify(command);
      return [`[ACTION] ${str(p.name) ?? "shell"}: ${clipText(shown, o.argsTrunc)}`];
    }
    case "custom_tool_call":
      // apply_patch and other free-form calls: shown, not dropped (docs/differences.md X18).
      return [`[ACTION] ${str(p.name) ?? "custom"}: ${clipText(asText(p.input), o.argsTrunc)}`];
    case "function_call_output":
    case "custom_tool_call_output": {
      const t = textOf(p.output) || asText(p.output);
      return [`[OBSERVATION] ${clipText(t, o.obsTrunc)}`];
    }
    case "message": {
      const text = textOf(p);
      if (blank(text)) return [];
      const role = str(p.role);
      if (role === "user") {
        const line = userLine(text, o.obsTrunc);
        return line === null ? [] : [line];
      }
      const tag = role === "assistant" ? "ASSISTANT" : `HARNESS ${role ?? "message"}`;
      return [`[${tag}] ${clipText(text, o.obsTrunc)}`];
    }
    case "user_message": {
      const line = userLine(textOf(p), o.obsTrunc);
      return line === null ? [] : [line];
    }
    case "agent_message": {
      const t = textOf(p);
      return blank(t) ? [] : [`[ASSISTANT] ${clipText(t, o.obsTrunc)}`];
    }
    case "reasoning": {
      const t = textOf(p);
      return blank(t) ? [] : [`[REASONING] ${clipText(t, o.obsTrunc)}`];
    }
    default:
      return [];
  }
}

function errorLines(e: Obj): string[] {
  const err = e.error;
  const text =
    (err !== undefined ? textOf(err) || (typeof err === "string" ? err : "") : "") ||
    textOf(e) ||
    stringify(e).slice(0, 300);
  return [`[ERROR] ${clipText(text, CODEX_ERROR_TRUNC)}`];
}

/**
 * Renders a whole stream. Events of one item (started, updated, completed) are rendered once, at
 * the position of the first, with the latest state; identical consecutive payload lines (rollout
 * files repeat messages) are shown once. The session usage line comes last, after the cap.
 */
export function renderCodexTrajectory(jsonl: string, opts: CodexRenderOptions): string {
  const o: Required<CodexRenderOptions> = { argsTrunc: CODEX_ARGS_TRUNC, ...opts };
  const blocks: string[][] = [];
  const byId = new Map<string, number>();
  const usage = emptyUsage();
  let lastPayloadLine = "";
  for (const e of jsonObjects(jsonl.replaceAll("\0", ""))) {
    if (isObj(e.item)) {
      const lines = renderItem(e.item, o);
      const id = e.item.id;
      const key = id === undefined || id === null ? undefined : String(id);
      const at = key === undefined ? undefined : byId.get(key);
      if (at !== undefined) {
        blocks[at] = lines;
        continue;
      }
      if (key !== undefined) byId.set(key, blocks.length);
      blocks.push(lines);
      continue;
    }
    if (isObj(e.payload)) {
      const lines = renderPayload(e.payload, o).filter((l) => {
        const repeat = l === lastPayloadLine;
        lastPayloadLine = l;
        return !repeat;
      });
      blocks.push(lines);
      continue;
    }
    if (isCodexTurnCompleted(e)) {
      if (isObj(e.usage)) {
        addCodexUsage(usage, e);
        blocks.push([turnUsageLine(e.usage)]);
      }
      continue;
    }
    if (isCodexFailure(e) || isObj(e.error) || typeof e.error === "string") {
      blocks.push(errorLines(e));
    }
  }
  const text = blocks
    .map((b) => b.join("\n"))
    .filter((b) => b !== "")
    .join("\n")
    .trim();
  const closing =
    usage.turns === 0
      ? undefined
      : `[HARNESS] session usage | turns=${usage.turns} tokens in=${usage.input} cached=${usage.cached} out=${usage.output} reasoning=${usage.reasoning}`;
  if (text === "") return closing ?? "(no parseable events in trajectory)";
  const capped = capTrajectory(text, o.maxChars);
  return closing === undefined ? capped : `${capped}\n${closing}`;
}

/** Renders the stream saved at `path`; an unreadable file renders as one explanatory line. */
export async function renderCodexTrajectoryFile(
  path: string,
  opts: CodexRenderOptions,
): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    return `(failed to read trajectory: ${(err as Error).message})`;
  }
  return renderCodexTrajectory(text, opts);
}

/** The last non-blank agent message of a stream (items, payloads, or a task_complete payload). */
export function finalCodexMessage(jsonl: string): string {
  let last = "";
  for (const e of jsonObjects(jsonl)) {
    const item = isObj(e.item) ? e.item : isObj(e.payload) ? e.payload : null;
    if (item === null) continue;
    const text =
      item.type === "agent_message"
        ? textOf(item)
        : item.type === "task_complete"
          ? asText(item.last_agent_message)
          : "";
    if (!blank(text)) last = text;
  }
  return last;
}
