// The read side's values: what `harness2 runs --json` and `harness2 show --json` print, what the
// TUI browser and resume read. This shape is documented and stable — add fields, never rename or
// remove one. Built only by store/queries.ts; nothing here touches the database.

import { z } from "zod";
import { Judgment, SelectionMade } from "../src/core/events/registry.ts";
import { formatUsd } from "../src/core/lib/format.ts";

/**
 * running: a live process holds the sweep's lock. unfinished: no end was recorded and nothing
 * holds the lock (the process was killed, or ran without a lock). The rest come from sweep.finished.
 */
export const SweepStatus = z.enum(["running", "ok", "failed", "interrupted", "unfinished"]);

/** "interrupted" for work that was still running when its sweep stopped. */
export const TaskStatus = z.enum(["running", "ok", "partial", "failed", "skipped", "interrupted"]);
export const ModeStatus = z.enum(["running", "ok", "degraded", "failed", "interrupted"]);
export const StageStatus = z.enum(["running", "ok", "fell back", "kept base", "interrupted"]);

const iso = z.string();

export const SweepSummary = z.object({
  id: z.string(),
  startedAt: iso,
  finishedAt: iso.nullable(),
  status: SweepStatus,
  /** Why an interrupted sweep stopped when the user did not stop it: "budget" (its spending cap). */
  stopReason: z.enum(["", "budget"]).optional(),
  bench: z.string(),
  substrate: z.string(),
  ks: z.array(z.number()),
  modes: z.array(z.string()),
  seed: z.number().nullable(),
  tag: z.string(),
  /** total = tasks in the declared stream × k values; failed counts partial and failed. */
  tasks: z.object({
    total: z.number(),
    ok: z.number(),
    failed: z.number(),
    /** Tasks in progress while a live process holds the sweep. */
    running: z.number(),
    /** Tasks that were in progress when the sweep stopped (resumable). */
    interrupted: z.number(),
    skipped: z.number(),
    /**
     * Tasks with a problem inside (src/core/events/outcome.ts): a degraded mode, a selection
     * that fell back, a failed reflection or a dead rollout; they may still read ok.
     */
    withProblems: z.number(),
  }),
  /** The fleet worker that ran this sweep (harness2 worker), and its domains; null when run by hand. */
  worker: z.object({ name: z.string(), domains: z.array(z.string()) }).nullable(),
  /** Money spent by this sweep: uncached improver calls plus executor rollouts that ran. */
  usd: z.number(),
  /**
   * The sweep of the same experiment (bench, substrate, tag, seed, k) just before this one — the
   * one it resumed or reran — and the one just after it; null when there is none.
   */
  resumes: z.string().nullable().optional(),
  resumedBy: z.string().nullable().optional(),
  /** Until the end, or until the last recorded event of a sweep that is not running. */
  durationS: z.number(),
});
export type SweepSummary = z.infer<typeof SweepSummary>;

/**
 * A sweep's status with its continuation: "interrupted → resumed by swp_… (ok)" when a later
 * sweep of the same experiment went on with it, else the status as people read it.
 */
export function sweepStatusWithResume(
  s: Pick<SweepSummary, "status" | "stopReason" | "resumedBy">,
  by: (id: string) => string = (id) => id,
): string {
  const text = sweepStatusText(s);
  if (s.status === "ok" || s.status === "running" || !s.resumedBy) return text;
  const who = by(s.resumedBy);
  return who === "" ? `${text} → resumed` : `${text} → resumed by ${who}`;
}

/** A sweep's status as people read it: a sweep its spending cap stopped says so. */
export function sweepStatusText(s: Pick<SweepSummary, "status" | "stopReason">): string {
  return s.status === "interrupted" && s.stopReason === "budget"
    ? "interrupted (spending cap)"
    : s.status;
}

export const StageView = z.object({
  label: z.string(),
  dim: z.string(),
  status: StageStatus,
  fellBack: z.boolean(),
  keptBase: z.boolean(),
  attempts: z.number().nullable(),
  usd: z.number(),
  cached: z.boolean(),
  error: z.string(),
  notes: z.string(),
  harnessDir: z.string(),
});
export type StageView = z.infer<typeof StageView>;

export const LedgerEntryView = z.object({
  kind: z.enum(["rollout", "session"]),
  label: z.string(),
  usd: z.number(),
  cached: z.boolean(),
  attempts: z.number(),
});
export type LedgerEntryView = z.infer<typeof LedgerEntryView>;

/** A mode's selection as the store holds it: the event's fields plus the adoption's. */
export const SelectionView = SelectionMade.pick({
  chosenLabel: true,
  anonId: true,
  idMap: true,
  why: true,
  ok: true,
  fallback: true,
  trivial: true,
  dropped: true,
  usd: true,
  error: true,
}).extend({
  chosenRunId: z.string().nullable(),
  chosenRunDir: z.string().nullable(),
  harnessFingerprint: z.string().nullable(),
  evidence: z.string().nullable(),
});
export type SelectionView = z.infer<typeof SelectionView>;

export const TripwireView = z.object({
  kind: z.string(),
  path: z.string(),
  marker: z.string(),
  /** Where it tripped: a stage label, "selection", "reflection", "library", … */
  where: z.string(),
  message: z.string(),
  task: z.string().nullable(),
  mode: z.string().nullable(),
  at: iso,
});
export type TripwireView = z.infer<typeof TripwireView>;

export const LibraryEntryView = z.object({
  entry: z.string(),
  cue: z.string(),
  lesson: z.string(),
  confidence: z.string(),
  path: z.string(),
});
export type LibraryEntryView = z.infer<typeof LibraryEntryView>;

export const JudgmentView = z.object({
  label: z.string(),
  runId: z.string(),
  ...Judgment.omit({ metric: true }).shape,
});
export type JudgmentView = z.infer<typeof JudgmentView>;

export const ModeView = z.object({
  mode: z.string(),
  status: ModeStatus,
  phase: z.string().nullable(),
  R: z.number(),
  P: z.number(),
  expectedR: z.number(),
  expectedP: z.number(),
  usd: z.number(),
  error: z.string(),
  fellBack: z.array(z.string()),
  keptBase: z.array(z.string()),
  stages: z.array(StageView),
  ledger: z.array(LedgerEntryView),
  selection: SelectionView.nullable(),
  reflection: z
    .object({ ok: z.boolean(), noEntry: z.boolean(), usd: z.number(), error: z.string() })
    .nullable(),
  tripwires: z.array(TripwireView),
  library: z.array(LibraryEntryView),
  judgments: z.array(JudgmentView),
  finishedAt: iso.nullable(),
});
export type ModeView = z.infer<typeof ModeView>;

export const RolloutView = z.object({
  label: z.string(),
  runId: z.string(),
  runDir: z.string(),
  status: z.enum(["running", "ok", "dead", "interrupted"]),
  delivered: z.boolean(),
  usd: z.number(),
  wallS: z.number().nullable(),
  reused: z.boolean(),
  error: z.string(),
  /** False when the executor could not price it (a Codex model with no price): `usd` is unknown. */
  priced: z.boolean().optional(),
});
export type RolloutView = z.infer<typeof RolloutView>;

/** A rollout's status as people read it: one that ended normally but delivered nothing says so. */
export function rolloutStatusText(r: Pick<RolloutView, "status" | "delivered">): string {
  return r.status === "ok" && !r.delivered ? "ok, delivered nothing" : r.status;
}

/** A rollout's cost as people read it: an unpriced one is unknown, never $0. */
export function rolloutCostText(r: Pick<RolloutView, "usd" | "priced">): string {
  return r.priced === false ? "unknown" : formatUsd(r.usd);
}

export const ProposerCallView = z.object({
  mode: z.string().nullable(),
  label: z.string(),
  purpose: z.string(),
  attempts: z.number(),
  channel: z.string(),
  model: z.string(),
  cached: z.boolean(),
  wallS: z.number(),
  usd: z.number(),
  error: z.string(),
  auditPath: z.string(),
});
export type ProposerCallView = z.infer<typeof ProposerCallView>;

export const TaskView = z.object({
  id: z.string(),
  sweepId: z.string(),
  domain: z.string(),
  task: z.string(),
  k: z.number(),
  status: TaskStatus,
  position: z.number().nullable(),
  of: z.number().nullable(),
  taskDir: z.string(),
  usd: z.number(),
  wallS: z.number().nullable(),
  error: z.string(),
  skipReason: z.string(),
  /**
   * For a skipped task: the newest earlier sweep of the same experiment (bench, substrate, seed,
   * tag) that recorded this task's work, where its results are; null when none is recorded.
   */
  resultsIn: z.string().nullable().optional(),
  startedAt: iso,
  finishedAt: iso.nullable(),
  modes: z.array(ModeView),
  rollouts: z.array(RolloutView),
  calls: z.array(ProposerCallView),
  /** Tripwires of this task that no mode claimed. */
  tripwires: z.array(TripwireView),
});
export type TaskView = z.infer<typeof TaskView>;

export const NoteView = z.object({
  task: z.string().nullable(),
  level: z.string(),
  message: z.string(),
  at: iso,
});
export type NoteView = z.infer<typeof NoteView>;

export const SweepDetail = z.object({
  sweep: SweepSummary.extend({
    argv: z.array(z.string()),
    config: z.record(z.string(), z.unknown()),
    identity: z.record(z.string(), z.unknown()),
    runsRoot: z.string(),
    domains: z.array(z.object({ domain: z.string(), tasks: z.array(z.string()) })),
  }),
  tasks: z.array(TaskView),
  /** Tripwires that fired outside any task. */
  tripwires: z.array(TripwireView),
  /** Warnings and errors the run reported (info notes are left out). */
  notes: z.array(NoteView),
});
export type SweepDetail = z.infer<typeof SweepDetail>;

export const RunsListing = z.object({
  store: z.string(),
  sweeps: z.array(SweepSummary),
});
export type RunsListing = z.infer<typeof RunsListing>;
