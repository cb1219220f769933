// The rollout completion marker (docs/method.md §2): written only by code that saw the executor
// return normally, and read to decide whether a finished rollout may be reused. The presence of
// outputs alone never counts as completion, and a marker from another version or harness never
// matches.

import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { type Clock, SYSTEM_CLOCK } from "../events/sink.ts";
import { writeFileAtomic } from "../lib/atomic-write.ts";
import { RUN_MARK_FILE, treeFingerprint } from "../lib/fingerprint.ts";

export { RUN_MARK_FILE };

/**
 * Our marker layout. The original's layout was version 1 (snake_case keys, adapter extras merged
 * at the top level where they could override `version` or `harness`); version 2 keeps extras in
 * their own object, so a marker can never lie about what produced it, and a version-1 marker is
 * never adopted.
 */
export const RUN_MARK_VERSION = 2;

export const RunMark = z.object({
  version: z.number().int(),
  runId: z.string().min(1),
  /** Milliseconds since the epoch, from the run's Clock. */
  at: z.number(),
  /** treeFingerprint of the harness the rollout ran on ("base" for the adapter's own). */
  harness: z.string().min(1),
  /** treeFingerprint of the delivered output, or null when nothing was delivered. */
  outputFingerprint: z.string().nullable(),
  /** Adapter facts worth keeping (executor identity, model, …); never consulted for reuse. */
  extras: z.record(z.string(), z.unknown()),
});
export type RunMark = z.infer<typeof RunMark>;

export type WriteRunMarkOptions = {
  runId: string;
  /** treeFingerprint of the harness dir (or "base"), computed by the caller. */
  harnessFingerprint: string;
  /** Directory holding what the run delivered; null (default) when it delivered nothing. */
  outputDir?: string | null;
  extras?: Record<string, unknown>;
  clock?: Clock;
};

/**
 * Writes `<where>/.adapt_complete` atomically (temp file + rename) and returns its path.
 * Call it only after the executor returned normally: timeouts and failures leave no marker, so
 * the next attempt re-rolls instead of adopting a truncated rollout.
 */
export async function writeRunMark(where: string, opts: WriteRunMarkOptions): Promise<string> {
  // The mark is a few hundred bytes: synchronous I/O beats a thread-pool round trip per call.
  mkdirSync(where, { recursive: true });
  const outputDir = opts.outputDir ?? null;
  const output = outputDir === null ? null : await treeFingerprint(outputDir);
  const mark = RunMark.parse({
    version: RUN_MARK_VERSION,
    runId: opts.runId,
    at: (opts.clock ?? SYSTEM_CLOCK).now(),
    harness: opts.harnessFingerprint,
    // An output dir that does not exist delivered nothing: "absent" would later match "absent".
    outputFingerprint: output === "absent" ? null : output,
    extras: opts.extras ?? {},
  });
  const path = join(where, RUN_MARK_FILE);
  writeFileAtomic(path, `${JSON.stringify(mark, null, 2)}\n`);
  return path;
}

/** The parsed marker in `where`, or null when it is missing, unreadable or malformed. */
export async function readRunMark(where: string): Promise<RunMark | null> {
  try {
    const parsed = RunMark.safeParse(JSON.parse(readFileSync(join(where, RUN_MARK_FILE), "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Removes the marker (before a re-roll deletes the outputs it vouched for). */
export async function clearRunMark(where: string): Promise<void> {
  rmSync(join(where, RUN_MARK_FILE), { force: true });
}

export type RunMarkStatus =
  | { reusable: true; mark: RunMark }
  | { reusable: false; reason: "missing" | "version" | "harness"; message: string };

/** Whether the rollout marked in `where` finished under this version and this harness, and why not. */
export async function runMarkStatus(
  where: string,
  harnessFingerprint: string,
): Promise<RunMarkStatus> {
  const mark = await readRunMark(where);
  if (mark === null) {
    return {
      reusable: false,
      reason: "missing",
      message:
        "no completion mark: the run never finished, or finished before completion was recorded",
    };
  }
  if (mark.version !== RUN_MARK_VERSION) {
    return {
      reusable: false,
      reason: "version",
      message: `completion mark version ${mark.version} is not ${RUN_MARK_VERSION}: written by another release`,
    };
  }
  if (mark.harness !== harnessFingerprint) {
    return {
      reusable: false,
      reason: "harness",
      message: `harness fingerprint ${mark.harness} ≠ ${harnessFingerprint} now: the run was produced by a different configuration`,
    };
  }
  return { reusable: true, mark };
}

/** True when `where` holds a marker of this version whose harness fingerprint equals the given one. */
export async function isRunComplete(where: string, harnessFingerprint: string): Promise<boolean> {
  return (await runMarkStatus(where, harnessFingerprint)).reusable;
}

/**
 * Resume's "adopted output intact" check: the marker in `where` recorded an output fingerprint and
 * `outputDir` still has exactly that fingerprint. A run that delivered nothing is never intact.
 */
export async function isOutputIntact(where: string, outputDir: string): Promise<boolean> {
  const mark = await readRunMark(where);
  if (mark === null || mark.outputFingerprint === null) return false;
  return mark.outputFingerprint === (await treeFingerprint(outputDir));
}
