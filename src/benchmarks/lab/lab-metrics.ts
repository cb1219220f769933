// A LAB rollout's `metrics.json` (docs/benchmarks.md "LAB"): tokens, cost, wall time, tool calls,
// documents read and follow-ups, counted from the executor's own event stream (OpenCode's
// `step_finish`/`tool_use` events, or Codex's `turn.completed`/`item.completed`). A LAB run without
// it counts as failed, so it is written atomically after every normal finish.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CodexToolCalls } from "../../clis/codex-stream.ts";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { isRegularFile } from "../../core/lib/safe-fs.ts";

export const METRICS_FILE = "metrics.json";

export type LabMetrics = {
  tokens: { input: number; output: number; reasoning: number; cacheRead: number };
  costUsd: number | null;
  wallS: number;
  toolCalls: number;
  /** Tool calls whose input names a file under documents/. */
  documentsRead: number;
  nudges: number;
  model: string;
};

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Tokens, tool calls and documents read, from a stream of either executor. */
export function countStream(
  streamFile: string,
): Pick<LabMetrics, "tokens" | "toolCalls" | "documentsRead"> {
  const tokens = { input: 0, output: 0, reasoning: 0, cacheRead: 0 };
  let toolCalls = 0;
  let documentsRead = 0;
  // Codex's calls are counted as its reader counts them (clis/codex.ts): each tool item once.
  const codexCalls = new CodexToolCalls();
  const text = isRegularFile(streamFile) ? readFileSync(streamFile, "utf8") : "";
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    let e: Json;
    try {
      e = JSON.parse(line) as Json;
    } catch {
      continue;
    }
    const part = obj(e.part);
    const item = obj(e.item);
    if (e.type === "step_finish") {
      const t = obj(part.tokens);
      tokens.input += num(t.input);
      tokens.output += num(t.output);
      tokens.reasoning += num(t.reasoning);
      tokens.cacheRead += num(obj(t.cache).read);
    } else if (e.type === "turn.completed") {
      const u = obj(e.usage);
      tokens.input += num(u.input_tokens);
      tokens.output += num(u.output_tokens);
      tokens.cacheRead += num(u.cached_input_tokens);
      tokens.reasoning += num(u.reasoning_output_tokens);
    }
    if (e.type === "tool_use") {
      toolCalls++;
      if (JSON.stringify(obj(obj(part.state).input)).includes("documents/")) documentsRead++;
    } else if (codexCalls.see(e)) {
      toolCalls++;
      if (JSON.stringify(item).includes("documents/")) documentsRead++;
    }
  }
  return { tokens, toolCalls, documentsRead };
}

/** Writes `<runDir>/metrics.json` whole (a temp file renamed over it). */
export function writeMetrics(runDir: string, metrics: LabMetrics): void {
  const path = join(runDir, METRICS_FILE);
  writeFileAtomic(path, `${JSON.stringify(metrics, null, 2)}\n`);
}

export function hasMetrics(runDir: string): boolean {
  try {
    JSON.parse(readFileSync(join(runDir, METRICS_FILE), "utf8"));
    return true;
  } catch {
    return false;
  }
}
