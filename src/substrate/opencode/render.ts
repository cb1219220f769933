// Renders an OpenCode `--format json` event stream into the shared trajectory grammar
// (docs/method.md §2): [ASSISTANT] [THINKING] [ACTION] tool(args) [OBSERVATION] [OBSERVATION ERROR]
// [ERROR], plus one closing [HARNESS] session usage line summing the finished steps' tokens and
// cost, every event read through OpenCode's one stream decoder (agent-cli/opencode-stream.ts). Pure and total: any line, however malformed, degrades to nothing or to an [ERROR] — never a
// throw.

import { readFile } from "node:fs/promises";
import {
  isToolCall,
  type OpencodeEvent,
  type OpencodeStepUsage,
  OpencodeStreamTally,
  type OpencodeToolEvent,
  opencodeEvents,
} from "../../agent-cli/opencode-stream.ts";
import { asText, capTrajectory, clipText } from "../../core/evidence/clip.ts";

/** Clip of a tool call's JSON arguments (docs/method.md §2: 400 for OpenCode). */
export const ARGS_TRUNC = 400;
/** Clip of one [ERROR] message, with the clip marker (docs/differences.md H16). */
export const ERROR_TRUNC = 1000;

export type RenderOptions = {
  /** Clip of one observation / assistant / thinking text. */
  obsTrunc: number;
  /** Cap on the whole rendered trajectory (≤ 0: no cap). */
  maxChars: number;
  /** Clip of a tool call's JSON arguments (default ARGS_TRUNC). */
  argsTrunc?: number;
};

/** The lines of one tool event: [ACTION], then its observation when it has one. */
function toolLines(call: OpencodeToolEvent, o: Required<RenderOptions>): string[] {
  const args = call.input === undefined ? "" : clipText(call.input, o.argsTrunc);
  const lines = [`[ACTION] ${call.tool}(${args})`];
  if (call.status === "error") {
    lines.push(`[OBSERVATION ERROR] ${clipText(call.error ?? "(no error text)", o.obsTrunc)}`);
    return lines;
  }
  if (call.output !== undefined) {
    const text = asText(call.output);
    let line = `[OBSERVATION] ${text === "" ? "(empty output)" : clipText(text, o.obsTrunc)}`;
    if (call.exit !== undefined) line = `${line.trimEnd()} | exit_code=${call.exit}`;
    lines.push(line);
  } else if (call.status === "pending" || call.status === "running") {
    lines.push("[OBSERVATION] (no output: the call was still running when the event stream ended)");
  }
  return lines;
}

/** One event as rendered lines (none for a blank text or an event we do not show). */
function renderEvent(e: OpencodeEvent, o: Required<RenderOptions>): string[] {
  switch (e.kind) {
    case "text":
    case "reasoning": {
      if (e.text.trim() === "") return [];
      const tag = e.kind === "text" ? "ASSISTANT" : "THINKING";
      return [`[${tag}] ${clipText(e.text, o.obsTrunc)}`];
    }
    case "error":
      return [`[ERROR] ${clipText(e.message, ERROR_TRUNC)}`];
    case "tool":
      return toolLines(e, o);
    default:
      return [];
  }
}

/**
 * Fix docs/differences.md H16 (the original rendered no usage for OpenCode while Codex showed it):
 * one line for the whole session in the Codex `[HARNESS] … | tokens in= cached= out= reasoning=`
 * shape, plus the step count and, when the steps priced themselves, the summed USD. A per-step
 * line would add one line per model call to every trajectory; the total is what the improver
 * can act on. Only fixed words and numbers, so no verdict marker or forbidden word can appear.
 */
function usageLine(steps: readonly OpencodeStepUsage[]): string | undefined {
  if (steps.length === 0) return undefined;
  const sum = (f: (u: OpencodeStepUsage) => number) => steps.reduce((a, u) => a + f(u), 0);
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
  const tally = new OpencodeStreamTally();
  for (const e of opencodeEvents(jsonl)) {
    tally.see(e);
    const lines = renderEvent(e, o);
    if (lines.length === 0) continue;
    const key = isToolCall(e) ? e.key : undefined;
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
  const usage = usageLine(tally.stepUsages());
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
