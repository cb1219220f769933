// A LAB rollout's `metrics.json` (docs/benchmarks.md "LAB"): tokens, cost, wall time, tool calls,
// documents read and follow-ups, counted from the executor's own event stream through that CLI's
// one decoder (agent-cli/opencode-stream.ts, agent-cli/codex-stream.ts). A LAB run without
// it counts as failed, so it is written atomically after every normal finish.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  addCodexUsage,
  CodexToolCalls,
  codexToolItem,
  emptyUsage,
} from "../../agent-cli/codex-stream.ts";
import {
  decodeOpencodeEvent,
  isToolCall,
  OpencodeStreamTally,
} from "../../agent-cli/opencode-stream.ts";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { jsonObjects } from "../../core/lib/jsonl.ts";
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

/** Tokens, tool calls and documents read, from a stream of either executor. */
export function countStream(
  streamFile: string,
): Pick<LabMetrics, "tokens" | "toolCalls" | "documentsRead"> {
  const text = isRegularFile(streamFile) ? readFileSync(streamFile, "utf8") : "";
  // Each line is read by both CLIs' decoders, so a call or a usage is counted exactly as the
  // executor, the watchdog and the trajectory count it (issue 32); a line of one CLI is nothing to
  // the other's decoder.
  const codexCalls = new CodexToolCalls();
  const codexUsage = emptyUsage();
  const opencode = new OpencodeStreamTally();
  let documentsRead = 0;
  // An OpenCode call reads a document when any of its states' input names one; it counts once.
  const documentCalls = new Set<string>();
  const mentionsDocuments = (v: unknown) => JSON.stringify(v ?? null).includes("documents/");
  for (const json of jsonObjects(text)) {
    const e = decodeOpencodeEvent(json);
    const began = opencode.see(e);
    if (isToolCall(e) && mentionsDocuments(e.input)) {
      if (e.key === undefined) documentsRead += began ? 1 : 0;
      else if (!documentCalls.has(e.key)) {
        documentCalls.add(e.key);
        documentsRead++;
      }
    }
    addCodexUsage(codexUsage, json);
    if (codexCalls.see(json) && mentionsDocuments(codexToolItem(json))) documentsRead++;
  }
  const oc = opencode.facts();
  return {
    tokens: {
      input: oc.tokens.input + codexUsage.input,
      output: oc.tokens.output + codexUsage.output,
      reasoning: oc.tokens.reasoning + codexUsage.reasoning,
      cacheRead: oc.tokens.cached + codexUsage.cached,
    },
    toolCalls: oc.toolCalls + codexCalls.count,
    documentsRead,
  };
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
