// Resume (docs/method.md §11): decides, from a task's record and the artifacts on disk, which
// requested modes are finished and intact, so only the rest re-runs; and replays intact adoptions
// into the library. It trusts nothing the record says about the adopted output without re-reading
// it.

import { createHash } from "node:crypto";
import type { ModeToken } from "../events/registry.ts";
import { isTree, readTree, type SurfaceSpec } from "../harness/tree.ts";
import { describeError } from "../lib/errors.ts";
import { treeFingerprint } from "../lib/fingerprint.ts";
import { dirExists } from "../lib/safe-fs.ts";
import type { Library } from "../library/library.ts";
import { expectedRollouts, expectedSessions } from "../recursion/ledger.ts";
import { ModeRecord } from "../recursion/records.ts";
import type { BenchmarkAdapter } from "../seams/benchmark.ts";
import {
  modeSucceeded,
  readSummary,
  type SelectionRecord,
  type SummaryRead,
  type TaskSummary,
} from "./summary.ts";

/**
 * Where a task's last record comes from. Commands resume from the SQLite store (the system of
 * record, docs/architecture.md "Files and the store"): src/cli/sweep/store-resume.ts builds this record
 * from store rows, and a task the store does not know is "missing" even when a summary.json exists.
 * Core knows no store; the skip decision below is the same whichever source answers.
 */
export interface TaskRecordSource {
  read(taskId: string, taskDir: string): Promise<SummaryRead>;
}

/**
 * Reads `<agg ns task dir>/summary.json`: the source for callers without a store (tests, library
 * use of the scheduler). Not what `harness2 run` or `demo` use.
 */
export const SUMMARY_FILE_SOURCE: TaskRecordSource = {
  read: async (_taskId, taskDir) => readSummary(taskDir),
};

/** The adapter members resume re-reads the adopted output through. */
export type ResumeAdapter = Pick<
  BenchmarkAdapter,
  "spec" | "delivered" | "deliverableText" | "trajectory" | "artifactsIntact"
>;

/** The adopted output as resume (and the digest taken at selection time) reads it. */
export async function adoptedOutput(
  adapter: ResumeAdapter,
  runDir: string,
  evidence: "deliverable" | "trajectory",
): Promise<string> {
  if (evidence === "trajectory" && adapter.spec.stateDeliverable) {
    return adapter.trajectory(runDir, { obsTrunc: adapter.spec.obsTrunc });
  }
  return (await adapter.delivered(runDir)) ? adapter.deliverableText(runDir) : "";
}

export function outputDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A blank output, or a renderer's "no trajectory" placeholder, is no output. */
export function isBlankOutput(text: string): boolean {
  return text.trim() === "" || text.trimStart().startsWith("(no trajectory");
}

export type ResumeQuery = {
  taskId: string;
  /** The agg namespace's task dir (where the summary lives). */
  summaryDir: string;
  modes: readonly ModeToken[];
  source: TaskRecordSource;
  adapter: ResumeAdapter;
  surface: SurfaceSpec;
  /** `<mode ns task dir>/harnesses/<label>`. */
  harnessDirOf: (mode: ModeToken, label: string) => string;
};

export type SkipDecision = {
  /** Every requested mode is finished and intact: nothing needs to run. */
  skip: boolean;
  /** The record read, or null when there is none (or it is unreadable). */
  summary: TaskSummary | null;
  /** Requested modes whose adopted output and harness are intact (they need not run again). */
  intact: ModeToken[];
  /** Requested modes that must run, each with why. */
  rerun: { mode: ModeToken; reason: string }[];
  /** Why the task is (not) skipped, in one sentence. */
  reason: string;
};

/** Why one mode's adoption cannot be trusted any more, or null when it is intact. */
async function modeProblem(
  q: ResumeQuery,
  summary: TaskSummary,
  mode: ModeToken,
): Promise<string | null> {
  if (!modeSucceeded(summary, mode)) {
    return summary.modes[mode] === undefined
      ? "the record does not cover this mode"
      : "the mode, its selection or its chosen label is not ok in the record";
  }
  const record = ModeRecord.safeParse(summary.modes[mode]);
  if (!record.success) return "the mode's record holds no ledger";
  const ledger = record.data.ledger;
  // A record whose budget does not balance is not a finished mode (docs/differences.md R15).
  if (ledger.R !== expectedRollouts(summary.k) || ledger.P !== expectedSessions(summary.k)) {
    return `the recorded ledger does not balance (R=${ledger.R}, P=${ledger.P})`;
  }
  const sel = summary.selections[mode] as SelectionRecord;
  const runDir = sel.chosenRunDir;
  if (runDir === "" || !dirExists(runDir)) return "the adopted run directory is missing";
  const output = await adoptedOutput(q.adapter, runDir, sel.evidence);
  if (isBlankOutput(output)) return "the adopted output is missing";
  if (sel.outputDigest !== null && outputDigest(output) !== sel.outputDigest) {
    return "the adopted output has changed";
  }
  if (q.adapter.artifactsIntact && !(await q.adapter.artifactsIntact(runDir))) {
    return "the execution artifacts have changed";
  }
  const harness = q.harnessDirOf(mode, sel.chosenLabel);
  if (!isTree(q.surface, harness)) return "the adopted harness is missing";
  if (
    sel.harnessFingerprint !== null &&
    (await treeFingerprint(harness)) !== sel.harnessFingerprint
  ) {
    return "the adopted harness has changed";
  }
  return null;
}

/**
 * THE skip decision. A mode is intact only when the record says it, its selection and chosen label
 * are ok, its ledger balances, and its adopted output and harness still match what was recorded.
 * The task is skipped only when its record's status is ok and every requested mode is intact.
 * Unlike the original (docs/differences.md R15), an intact mode is not re-run because another one
 * must be, and any error while checking means "re-run", never an escape.
 */
export async function shouldSkipTask(q: ResumeQuery): Promise<SkipDecision> {
  const read = await q.source.read(q.taskId, q.summaryDir);
  const all = (reason: string) => q.modes.map((mode) => ({ mode, reason }));
  if (read.kind === "missing") {
    return {
      skip: false,
      summary: null,
      intact: [],
      rerun: all("no record"),
      reason: "no record yet",
    };
  }
  if (read.kind === "unreadable") {
    const reason = `unreadable record (${read.reason}); re-running`;
    return { skip: false, summary: null, intact: [], rerun: all(reason), reason };
  }
  const summary = read.summary;
  if (summary.status === "base-failed") {
    const reason = "the record says no base rollout produced anything; re-running";
    return { skip: false, summary, intact: [], rerun: all(reason), reason };
  }
  const intact: ModeToken[] = [];
  const rerun: { mode: ModeToken; reason: string }[] = [];
  for (const mode of q.modes) {
    let problem: string | null;
    try {
      problem = await modeProblem(q, summary, mode);
    } catch (err) {
      problem = `cannot check the adoption: ${describeError(err)}`;
    }
    if (problem === null) intact.push(mode);
    else rerun.push({ mode, reason: problem });
  }
  if (rerun.length > 0) {
    const reason = rerun.map((r) => `cannot resume ${r.mode}: ${r.reason}`).join("; ");
    return { skip: false, summary, intact, rerun, reason };
  }
  if (summary.status !== "ok") {
    const reason = `the record's status is ${summary.status}: ${summary.errors.join("; ") || "not ok"}`;
    return { skip: false, summary, intact, rerun: [], reason };
  }
  return { skip: true, summary, intact, rerun: [], reason: "finished and intact" };
}

/**
 * Replays intact adoptions into their libraries (docs/method.md §11): the adopted
 * tree is read back from the mode's harness dir and re-added with its why and lesson. Returns the
 * modes whose entry was restored.
 */
export function restoreLibraries(
  summary: TaskSummary,
  modes: readonly ModeToken[],
  libraries: Partial<Record<ModeToken, Library>>,
  surface: SurfaceSpec,
  harnessDirOf: (mode: ModeToken, label: string) => string,
): ModeToken[] {
  const restored: ModeToken[] = [];
  for (const mode of modes) {
    const lib = libraries[mode];
    const sel = summary.selections[mode];
    if (lib === undefined || sel === undefined || !sel.ok || sel.chosenLabel === "") continue;
    if (sel.experience === null) continue;
    const tree = readTree(surface, harnessDirOf(mode, sel.chosenLabel));
    const added = lib.add(summary.taskId, tree, {
      why: sel.why,
      idMap: sel.idMap,
      label: sel.chosenLabel,
      runId: sel.chosenRunId,
      experience: sel.experience,
      restored: true,
    });
    if (added !== null) restored.push(mode);
  }
  return restored;
}
