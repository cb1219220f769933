// Renders an OpenCode `--format json` event stream into the shared trajectory grammar
// (docs/method.md §2): [ASSISTANT] [THINKING] [ACTION] tool(args) [OBSERVATION] [OBSERVATION ERROR]
// [ERROR], plus one closing [HARNESS] session usage line summing the step_finish events' tokens and
// cost. Pure and total: any line, however malformed, degrades to nothing or to an [ERROR] — never a
// throw.

import { readFile } from "node:fs/promises";
import { asText, capTrajectory, clipText, stringify } from "../../core/evidence/clip.ts";
import { jsonObjects } from "../../core/lib/jsonl.ts";

/** Clip of a tool call's JSON arguments (docs/method.md §2: 400 for OpenCode). */
export const ARGS_TRUNC = 400;
/** Clip of one [ERROR] message, with the clip marker (docs/differences.md H16). */
export const ERROR_TRUNC = 1000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const present = (v: unknown) => v !== undefined && v !== null;

const TOOL_TYPES: ReadonlySet<string> = new Set([
  "tool",
  "tool_use",
  "tool_call",
  "tool-invocation",
]);

export type RenderOptions = {
  /** Clip of one observation / assistant / thinking text. */
  obsTrunc: number;
  /** Cap on the whole rendered trajectory (≤ 0: no cap). */
  maxChars: number;
  /** Clip of a tool call's JSON arguments (default ARGS_TRUNC). */
  argsTrunc?: number;
};

function errorMessage(error: unknown, event: Obj): string {
  if (typeof error === "string" && error.trim() !== "") return error;
  if (isObj(error)) {
    const data = error.data;
    // Fix docs/differences.md H16: a string `data` is the message, not a crash.
    if (isObj(data) && str(data.message)?.trim()) return data.message as string;
    if (str(data)?.trim()) return data as string;
    if (str(error.message)?.trim()) return error.message as string;
    const name = str(error.name)?.trim();
    if (name) return name;
    return stringify(error).slice(0, 300);
  }
  return stringify(event).slice(0, 300);
}

function toolName(part: Obj, event: Obj): string {
  const invocation = part.toolInvocation;
  return (
    str(part.tool) ||
    str(event.tool) ||
    str(part.name) ||
    (isObj(invocation) ? str(invocation.toolName) : undefined) ||
    "tool"
  );
}

/** The lines of one tool event: [ACTION], then its observation when it has one. */
function toolLines(part: Obj, event: Obj, o: Required<RenderOptions>): string[] {
  const state = isObj(part.state) ? part.state : part;
  const status = str(state.status) ?? "";
  // Fix docs/differences.md H16: present-but-falsy inputs (`{}`) render; only null/absent fall
  // through.
  const input = [state.input, part.input, part.args].find(present);
  const args = input === undefined ? "" : clipText(input, o.argsTrunc);
  const lines = [`[ACTION] ${toolName(part, event)}(${args})`];
  if (status === "error") {
    lines.push(`[OBSERVATION ERROR] ${clipText(state.error ?? "(no error text)", o.obsTrunc)}`);
    return lines;
  }
  const output = [state.output, state.result, part.output].find(present);
  if (output !== undefined) {
    const text = asText(output);
    let line = `[OBSERVATION] ${text === "" ? "(empty output)" : clipText(text, o.obsTrunc)}`;
    const meta = isObj(state.metadata) ? state.metadata : {};
    if (typeof meta.exit === "number" && meta.exit !== 0) {
      line = `${line.trimEnd()} | exit_code=${meta.exit}`;
    }
    lines.push(line);
  } else if (status === "pending" || status === "running") {
    lines.push("[OBSERVATION] (no output: the call was still running when the event stream ended)");
  }
  return lines;
}

/**
 * One event as rendered lines plus, for a tool event, the key that identifies its call (a later
 * event with the same key replaces it in place).
 */
function renderEvent(event: Obj, o: Required<RenderOptions>): { lines: string[]; key?: string } {
  if (present(event.error) && event.error !== false) {
    return { lines: [`[ERROR] ${clipText(errorMessage(event.error, event), ERROR_TRUNC)}`] };
  }
  const part = isObj(event.part) ? event.part : event;
  // A list-valued or otherwise non-string type is ignored (docs/differences.md H16).
  const type = str(part.type) ?? str(event.type);
  if (type === undefined) return { lines: [] };
  if (type === "text" || type === "reasoning") {
    const text = str(part.text) ?? str(part.content);
    if (text === undefined || text.trim() === "") return { lines: [] };
    const tag = type === "text" ? "ASSISTANT" : "THINKING";
    return { lines: [`[${tag}] ${clipText(text, o.obsTrunc)}`] };
  }
  if (type === "error") {
    return { lines: [`[ERROR] ${clipText(errorMessage(undefined, event), ERROR_TRUNC)}`] };
  }
  if (TOOL_TYPES.has(type)) {
    const key = str(part.callID) || str(part.id);
    return { lines: toolLines(part, event, o), key };
  }
  return { lines: [] };
}

/** One step's usage as OpenCode reports it in `step_finish.part` (docs/architecture.md "Agent CLIs offline"). */
type StepUsage = {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  usd: number | undefined;
};

const count = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;

/** The usage of a step_finish event, or undefined when `event` is not one. */
function stepUsage(event: Obj): { usage: StepUsage; key?: string } | undefined {
  const part = isObj(event.part) ? event.part : undefined;
  if (str(event.type) !== "step_finish" && str(part?.type) !== "step-finish") return undefined;
  const p = part ?? event;
  const t = isObj(p.tokens) ? p.tokens : {};
  const cache = isObj(t.cache) ? t.cache : {};
  const cost = p.cost;
  return {
    usage: {
      input: count(t.input),
      cached: count(cache.read),
      output: count(t.output),
      reasoning: count(t.reasoning),
      usd: typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : undefined,
    },
    key: str(p.id),
  };
}

/**
 * Fix docs/differences.md H16 (the original rendered no usage for OpenCode while Codex showed it):
 * one line for the whole session in the Codex `[HARNESS] … | tokens in= cached= out= reasoning=`
 * shape, plus the step count and, when the steps priced themselves, the summed USD. A per-step
 * line would add one line per model call to every trajectory; the total is what the improver
 * can act on. Only fixed words and numbers, so no verdict marker or forbidden word can appear.
 */
function usageLine(steps: readonly StepUsage[]): string | undefined {
  if (steps.length === 0) return undefined;
  const sum = (f: (u: StepUsage) => number) => steps.reduce((a, u) => a + f(u), 0);
  const priced = steps.filter((u) => u.usd !== undefined);
  const usd = priced.length > 0 ? ` usd=${sum((u) => u.usd ?? 0).toFixed(6)}` : "";
  return `[HARNESS] session usage | steps=${steps.length} tokens in=${sum((u) => u.input)} cached=${sum((u) => u.cached)} out=${sum((u) => u.output)} reasoning=${sum((u) => u.reasoning)}${usd}`;
}

/** Renders a whole JSONL stream. Repeated states of one tool call are rendered once, at the
 * position of the first, with the latest state (fix docs/differences.md H16). The usage line comes
 * last, so the middle cut of an over-long trajectory always keeps it. */
export function renderTrajectory(jsonl: string, opts: RenderOptions): string {
  const o: Required<RenderOptions> = { argsTrunc: ARGS_TRUNC, ...opts };
  const blocks: string[][] = [];
  const byKey = new Map<string, number>();
  const steps: StepUsage[] = [];
  const stepByKey = new Map<string, number>();
  for (const parsed of jsonObjects(jsonl)) {
    const step = present(parsed.error) && parsed.error !== false ? undefined : stepUsage(parsed);
    if (step !== undefined) {
      const at = step.key === undefined ? undefined : stepByKey.get(step.key);
      if (at !== undefined) steps[at] = step.usage;
      else {
        if (step.key !== undefined) stepByKey.set(step.key, steps.length);
        steps.push(step.usage);
      }
      continue;
    }
    const { lines, key } = renderEvent(parsed, o);
    if (lines.length === 0) continue;
    const at = key === undefined ? undefined : byKey.get(key);
    if (at !== undefined) {
      blocks[at] = lines;
      continue;
    }
    if (key !== undefined) byKey.set(key, blocks.length);
    blocks.push(lines);
  }
  const text = blocks
    .map((b) => b.join("\n"))
    .join("\n")
    .trim();
  const usage = usageLine(steps);
  if (text === "") return usage ?? "(no parseable events in trajectory)";
  if (usage === undefined) return capTrajectory(text, o.maxChars);
  // The cap applies to the content; the one short usage line is added after it, never cut (like
  // the middle marker, it may take the text a line past maxChars).
  return `${capTrajectory(text, o.maxChars)}\n${usage}`;
}

/** Renders the stream saved at `path`; an unreadable file renders as one explanatory line. */
export async function renderTrajectoryFile(path: string, opts: RenderOptions): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    return `(failed to read trajectory: ${(err as Error).message})`;
  }
  return renderTrajectory(text, opts);
}
