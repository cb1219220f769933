// What a benchmark's judge is handed and gives back, and the paths a sweep recorded for it (never
// an imported sweep's): shared by the judge registry (bench-judges.ts) and the judges of the
// installed benchmarks (judge-benchmarks.ts), so neither imports the other.

import { IMPORTED_KEY } from "../../../store/transfer.ts";
import type { BenchSource } from "../../core/events/bench-source.ts";
import type { Scorer } from "../../core/seams/benchmark.ts";
import type { JudgeIdentity } from "../../judge/judge-identity.ts";

export type BenchJudge = { scorer: Scorer; identity: JudgeIdentity };

export type BenchJudgeContext = {
  /** The sweep's recorded configuration (`sweep.started.config`). */
  config: Readonly<Record<string, unknown>>;
  /** Where its benchmark came from, read typed from that configuration (null: none recorded). */
  source: BenchSource | null;
  /** The runs directory of the store being judged. */
  runsDir: string;
  env: Record<string, string | undefined>;
  /** `--tasks DIR`: the task folder, when the sweep did not record one. */
  tasksDir?: string;
};

/**
 * The file an imported sweep came from, or null for a sweep run into this store (import marks it:
 * store/transfer.ts markImported). The paths an imported sweep recorded are never trusted: its
 * task folder's scripts or its checkout's judge would be code from the file.
 */
export function importedFrom(config: Readonly<Record<string, unknown>>): string | null {
  const mark = config[IMPORTED_KEY];
  if (mark === undefined) return null;
  const file = (mark as { file?: unknown } | null)?.file;
  return typeof file === "string" ? file : "another store";
}

/**
 * A path the sweep's source recorded, unless the sweep was imported: an imported sweep's paths
 * are never trusted (its task folder's scripts or its checkout's judge would be code from the file).
 */
export function trustedPath(ctx: BenchJudgeContext, path: string | undefined): string | undefined {
  return importedFrom(ctx.config) === null ? path : undefined;
}
