// Records and shared inputs of the recursion (docs/method.md §5): one improvement Stage, one mode's
// ModeResult and the summary forms of both, plus the ledger/event plumbing every stage, rollout
// and mode uses. It never reads a score: a rollout is what the adapter says it produced, no more.

import { z } from "zod";
import type { ModeToken } from "../events/registry.ts";
import { LedgerRecorded, ModeToken as ModeTokenSchema, StageDim } from "../events/registry.ts";
import type { Clock, EventSink } from "../events/sink.ts";
import { emit } from "../events/sink.ts";
import type { PythonChecker } from "../harness/python-check.ts";
import { Diversity, type SurfaceSpec, Tree } from "../harness/tree.ts";
import type { LibraryView } from "../library/values.ts";
import type { Rolled } from "../rollout/rollouts.ts";
import type { RunConfig } from "../run/run-config.ts";
import { type BenchmarkAdapter, RunView } from "../seams/benchmark.ts";
import type { ProposerLike } from "../seams/channel.ts";
import { type Ledger, LedgerRecord } from "./ledger.ts";

/** Stage errors (and the error of a mode record) are cut to this many characters. */
export const ERROR_MAX = 400;

export function truncate(text: string, max: number = ERROR_MAX): string {
  return text.length <= max ? text : text.slice(0, max);
}

// ── records ──────────────────────────────────────────────────────────────────────────────────

/** One improvement stage, including its retries (docs/method.md §5). */
export const Stage = z.object({
  label: z.string().min(1),
  dim: StageDim,
  /** The resulting harness; on fallback a copy of the fallback tree. */
  tree: Tree,
  /** The accepted proposal equals the stage's FALLBACK tree (after autotrigger); false on fallback. */
  keptBase: z.boolean(),
  fellBack: z.boolean(),
  /** The last error, at most ERROR_MAX characters; "" on success. */
  error: z.string(),
  /** Model cost over every attempt of the stage. */
  usd: z.number().nonnegative(),
  /** Model sessions actually launched (0 when every reply came from the cache). */
  attempts: z.number().int().nonnegative(),
  /** Every reply of the stage came from the proposer cache. */
  cached: z.boolean(),
  /** The accepted reply's `<notes>` (or the whole reply); "" on fallback. */
  notes: z.string(),
  /** Skills autotrigger added a trigger line for, in the accepted tree. */
  autotriggered: z.array(z.string()),
});
export type Stage = z.infer<typeof Stage>;

/** A stage as the summary keeps it: everything but the tree. */
export const StageRecord = Stage.omit({ tree: true });
export type StageRecord = z.infer<typeof StageRecord>;

/**
 * How a mode ended. `degraded`: it finished, but every stage fell back, so it adapted nothing
 * (fix docs/differences.md R1, where such a mode was silently ok). `failed`: an exception ended it.
 */
export const ModeStatus = z.enum(["ok", "degraded", "failed"]);
export type ModeStatus = z.infer<typeof ModeStatus>;

/** A mode whose recursion finished, as the summary keeps it. */
export const ModeRecord = z.object({
  mode: ModeTokenSchema,
  taskId: z.string().min(1),
  k: z.number().int().positive(),
  status: ModeStatus,
  /** status === "ok". */
  ok: z.boolean(),
  finals: z.array(z.string()),
  fellBack: z.array(z.string()),
  keptBase: z.array(z.string()),
  stages: z.array(StageRecord),
  /** Diversity of the finals, in both modes (fix docs/differences.md R2: the original skipped seq). */
  similarity: Diversity.nullable(),
  ledger: LedgerRecord,
  errors: z.array(z.string()),
  /**
   * A failure AFTER the recursion (selection, reflection, library), kept beside the recursion's
   * record instead of replacing it (fix docs/differences.md R5: the spent ledger was lost). "" when
   * none.
   */
  error: z.string().default(""),
  traceback: z.string().default(""),
});
export type ModeRecord = z.infer<typeof ModeRecord>;

/** A mode whose recursion itself raised: there is no ledger or stage list to keep. */
export const ModeFailure = z.object({
  mode: ModeTokenSchema.optional(),
  ok: z.literal(false),
  status: z.literal("failed").default("failed"),
  error: z.string(),
  traceback: z.string().default(""),
});
export type ModeFailure = z.infer<typeof ModeFailure>;

export const ModeEntry = z.union([ModeRecord, ModeFailure]);
export type ModeEntry = z.infer<typeof ModeEntry>;

/** One mode's live result (holds the Ledger and the trees, which the record leaves out). */
export type ModeResult = {
  mode: ModeToken;
  taskId: string;
  k: number;
  stages: Stage[];
  trees: Record<string, Tree>;
  /** Label → RunView: the base rollouts, every candidate and every final. */
  rollouts: Record<string, RunView>;
  finals: string[];
  ledger: Ledger;
  similarity: Diversity;
  errors: string[];
  status: Exclude<ModeStatus, "failed">;
};

/** `degraded` when there were stages and every one fell back; else `ok`. */
export function recursionStatus(stages: readonly Stage[]): Exclude<ModeStatus, "failed"> {
  return stages.length > 0 && stages.every((s) => s.fellBack) ? "degraded" : "ok";
}

export function stageRecord(stage: Stage): StageRecord {
  const { tree: _tree, ...rest } = stage;
  return StageRecord.parse({ ...rest, error: truncate(rest.error) });
}

export function modeRecord(result: ModeResult): ModeRecord {
  return ModeRecord.parse({
    mode: result.mode,
    taskId: result.taskId,
    k: result.k,
    status: result.status,
    ok: result.status === "ok" && result.finals.length > 0 && result.errors.length === 0,
    finals: result.finals,
    fellBack: result.stages.filter((s) => s.fellBack).map((s) => s.label),
    keptBase: result.stages.filter((s) => s.keptBase).map((s) => s.label),
    stages: result.stages.map(stageRecord),
    similarity: result.similarity,
    ledger: result.ledger.toRecord(),
    errors: result.errors,
  });
}

/** Stage label → its notes, or its error when it returned no notes (the decisions evidence). */
export function decisionsOf(stages: readonly Stage[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of stages) out[s.label] = s.notes !== "" ? s.notes : s.error;
  return out;
}

// ── shared inputs ────────────────────────────────────────────────────────────────────────────

/** Who the events of one mode are about. */
export type ModeScope = {
  sink: EventSink;
  clock: Clock;
  sweep: string;
  domain: string;
  task: string;
  mode: ModeToken;
  k: number;
};

/** The limits recursion reads from the run configuration (each with the original's default). */
export type RecursionLimits = Pick<
  RunConfig,
  "phaseWidth" | "stageAttempts" | "transportAttempts" | "proposerTimeoutS" | "rolloutTimeoutS"
>;

/** Everything one mode of one task runs with. */
export type ModeInputs = {
  adapter: BenchmarkAdapter;
  proposer: ProposerLike;
  surface: SurfaceSpec;
  limits: RecursionLimits;
  scope: ModeScope;
  /** `<runs root>/<mode ns>/<task slug>`: harnesses/, context/, selection/ of this mode. */
  workDir: string;
  runIdOf: (label: string) => string;
  /** The base harness as a tree (on-surface files only). */
  baseTree: Tree;
  /** The k shared base rollouts, dead or alive. */
  base: readonly Rolled[];
  /** What this mode is shown of the domain library (Library.servedView), or null for nothing. */
  library: LibraryView | null;
  /** Python syntax checker for harness scripts (default: python3 on PATH). */
  python?: PythonChecker;
  /**
   * The sweep's interrupt, passed to every stage, improver call and execution. Once aborted no
   * phase, stage or rollout starts, and the mode ends with InterruptedError (interrupt.ts).
   */
  signal?: AbortSignal;
};

/** The per-event fields of a mode's events. */
export function modeFields(scope: ModeScope) {
  return {
    ts: scope.clock.now(),
    sweep: scope.sweep,
    domain: scope.domain,
    task: scope.task,
    mode: scope.mode,
    k: scope.k,
  };
}

/** Appends a rollout entry (dead or alive) and emits `ledger.recorded`. */
export function recordRollout(scope: ModeScope, ledger: Ledger, rolled: Rolled): void {
  const entry = ledger.rollout(rolled.view.label, { usd: rolled.view.usd, cached: rolled.reused });
  emitEntry(scope, ledger, entry);
}

/** Appends one stage's session entry and emits `ledger.recorded`. */
export function recordSession(scope: ModeScope, ledger: Ledger, stage: Stage): void {
  const entry = ledger.session(stage.label, {
    usd: stage.usd,
    cached: stage.cached,
    attempts: stage.attempts,
  });
  emitEntry(scope, ledger, entry);
}

function emitEntry(scope: ModeScope, ledger: Ledger, entry: Ledger["entries"][number]): void {
  emit(scope.sink, LedgerRecorded, {
    ...modeFields(scope),
    kind: entry.kind,
    label: entry.label,
    usd: entry.usd,
    cached: entry.cached,
    attempts: entry.attempts,
    R: ledger.R,
    P: ledger.P,
  });
}

/** A RunView for a rollout that never produced a run directory. */
export function deadRun(label: string, runId: string, missingDir: string, error: string): RunView {
  return RunView.parse({ label, runId, runDir: missingDir, ok: false, delivered: false, error });
}
