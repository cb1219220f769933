// The one decoder of OpenCode's `run --format json` stream (issue 32): each line becomes one typed
// event — text, reasoning, a tool call, a finished step with its usage, an error, or something we
// do not use — and a tally reads a whole stream the one way every reader needs it: texts, errors,
// summed cost and tokens, and the tool calls, each call once by its id. The session runner, its
// step watchdog, the trajectory renderer and LAB's metrics all read through it, so they agree on
// the same run. Pure: it reads text, never runs OpenCode, so a benchmark may use it
// (tests/architecture.test.ts keeps OpenCode's event names in this file).

import { z } from "zod";
import { jsonObjectOf, jsonObjects, stringify } from "../core/lib/jsonl.ts";
import { roundUsd } from "../core/lib/money.ts";

/** One step's usage as OpenCode reports it in a finished step's part (its tokens and cost). */
export type OpencodeStepUsage = {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  /** The step's cost in dollars when the provider priced it; undefined, never 0, when not. */
  usd: number | undefined;
};

/** A tool call in one of its states (pending, running, completed, error). */
export type OpencodeToolEvent = {
  kind: "tool";
  /** The call's id (`callID`, else the part's id): later states of the same call share it. */
  key: string | undefined;
  tool: string;
  status: string;
  /** The call's arguments; undefined when absent (a present `{}` stays). */
  input: unknown;
  /** The call's output; undefined when absent. */
  output: unknown;
  /** The error of a call whose status is "error". */
  error: unknown;
  /** The exit code a command reported in its metadata, when not 0. */
  exit: number | undefined;
};

export type OpencodeEvent =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string }
  | OpencodeToolEvent
  | { kind: "step"; key: string | undefined; usage: OpencodeStepUsage }
  | { kind: "error"; message: string }
  | { kind: "other"; type: string | undefined };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const present = (v: unknown) => v !== undefined && v !== null;
const count = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;

/** The envelope of every line: a type, a part, and an error on error events. */
const Envelope = z.looseObject({
  type: z.unknown().optional(),
  part: z.unknown().optional(),
  error: z.unknown().optional(),
});

/** The part types that are a tool call (OpenCode's own `tool`, and the names other versions used). */
const TOOL_TYPES: ReadonlySet<string> = new Set([
  "tool",
  "tool_use",
  "tool_call",
  "tool-invocation",
]);

/** The message of an error event: its data's message, a string data, its message, its name. */
function errorMessage(error: unknown, event: Obj): string {
  if (typeof error === "string" && error.trim() !== "") return error;
  if (isObj(error)) {
    const data = error.data;
    // docs/differences.md H16: a string `data` is the message, not a crash.
    if (isObj(data) && str(data.message)?.trim()) return data.message as string;
    if (str(data)?.trim()) return data as string;
    if (str(error.message)?.trim()) return error.message as string;
    const name = str(error.name)?.trim();
    if (name) return name;
    return stringify(error).slice(0, 300);
  }
  return stringify(event).slice(0, 300);
}

function toolEvent(part: Obj, event: Obj): OpencodeToolEvent {
  const invocation = part.toolInvocation;
  const state = isObj(part.state) ? part.state : part;
  const meta = isObj(state.metadata) ? state.metadata : {};
  return {
    kind: "tool",
    key: str(part.callID) || str(part.id) || undefined,
    tool:
      str(part.tool) ||
      str(event.tool) ||
      str(part.name) ||
      (isObj(invocation) ? str(invocation.toolName) : undefined) ||
      "tool",
    status: str(state.status) ?? "",
    // docs/differences.md H16: a present-but-falsy input (`{}`) is kept; only null/absent is not.
    input: [state.input, part.input, part.args].find(present),
    output: [state.output, state.result, part.output].find(present),
    error: state.error,
    exit: typeof meta.exit === "number" && meta.exit !== 0 ? meta.exit : undefined,
  };
}

function stepUsage(p: Obj): OpencodeStepUsage {
  const t = isObj(p.tokens) ? p.tokens : {};
  const cache = isObj(t.cache) ? t.cache : {};
  const cost = p.cost;
  return {
    input: count(t.input),
    cached: count(cache.read),
    output: count(t.output),
    reasoning: count(t.reasoning),
    usd: typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : undefined,
  };
}

/** Decodes one parsed line. Total: anything that is not an event we use is `other`. */
export function decodeOpencodeEvent(json: unknown): OpencodeEvent {
  const env = Envelope.safeParse(json);
  if (!env.success || !isObj(json)) return { kind: "other", type: undefined };
  const event = json;
  if (present(env.data.error) && env.data.error !== false) {
    return { kind: "error", message: errorMessage(env.data.error, event) };
  }
  const part = isObj(env.data.part) ? env.data.part : event;
  // A list-valued or otherwise non-string type is ignored (docs/differences.md H16).
  const type = str(part.type) ?? str(event.type);
  if (type === "text" || type === "reasoning") {
    return { kind: type, text: str(part.text) ?? str(part.content) ?? "" };
  }
  if (type === "error") return { kind: "error", message: errorMessage(undefined, event) };
  if (type === "step-finish" || type === "step_finish" || event.type === "step_finish") {
    return { kind: "step", key: str(part.id), usage: stepUsage(part) };
  }
  if (type !== undefined && TOOL_TYPES.has(type)) return toolEvent(part, event);
  return { kind: "other", type };
}

/** Decodes one line of the stream; null when the line is not a JSON object. */
export function decodeOpencodeLine(raw: string): OpencodeEvent | null {
  const json = jsonObjectOf(raw);
  return json === null ? null : decodeOpencodeEvent(json);
}

export const isToolCall = (e: OpencodeEvent): e is OpencodeToolEvent => e.kind === "tool";

/** What a whole stream said (OpencodeStreamTally.facts). */
export type OpencodeStreamFacts = {
  /** Lines that were JSON objects. */
  events: number;
  /** Non-blank text parts, in order. */
  texts: string[];
  /** Non-blank error messages, in order. */
  errors: string[];
  /** The steps' summed cost, rounded like every recorded spend (0 when no step priced itself). */
  usd: number;
  /** Finished steps, each once by its id. */
  steps: number;
  tokens: { input: number; cached: number; output: number; reasoning: number };
  /** Tool calls, each once by its id, whichever of its states arrived. */
  toolCalls: number;
};

/**
 * Reads a stream event by event (as a session prints it, or from its saved file). A step or a tool
 * call seen again under the same id is the same one: its latest usage counts, never twice.
 */
export class OpencodeStreamTally {
  #events = 0;
  readonly #texts: string[] = [];
  readonly #errors: string[] = [];
  readonly #steps: OpencodeStepUsage[] = [];
  readonly #stepAt = new Map<string, number>();
  readonly #calls = new Set<string>();
  #keylessCalls = 0;

  /** Adds one event; says whether it began a new tool call. */
  see(e: OpencodeEvent): boolean {
    this.#events++;
    if (e.kind === "text" && e.text.trim() !== "") this.#texts.push(e.text);
    else if (e.kind === "error" && e.message !== "") this.#errors.push(e.message);
    else if (e.kind === "step") {
      const at = e.key === undefined ? undefined : this.#stepAt.get(e.key);
      if (at !== undefined) this.#steps[at] = e.usage;
      else {
        if (e.key !== undefined) this.#stepAt.set(e.key, this.#steps.length);
        this.#steps.push(e.usage);
      }
    } else if (e.kind === "tool") {
      if (e.key === undefined) {
        this.#keylessCalls++;
        return true;
      }
      if (this.#calls.has(e.key)) return false;
      this.#calls.add(e.key);
      return true;
    }
    return false;
  }

  facts(): OpencodeStreamFacts {
    const sum = (f: (u: OpencodeStepUsage) => number) => this.#steps.reduce((a, u) => a + f(u), 0);
    return {
      events: this.#events,
      texts: [...this.#texts],
      errors: [...this.#errors],
      usd: roundUsd(sum((u) => u.usd ?? 0)),
      steps: this.#steps.length,
      tokens: {
        input: sum((u) => u.input),
        cached: sum((u) => u.cached),
        output: sum((u) => u.output),
        reasoning: sum((u) => u.reasoning),
      },
      toolCalls: this.#calls.size + this.#keylessCalls,
    };
  }

  /** The finished steps' usages, in order (each step once, with its latest usage). */
  stepUsages(): readonly OpencodeStepUsage[] {
    return this.#steps;
  }
}

/** Reads a whole saved stream. */
export function readOpencodeStream(jsonl: string): OpencodeStreamFacts {
  const tally = new OpencodeStreamTally();
  for (const e of opencodeEvents(jsonl)) tally.see(e);
  return tally.facts();
}

/** Every decoded event of a saved stream, in order (for readers that walk the events). */
export function opencodeEvents(jsonl: string): OpencodeEvent[] {
  const out: OpencodeEvent[] = [];
  for (const json of jsonObjects(jsonl)) out.push(decodeOpencodeEvent(json));
  return out;
}
