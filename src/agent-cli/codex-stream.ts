// The one decoder of Codex's `exec --json` stream (issue 32): token usage, errors and failed
// turns, the final message, and what a tool call is — each tool item once by id, started or
// completed. The executor, the improver channel, the trajectory renderer and LAB's metrics all
// read through it, so they agree on the same stream. Pure: it reads text, never runs Codex, so a
// benchmark may use it (tests/architecture.test.ts).

import { readFileSync } from "node:fs";
import { jsonObjects } from "../core/lib/jsonl.ts";

/** Token usage of a Codex session: the sum of its `turn.completed` usages. */
export type CodexUsage = {
  turns: number;
  input: number;
  cached: number;
  output: number;
  reasoning: number;
};

const count = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;

/** The event ends a turn and carries that turn's usage (`turn.completed`). */
export const isCodexTurnCompleted = (event: Record<string, unknown>): boolean =>
  event.type === "turn.completed";

/** The event reports a failure: an `error` event (retry notices included) or a failed turn. */
export const isCodexFailure = (event: Record<string, unknown>): boolean =>
  event.type === "error" || event.type === "turn.failed";

/** Adds one decoded JSONL event to `usage` (only `turn.completed` carries any). */
export function addCodexUsage(usage: CodexUsage, event: unknown): void {
  if (event === null || typeof event !== "object") return;
  const e = event as Record<string, unknown>;
  if (!isCodexTurnCompleted(e)) return;
  const u = (e.usage ?? {}) as Record<string, unknown>;
  usage.turns++;
  usage.input += count(u.input_tokens);
  usage.cached += count(u.cached_input_tokens);
  usage.output += count(u.output_tokens);
  usage.reasoning += count(u.reasoning_output_tokens);
}

export const emptyUsage = (): CodexUsage => ({
  turns: 0,
  input: 0,
  cached: 0,
  output: 0,
  reasoning: 0,
});

/** What a finished Codex session printed, read from its stream. */
export type CodexStreamFacts = {
  events: number;
  usage: CodexUsage;
  /** Messages of `error` events and failed turns (retry notices included). */
  errors: string[];
  /** A turn failed: the session's work did not finish. */
  turnFailed: boolean;
  /** The text of the last non-blank `agent_message` item: the session's final message. */
  lastMessage: string;
  /** Tool calls (CodexToolCalls): each tool item once. */
  toolCalls: number;
};

const errorText = (v: unknown): string => {
  if (typeof v === "string") return v;
  if (v !== null && typeof v === "object") {
    const m = (v as Record<string, unknown>).message;
    if (typeof m === "string") return m;
  }
  return "";
};

/** Reads the facts of a saved stream; unreadable or malformed lines are skipped. */
export function readCodexStream(jsonl: string): CodexStreamFacts {
  const facts: CodexStreamFacts = {
    events: 0,
    usage: emptyUsage(),
    errors: [],
    turnFailed: false,
    lastMessage: "",
    toolCalls: 0,
  };
  const calls = new CodexToolCalls();
  for (const ev of jsonObjects(jsonl)) {
    facts.events++;
    addCodexUsage(facts.usage, ev);
    calls.see(ev);
    if (ev.type === "error") facts.errors.push(errorText(ev));
    if (ev.type === "item.completed") {
      const item = ev.item as Record<string, unknown> | null | undefined;
      const text = item?.type === "agent_message" ? item.text : undefined;
      if (typeof text === "string" && text.trim() !== "") facts.lastMessage = text;
    }
    if (ev.type === "turn.failed") {
      facts.turnFailed = true;
      facts.errors.push(errorText(ev.error));
    }
  }
  facts.errors = facts.errors.filter((m) => m !== "");
  facts.toolCalls = calls.count;
  return facts;
}

/**
 * The Codex items that are the agent using a tool (not its messages, reasoning or notices): what
 * the trajectory shows as [ACTION], what LAB counts as tool calls, what the stream facts count.
 */
export const CODEX_TOOL_ITEMS: ReadonlySet<string> = new Set([
  "command_execution",
  "file_change",
  "mcp_tool_call",
  "web_search",
]);

/** The tool item an event carries (started, updated or completed), or null. */
export function codexToolItem(event: unknown): Record<string, unknown> | null {
  if (event === null || typeof event !== "object") return null;
  const item = (event as Record<string, unknown>).item;
  if (item === null || typeof item !== "object") return null;
  const it = item as Record<string, unknown>;
  return CODEX_TOOL_ITEMS.has(String(it.type)) ? it : null;
}

/**
 * Counts a stream's tool calls the one way every reader counts them: each tool item once, by its
 * id, whichever of its events (started, updated, completed) arrive — a call cut off before it
 * completed is still a call. `see` says whether an event began a new one.
 */
export class CodexToolCalls {
  count = 0;
  readonly #seen = new Set<string>();

  see(event: unknown): boolean {
    const item = codexToolItem(event);
    if (item === null) return false;
    const id = item.id;
    if (id !== undefined && id !== null) {
      if (this.#seen.has(String(id))) return false;
      this.#seen.add(String(id));
    }
    this.count++;
    return true;
  }
}

/** The facts of the stream saved at `path`; a missing or unreadable file reads as no events. */
export function readCodexStreamFile(path: string): CodexStreamFacts {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    text = "";
  }
  return readCodexStream(text);
}
