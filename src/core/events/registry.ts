// The event spine (docs/architecture.md "The event spine"): every meaningful occurrence in a run is
// one typed event, validated by a zod schema and discriminated on `type` (`domain.verb`). Core
// emits through an EventSink and never prints or writes SQL; the store, the TUI and the headless
// printers all consume this one union. Add an event here (next to its domain group) and every sink
// sees it.

import { z } from "zod";

/** Internal mode tokens: "agg" = parallel mode, "seq" = sequential mode (docs/method.md §5). */
export const ModeToken = z.enum(["agg", "seq"]);
export type ModeToken = z.infer<typeof ModeToken>;

/** The name a person reads (and the CLI accepts) for each mode token. */
export const MODE_NAMES: Readonly<Record<ModeToken, "parallel" | "sequential">> = {
  agg: "parallel",
  seq: "sequential",
};

export const Phase = z.enum([
  "bases",
  "proposals",
  "probes",
  "compositions",
  "selection",
  "reflection",
]);
export type Phase = z.infer<typeof Phase>;

export const StageDim = z.enum(["INV", "DOM", "AGG", "COMPOSE"]);
export type StageDim = z.infer<typeof StageDim>;

/** Fields every event carries: when it happened and which sweep it belongs to. */
const base = {
  /** Milliseconds since the epoch, from the run's Clock. */
  ts: z.number(),
  sweep: z.string().min(1),
};

/** Fields of every event that happens inside one task (and usually one mode). */
const inTask = {
  ...base,
  domain: z.string(),
  task: z.string().min(1),
};

const inMode = {
  ...inTask,
  mode: ModeToken,
  k: z.number().int().positive(),
};

// ── sweep ────────────────────────────────────────────────────────────────────────────────────
export const SweepStarted = z.object({
  type: z.literal("sweep.started"),
  ...base,
  bench: z.string(),
  substrate: z.string(),
  ks: z.array(z.number().int().positive()),
  modes: z.array(ModeToken),
  seed: z.number().int().nullable(),
  tag: z.string(),
  argv: z.array(z.string()),
  /** Free-form configuration (limits, channels, paths) as resolved for this sweep. */
  config: z.record(z.string(), z.unknown()),
  /** What must not change when the same experiment is resumed (models, endpoints, seed, stream). */
  identity: z.record(z.string(), z.unknown()),
  runsRoot: z.string(),
  domains: z.array(z.object({ domain: z.string(), tasks: z.array(z.string()) })),
});

export const SweepFinished = z.object({
  type: z.literal("sweep.finished"),
  ...base,
  status: z.enum(["ok", "failed", "interrupted"]),
  /** Why an interrupted sweep stopped when it was not the user: "budget" (the spending cap). */
  reason: z.enum(["budget"]).optional(),
  tasksOk: z.number().int().nonnegative(),
  tasksFailed: z.number().int().nonnegative(),
  tasksSkipped: z.number().int().nonnegative(),
  usd: z.number().nonnegative(),
  wallS: z.number().nonnegative(),
});

// ── task ─────────────────────────────────────────────────────────────────────────────────────
export const TaskStarted = z.object({
  type: z.literal("task.started"),
  ...inTask,
  k: z.number().int().positive(),
  modes: z.array(ModeToken),
  /** 1-based position in the domain's stream. */
  index: z.number().int().positive(),
  of: z.number().int().positive(),
  taskDir: z.string(),
});

export const TaskSkipped = z.object({
  type: z.literal("task.skipped"),
  ...inTask,
  k: z.number().int().positive(),
  reason: z.string(),
});

export const TaskFinished = z.object({
  type: z.literal("task.finished"),
  ...inTask,
  k: z.number().int().positive(),
  status: z.enum(["ok", "partial", "failed"]),
  modes: z.record(z.string(), z.string()),
  usd: z.number().nonnegative(),
  wallS: z.number().nonnegative(),
  error: z.string(),
});

// ── mode and phase ───────────────────────────────────────────────────────────────────────────
export const ModeStarted = z.object({ type: z.literal("mode.started"), ...inMode });

export const ModeFinished = z.object({
  type: z.literal("mode.finished"),
  ...inMode,
  /** "degraded" = the mode finished but every stage fell back (it adapted nothing). */
  status: z.enum(["ok", "degraded", "failed"]),
  R: z.number().int().nonnegative(),
  P: z.number().int().nonnegative(),
  expectedR: z.number().int().nonnegative(),
  expectedP: z.number().int().nonnegative(),
  fellBack: z.array(z.string()),
  keptBase: z.array(z.string()),
  similarity: z
    .object({ n: z.number(), nDistinct: z.number(), meanLineJaccard: z.number() })
    .nullable(),
  usd: z.number().nonnegative(),
  error: z.string(),
});

export const PhaseStarted = z.object({
  type: z.literal("phase.started"),
  ...inMode,
  phase: Phase,
});

// ── stages and proposer sessions ─────────────────────────────────────────────────────────────
export const StageStarted = z.object({
  type: z.literal("stage.started"),
  ...inMode,
  label: z.string(),
  dim: StageDim,
  evidenceDir: z.string(),
});

export const StageFinished = z.object({
  type: z.literal("stage.finished"),
  ...inMode,
  label: z.string(),
  dim: StageDim,
  fellBack: z.boolean(),
  keptBase: z.boolean(),
  attempts: z.number().int().nonnegative(),
  usd: z.number().nonnegative(),
  cached: z.boolean(),
  error: z.string(),
  notes: z.string(),
  harnessDir: z.string(),
});

export const ProposerCall = z.object({
  type: z.literal("proposer.call"),
  ...base,
  domain: z.string().optional(),
  task: z.string().optional(),
  mode: ModeToken.optional(),
  /** Which of the sweep's k values this belongs to (absent only in events stored before it was filled). */
  k: z.number().int().positive().optional(),
  label: z.string(),
  /** "stage", "selection" or "reflection". */
  purpose: z.enum(["stage", "selection", "reflection", "probe"]),
  attempts: z.number().int().nonnegative(),
  channel: z.string(),
  model: z.string(),
  cached: z.boolean(),
  wallS: z.number().nonnegative(),
  usd: z.number().nonnegative(),
  error: z.string(),
  auditPath: z.string(),
});

// ── rollouts and the ledger ──────────────────────────────────────────────────────────────────
export const RolloutStarted = z.object({
  type: z.literal("rollout.started"),
  ...inTask,
  /** Which of the sweep's k values this belongs to (absent only in events stored before it was filled). */
  k: z.number().int().positive().optional(),
  label: z.string(),
  runId: z.string(),
});

export const RolloutFinished = z.object({
  type: z.literal("rollout.finished"),
  ...inTask,
  /** Which of the sweep's k values this belongs to (absent only in events stored before it was filled). */
  k: z.number().int().positive().optional(),
  label: z.string(),
  runId: z.string(),
  runDir: z.string(),
  ok: z.boolean(),
  delivered: z.boolean(),
  usd: z.number().nonnegative(),
  wallS: z.number().nonnegative(),
  /** True when a finished, intact run mark let the rollout be reused without executing. */
  reused: z.boolean(),
  error: z.string(),
  /** False when the executor could not price the rollout (a Codex model with no price): `usd` is 0 but unknown. */
  priced: z.boolean().optional(),
  /** Input + output tokens the executor reported (Codex); what `--max-tokens` counts when unpriced. */
  tokens: z.number().int().nonnegative().optional(),
});

export const LedgerRecorded = z.object({
  type: z.literal("ledger.recorded"),
  ...inMode,
  kind: z.enum(["rollout", "session"]),
  label: z.string(),
  usd: z.number().nonnegative(),
  cached: z.boolean(),
  attempts: z.number().int().nonnegative(),
  /** Counters after this entry. */
  R: z.number().int().nonnegative(),
  P: z.number().int().nonnegative(),
});

// ── safety ───────────────────────────────────────────────────────────────────────────────────
export const TripwireKind = z.enum(["leak_path", "grader_verdict", "authored_tree", "symlink"]);
export type TripwireKind = z.infer<typeof TripwireKind>;

export const TripwireFired = z.object({
  type: z.literal("tripwire.fired"),
  ...base,
  domain: z.string().optional(),
  task: z.string().optional(),
  mode: ModeToken.optional(),
  /** Which of the sweep's k values this belongs to (absent only in events stored before it was filled). */
  k: z.number().int().positive().optional(),
  kind: TripwireKind,
  path: z.string(),
  marker: z.string(),
  /** Where it tripped: a stage label, "selection", "reflection", "library", … */
  stage: z.string(),
  message: z.string(),
});

// ── selection, reflection, library ───────────────────────────────────────────────────────────
export const SelectionMade = z.object({
  type: z.literal("selection.made"),
  ...inMode,
  chosenLabel: z.string(),
  anonId: z.string(),
  /** anonymous id → candidate label, kept so a later reader can decode the choice. */
  idMap: z.record(z.string(), z.string()),
  why: z.string(),
  ok: z.boolean(),
  fallback: z.boolean(),
  trivial: z.boolean(),
  dropped: z.array(z.string()),
  usd: z.number().nonnegative(),
  error: z.string(),
  /** The adopted run (absent when nothing was chosen), so no reader guesses it from the label. */
  chosenRunId: z.string().optional(),
  chosenRunDir: z.string().optional(),
});

/**
 * What resume re-checks about a mode's adoption, emitted once the task's record has been
 * checkpointed after the mode finished. The store adds it to the mode's selection row; a mode
 * whose adoption never arrives (the process died first) is not finished in the store's eyes and
 * runs again. See docs/architecture.md, "The event spine".
 */
export const AdoptionRecorded = z.object({
  type: z.literal("adoption.recorded"),
  ...inMode,
  chosenLabel: z.string(),
  chosenRunId: z.string(),
  chosenRunDir: z.string(),
  /** Digest of the adopted harness folder; null when nothing was chosen. */
  harnessFingerprint: z.string().nullable(),
  /** SHA-256 of the adopted output as resume re-reads it; null when there was none. */
  outputDigest: z.string().nullable(),
  /** The adopted harness equals the task's base harness. */
  chosenTreeIsBase: z.boolean(),
  evidence: z.enum(["deliverable", "trajectory"]),
  /** The lesson the reflection stored with the adoption, or null when it stored none. */
  experience: z
    .object({
      cue: z.string(),
      lesson: z.string(),
      evidence: z.string(),
      confidence: z.string(),
      edits: z.string(),
    })
    .nullable(),
});

export const ReflectionFinished = z.object({
  type: z.literal("reflection.finished"),
  ...inMode,
  ok: z.boolean(),
  noEntry: z.boolean(),
  usd: z.number().nonnegative(),
  error: z.string(),
});

export const LibraryAdded = z.object({
  type: z.literal("library.added"),
  ...inMode,
  entry: z.string(),
  cue: z.string(),
  lesson: z.string(),
  confidence: z.string(),
  path: z.string(),
  /** True when a resumed task's earlier entry was put back, not a new lesson of this sweep. */
  restored: z.boolean().optional(),
});

// ── judge (outside the method: only src/judge emits these) ───────────────────────────────────

/**
 * What a judge says of one run: the one definition behind the event, the store's rows and views,
 * the judge's records and the report. `graded` means the judge succeeded, not that the run did
 * well.
 */
export const Judgment = z.object({
  graded: z.boolean(),
  score: z.number().nullable(),
  passed: z.number().nullable(),
  total: z.number().nullable(),
  /** The scorer's unit when it names one (e.g. "weighted"); null when it names none. */
  metric: z.string().nullable(),
  /** Why a run is ungraded; "" when graded. */
  reason: z.string(),
  judge: z.string(),
});
export type Judgment = z.infer<typeof Judgment>;

export const JudgmentRecorded = z.object({
  type: z.literal("judgment.recorded"),
  ...inMode,
  label: z.string(),
  runId: z.string(),
  ...Judgment.omit({ metric: true }).shape,
  /**
   * The scorer's unit when it names one (e.g. "weighted", "unweighted-fallback"), so a report can
   * warn about averaging mixed units. Optional: added after the first release of this event.
   */
  metric: z.string().optional(),
});

// ── free-form notes (warnings the user should see, e.g. an autotrigger repair) ───────────────
export const Note = z.object({
  type: z.literal("note"),
  ...base,
  task: z.string().optional(),
  level: z.enum(["info", "warn", "error"]),
  message: z.string(),
});

export const EVENT_SCHEMAS = [
  SweepStarted,
  SweepFinished,
  TaskStarted,
  TaskSkipped,
  TaskFinished,
  ModeStarted,
  ModeFinished,
  PhaseStarted,
  StageStarted,
  StageFinished,
  ProposerCall,
  RolloutStarted,
  RolloutFinished,
  LedgerRecorded,
  TripwireFired,
  SelectionMade,
  AdoptionRecorded,
  ReflectionFinished,
  LibraryAdded,
  JudgmentRecorded,
  Note,
] as const;

export const HarnessEvent = z.discriminatedUnion("type", EVENT_SCHEMAS);
export type HarnessEvent = z.infer<typeof HarnessEvent>;
export type EventType = HarnessEvent["type"];
export type EventOf<T extends EventType> = Extract<HarnessEvent, { type: T }>;

export const EVENT_TYPES: readonly EventType[] = EVENT_SCHEMAS.map((s) => s.shape.type.value);
