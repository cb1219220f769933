// The judge: scores the run the blind selector picked (and, on request, the base rollouts) with the
// benchmark's Scorer, after selection has committed, and emits one `judgment.recorded` per row. The
// only caller of Scorer.score; never imported by the method. A failure is ungraded, never a zero.

import { existsSync, statSync } from "node:fs";
import { z } from "zod";
import { Judgment, JudgmentRecorded, ModeToken } from "../core/events/registry.ts";
import type { Clock, EventSink } from "../core/events/sink.ts";
import { SYSTEM_CLOCK } from "../core/events/sink.ts";
import { describeError } from "../core/lib/errors.ts";
import { Limiter } from "../core/lib/limiter.ts";
import type { Scorer } from "../core/seams/benchmark.ts";

/** Judgements at once unless configured (HARNESS2_JUDGE_PARALLEL / --parallel). */
export const DEFAULT_JUDGE_PARALLEL = 8;

const where = {
  sweep: z.string().min(1),
  domain: z.string(),
  task: z.string().min(1),
  mode: ModeToken,
  k: z.number().int().positive(),
};

/** The run one (task, mode, k) adopted, with what decides whether it may be scored at all. */
export const PickSubject = z.object({
  kind: z.literal("pick"),
  ...where,
  /** The chosen label ("" when nothing was chosen). */
  label: z.string(),
  runId: z.string(),
  runDir: z.string(),
  /** The selection's own verdict: only an ok, non-fallback selection is ever scored. */
  ok: z.boolean(),
  fallback: z.boolean(),
  selectionError: z.string(),
  /** The mode's error when it failed (a pick it made is then not the method's output). */
  modeFailed: z.string().nullable(),
});
export type PickSubject = z.infer<typeof PickSubject>;

/**
 * One base rollout. Base rollouts are shared by both modes; `mode` is only where the event (whose
 * schema requires a mode) files it — a report pairs bases by task and k, never by mode.
 */
export const BaseSubject = z.object({
  kind: z.literal("base"),
  ...where,
  label: z.string().min(1),
  runId: z.string().min(1),
  runDir: z.string(),
});
export type BaseSubject = z.infer<typeof BaseSubject>;

export type JudgeSubject = PickSubject | BaseSubject;

/**
 * scored: the scorer ran in this pass. skipped: the subject may not be scored (no pick, a fallback,
 * a missing run dir) and was recorded ungraded without calling the scorer. kept: an earlier graded
 * judgment by the same judge stands and nothing was recorded.
 */
export const JudgePass = z.enum(["scored", "skipped", "kept"]);
export type JudgePass = z.infer<typeof JudgePass>;

/** One judged row. `graded` means the judge succeeded, not that the run did well. */
export const Scored = z
  .object({
    kind: z.enum(["pick", "base"]),
    ...where,
    label: z.string(),
    /** "" for a pick that was not scored (the row is then keyed by sweep, task, mode and k). */
    runId: z.string(),
    ...Judgment.shape,
    score: z.number().min(0).max(1).nullable(),
    pass: JudgePass,
  })
  .refine((r) => r.graded === (r.score !== null), {
    error: "a graded row has a score and an ungraded row has none",
  })
  .refine((r) => r.graded || r.reason !== "", { error: "an ungraded row needs its reason" })
  .readonly();
export type Scored = z.infer<typeof Scored>;

/** What the store already holds for a subject (see judgmentSubject). */
export type PreviousJudgment = Judgment & { sweep: string; label: string };

/**
 * The key a judgment is stored under: the judged run id, or `<sweep>:<task>:<mode>:<k>` for a row
 * without one. Must match store/apply-event.ts, which upserts on it.
 */
export function judgmentSubject(row: {
  runId: string;
  sweep: string;
  task: string;
  mode: string;
  k: number;
}): string {
  return row.runId || `${row.sweep}:${row.task}:${row.mode}:${row.k}`;
}

// ── score normalisation ──────────────────────────────────────────────────────────────────────

export type Verdict =
  | {
      graded: true;
      score: number;
      passed: number | null;
      total: number | null;
      metric: string | null;
    }
  | { graded: false; reason: string; metric: string | null };

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const firstNumber = (raw: Record<string, unknown>, keys: string[]): number | null => {
  for (const key of keys) if (finite(raw[key])) return raw[key] as number;
  return null;
};

/**
 * A scorer result as a verdict: a `score` in [0, 1], or else `passed`/`total` (also the original's
 * `n_passed`/`n_criteria`) with 0 ≤ passed ≤ total and total > 0. Anything else is ungraded with
 * the reason — unlike the original, a positive total without a passed count is refused here (docs/differences.md S11), not a
 * crash later (docs/differences.md S11).
 */
export function normaliseScore(raw: unknown): Verdict {
  if (raw === null || raw === undefined) {
    return { graded: false, reason: "judge returned nothing", metric: null };
  }
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return {
      graded: false,
      reason: `judge returned ${Array.isArray(raw) ? "a list" : `a ${typeof raw}`}, not a record`,
      metric: null,
    };
  }
  const rec = raw as Record<string, unknown>;
  const metric = typeof rec.metric === "string" && rec.metric !== "" ? rec.metric : null;
  if (Object.keys(rec).length === 0) {
    return { graded: false, reason: "judge returned nothing", metric };
  }
  const passed = firstNumber(rec, ["passed", "n_passed"]);
  const total = firstNumber(rec, ["total", "n_criteria"]);
  if ("score" in rec && rec.score !== null && rec.score !== undefined) {
    const s = rec.score;
    if (!finite(s)) {
      return { graded: false, reason: `score ${JSON.stringify(s)} is not a number`, metric };
    }
    if (s < 0 || s > 1) {
      return { graded: false, reason: `score ${s} is outside [0, 1]`, metric };
    }
    return { graded: true, score: s, passed, total, metric };
  }
  if (passed !== null || total !== null) {
    if (passed === null || total === null || total <= 0 || passed < 0 || passed > total) {
      return {
        graded: false,
        reason: `passed ${passed ?? "(missing)"} of total ${total ?? "(missing)"} is not a fraction`,
        metric,
      };
    }
    return { graded: true, score: passed / total, passed, total, metric };
  }
  const keys = Object.keys(rec).slice(0, 8).join(", ");
  return { graded: false, reason: `judge returned no score (keys: ${keys})`, metric };
}

// ── judging ──────────────────────────────────────────────────────────────────────────────────

export type JudgeOptions = {
  picks: readonly PickSubject[];
  bases?: readonly BaseSubject[];
  scorer: Scorer;
  /** Judgements at once (≥ 1). */
  parallel?: number;
  sink: EventSink;
  /** Who judges (recorded on every row; a changed judge is refused before judging). */
  judge: string;
  /** Subject key → what the store holds, so graded rows are kept and unchanged ones not re-sent. */
  previous?: ReadonlyMap<string, PreviousJudgment>;
  /** Score again even where the same judge already graded the same sweep's run. */
  rejudge?: boolean;
  clock?: Clock;
};

/** Why a pick is not the method's output to judge (a fallback, a failure), or null when it is. */
export function pickRefusal(s: PickSubject): string | null {
  if (s.fallback) {
    return `selection fell back (${s.selectionError || "selector failed"}); a fallback pick is never judged`;
  }
  if (s.modeFailed !== null) return `mode failed: ${s.modeFailed}`;
  if (!s.ok) return `selection failed: ${s.selectionError || "no run was picked"}`;
  if (s.label === "" || s.runId === "") return "no chosen run was recorded";
  return null;
}

/** Why a subject must not reach the scorer, or null when it may. */
function skipReason(s: JudgeSubject): string | null {
  if (s.kind === "pick") {
    const refusal = pickRefusal(s);
    if (refusal !== null) return refusal;
  }
  if (s.runDir === "") return "no run directory was recorded";
  if (!existsSync(s.runDir) || !statSync(s.runDir).isDirectory()) {
    return `run directory ${s.runDir} does not exist`;
  }
  return null;
}

async function scoreOne(scorer: Scorer, s: JudgeSubject): Promise<Verdict> {
  try {
    return normaliseScore(await scorer.score(s.runDir, s.task));
  } catch (err) {
    return {
      graded: false,
      reason: `judge error: ${describeError(err)}`.slice(0, 2000),
      metric: null,
    };
  }
}

/**
 * Judges every subject (picks first, then bases) and returns one row each, in input order. Never
 * scores a failed or fallback selection; a throwing or empty scorer gives an ungraded row. Emits a
 * `judgment.recorded` for each row that is new information (the store keeps a graded row against
 * any later ungraded one).
 *
 * Differences from the original (docs/method.md §12): rows come back in input order, not completion
 * order; a run the same judge already graded for the same sweep is kept rather than scored again
 * (judges are costly model calls; `rejudge` forces it); and bases are rows of the same store table,
 * so the report can pair them (docs/differences.md S12, S13).
 */
export async function judgeSweep(opts: JudgeOptions): Promise<Scored[]> {
  const parallel = opts.parallel ?? DEFAULT_JUDGE_PARALLEL;
  if (!Number.isInteger(parallel) || parallel < 1) {
    throw new RangeError(`judge parallelism must be an integer ≥ 1, got ${parallel}`);
  }
  const limiter = new Limiter(parallel);
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const subjects: JudgeSubject[] = [...opts.picks, ...(opts.bases ?? [])];
  return Promise.all(
    subjects.map((s) =>
      limiter.run(async (): Promise<Scored> => {
        const skip = skipReason(s);
        // A pick that is not scored is keyed without a run id, so it never touches the row of a
        // run that some other selection adopted and that was graded.
        const runId = skip !== null && s.kind === "pick" ? "" : s.runId;
        const key = judgmentSubject({ ...s, runId });
        const before = opts.previous?.get(key);
        if (skip === null && !opts.rejudge && kept(before, s, opts.judge)) {
          return row(s, runId, opts.judge, "kept", {
            graded: true,
            score: before.score,
            passed: before.passed,
            total: before.total,
            metric: before.metric,
          });
        }
        const verdict: Verdict =
          skip === null
            ? await scoreOne(opts.scorer, s)
            : { graded: false, reason: skip, metric: null };
        const out = row(s, runId, opts.judge, skip === null ? "scored" : "skipped", verdict);
        const unchanged =
          out.pass === "skipped" &&
          before !== undefined &&
          !before.graded &&
          before.reason === out.reason &&
          before.judge === out.judge &&
          before.label === out.label &&
          before.sweep === out.sweep;
        if (!unchanged) opts.sink.emit(eventOf(out, clock.now()));
        return out;
      }),
    ),
  );
}

function kept(
  before: PreviousJudgment | undefined,
  s: JudgeSubject,
  judge: string,
): before is PreviousJudgment & { score: number } {
  return (
    before?.graded === true &&
    before.score !== null &&
    before.judge === judge &&
    before.sweep === s.sweep &&
    before.label === s.label
  );
}

function row(s: JudgeSubject, runId: string, judge: string, pass: JudgePass, v: Verdict): Scored {
  return Scored.parse({
    kind: s.kind,
    sweep: s.sweep,
    domain: s.domain,
    task: s.task,
    mode: s.mode,
    k: s.k,
    label: s.label,
    runId,
    graded: v.graded,
    score: v.graded ? v.score : null,
    passed: v.graded ? v.passed : null,
    total: v.graded ? v.total : null,
    metric: v.metric,
    reason: v.graded ? "" : v.reason,
    judge,
    pass,
  });
}

function eventOf(r: Scored, ts: number) {
  return JudgmentRecorded.parse({
    type: "judgment.recorded",
    ts,
    sweep: r.sweep,
    domain: r.domain,
    task: r.task,
    mode: r.mode,
    k: r.k,
    label: r.label,
    runId: r.runId,
    graded: r.graded,
    score: r.score,
    passed: r.passed,
    total: r.total,
    reason: r.reason,
    judge: r.judge,
    ...(r.metric === null ? {} : { metric: r.metric }),
  });
}
