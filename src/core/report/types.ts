// The report's value (what `harness2 report --json` prints and the TUI's report view draws): per
// mode × k figures over judged picks, paired deltas against the base harness, comparisons, notes
// and warnings. Schemas only — built by src/judge/report.ts; nothing in the method's run path reads
// it.

import { z } from "zod";
import { ModeToken } from "../events/registry.ts";

const count = z.number().int().nonnegative();
/** A mean score in [0, 1], rounded to 3 decimals; null when nothing was graded. */
const fraction = z.number().min(0).max(1).nullable();
/** A difference of scores in [-1, 1], rounded to 3 decimals; null when nothing was paired. */
const difference = z.number().min(-1).max(1).nullable();
const usd = z.number().nonnegative();
const nonnegative = z.number().nonnegative().nullable();

/**
 * The spread of a mean over tasks (docs/differences.md S14): sample sd and the 95% Student-t
 * interval of the mean, each rounded to 3 decimals. Below two values sd, t and the interval are
 * null (drawn "—"), never 0. The interval is not clipped to the score range, so a wide one reads as
 * wide.
 */
export const Spread = z.object({
  n: count,
  sd: nonnegative,
  /** Two-sided 95% t critical value at df = n − 1. */
  t: z.number().positive().nullable(),
  halfWidth: nonnegative,
  low: z.number().nullable(),
  high: z.number().nullable(),
});
export type Spread = z.infer<typeof Spread>;

/** One task's pick against the base harness on the same task and k. */
export const TaskDelta = z.object({
  task: z.string(),
  score: z.number().min(0).max(1),
  /** Mean over the task's graded base rollouts. */
  base: z.number().min(0).max(1),
  delta: z.number().min(-1).max(1),
});
export type TaskDelta = z.infer<typeof TaskDelta>;

/** The figures of one (mode, k). */
export const ModeSummary = z.object({
  mode: ModeToken,
  k: z.number().int().positive(),
  /** "parallel k=2". */
  name: z.string(),
  /** Tasks whose record includes this mode. */
  tasks: count,
  /** Graded picks: the only rows in any mean. */
  n: count,
  /** Picks with no judged score: a judge failure, or a failed or fallback selection. Never zeros. */
  ungraded: count,
  /** Picks that have not been judged yet (`harness2 judge`). */
  unjudged: count,
  /** Tasks where this mode never finished (no pick to judge). */
  unfinished: count,
  score: fraction,
  /** Spread of `score` over the graded picks. */
  scoreSpread: Spread,
  /** Share of graded picks that passed every criterion; null when the scorer counts no criteria. */
  allPass: fraction,
  /** The base harness on the paired tasks (the same tasks as `delta`). */
  base: z.object({ n: count, score: fraction }),
  /** Pick minus base harness, per task and averaged over tasks where both are graded. */
  delta: z.object({
    n: count,
    mean: difference,
    perTask: z.array(TaskDelta),
    /** Spread of the per-task differences: the paired t-interval of the delta. */
    spread: Spread,
  }),
  /** How each pick came about, over every task with a selection record. */
  picks: z.object({
    selector: count,
    trivial: count,
    fallback: count,
    failed: count,
    /** Kind of the graded picks: the mode's own final, another stage's candidate, a base run. */
    final: count,
    candidate: count,
    base: count,
  }),
  /** Improvement stages that fell back to the inherited harness, and on how many tasks. */
  fellBack: z.object({ stages: count, tasks: count }),
  /** Line-level similarity of the finals (parallel mode only; the sequential mode records none). */
  similarity: z.object({
    tasks: count,
    meanLineJaccard: fraction,
    /** Mean share of distinct trees among the finals. */
    distinctShare: fraction,
  }),
  /** USD, rounded to 4 decimals. Improver = stages + selection + reflection. */
  spend: z.object({
    stages: usd,
    selection: usd,
    reflection: usd,
    improver: usd,
    executor: usd,
  }),
  /** Distinct scoring units named by the graded rows. */
  metrics: z.array(z.string()),
});
export type ModeSummary = z.infer<typeof ModeSummary>;

/** The base harness at one k (base rollouts are shared by both modes). */
export const BaseSummary = z.object({
  k: z.number().int().positive(),
  tasks: count,
  /** Base rollouts with a graded judgment, and without one. */
  graded: count,
  ungraded: count,
  unjudged: count,
  /** Mean over tasks of each task's mean base score. */
  score: fraction,
  /** Spread of `score` over the tasks' mean base scores. */
  spread: Spread,
  executor: usd,
});
export type BaseSummary = z.infer<typeof BaseSummary>;

/** A paired difference between two (mode, k) cells on the tasks graded in both. */
export const Comparison = z.object({
  kind: z.enum(["modes", "k"]),
  /** "sequential − parallel at k=2", "parallel k=4 − k=1". */
  label: z.string(),
  a: z.string(),
  b: z.string(),
  n: count,
  mean: difference,
  /** Spread of the per-task differences: the paired t-interval of `mean`. */
  spread: Spread,
});
export type Comparison = z.infer<typeof Comparison>;

export const Report = z.object({
  title: z.string(),
  bench: z.string(),
  substrate: z.string(),
  sweeps: z.array(z.string()),
  /** The judge identities behind the figures. */
  judges: z.array(z.string()),
  /** Sorted by k, then parallel before sequential. */
  summaries: z.array(ModeSummary),
  bases: z.array(BaseSummary),
  comparisons: z.array(Comparison),
  notes: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type Report = z.infer<typeof Report>;
