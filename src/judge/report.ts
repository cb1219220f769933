// The report's maths per mode × k: the mean over graded picks only (ungraded rows are counted,
// never zeros), the paired delta against the base harness, the spread of each mean (n, sd, 95%
// t-interval), provenance, fallbacks, similarity, spend, comparisons, notes and warnings. Pure:
// cells in, a Report value out; it never prints or scores.

import type { ModeToken } from "../core/events/registry.ts";
import {
  type BaseSummary,
  type Comparison,
  type ModeSummary,
  Report,
  type Spread,
  type TaskDelta,
} from "../core/report/types.ts";
import { MODE_NAMES } from "../core/run/naming.ts";
import { meanInterval } from "./report-stats.ts";
import type { BaseCell, PickCell } from "./sweep-data.ts";

export type { Report } from "../core/report/types.ts";

/** Scores and deltas are reported to 3 decimals; the table prints exactly these numbers. */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000 + 0;
/** USD to 4 decimals. */
export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000 + 0;

const mean = (xs: readonly number[]): number | null =>
  xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
const r3OrNull = (x: number | null): number | null => (x === null ? null : round3(x));

/** n, sd and the 95% t-interval of the mean of `xs`, each to 3 decimals (docs/differences.md S14). */
export function spreadOf(xs: readonly number[]): Spread {
  const i = meanInterval(xs);
  return {
    n: i.n,
    sd: r3OrNull(i.sd),
    t: i.t,
    halfWidth: r3OrNull(i.halfWidth),
    low: r3OrNull(i.low),
    high: r3OrNull(i.high),
  };
}

export const MODE_ORDER: readonly ModeToken[] = ["agg", "seq"];

export function cellName(mode: ModeToken, k: number): string {
  return `${MODE_NAMES[mode] ?? mode} k=${k}`;
}

/**
 * The kind of a graded pick (docs/method.md §12): a `base*` label is a base run; in parallel mode
 * an `agg*` label, in sequential mode `c1..ck`, is the mode's own final; anything else is a
 * candidate.
 */
export function pickKind(
  mode: ModeToken,
  k: number,
  label: string,
): "final" | "candidate" | "base" {
  if (label.startsWith("base")) return "base";
  if (mode === "agg") return label.startsWith("agg") ? "final" : "candidate";
  const m = /^c([1-9]\d*)$/.exec(label);
  return m && Number(m[1]) <= k ? "final" : "candidate";
}

const gradedScore = (c: PickCell): number | null =>
  c.judgment?.graded === true && c.judgment.score !== null ? c.judgment.score : null;

/** Each (task, k)'s mean over its graded base rollouts. */
function baseMeans(bases: readonly BaseCell[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const b of bases) {
    const scores = b.runs.flatMap((r) =>
      r.judgment?.graded === true && r.judgment.score !== null ? [r.judgment.score] : [],
    );
    const m = mean(scores);
    if (m !== null) out.set(`${b.task}\u0000${b.k}`, m);
  }
  return out;
}

function summariseCell(
  mode: ModeToken,
  k: number,
  cells: readonly PickCell[],
  baseOf: ReadonlyMap<string, number>,
): ModeSummary {
  const graded = cells.filter((c) => gradedScore(c) !== null);
  const scores = graded.map((c) => gradedScore(c) as number);
  const counted = graded.filter((c) => c.judgment?.passed != null && (c.judgment.total ?? 0) > 0);
  const perTask: TaskDelta[] = [];
  for (const c of graded) {
    const base = baseOf.get(`${c.task}\u0000${k}`);
    if (base === undefined) continue;
    const score = gradedScore(c) as number;
    perTask.push({
      task: c.task,
      score: round3(score),
      base: round3(base),
      delta: round3(score - base),
    });
  }
  const rawDeltas = graded.flatMap((c) => {
    const base = baseOf.get(`${c.task}\u0000${k}`);
    return base === undefined ? [] : [(gradedScore(c) as number) - base];
  });
  const rawBases = graded.flatMap((c) => {
    const base = baseOf.get(`${c.task}\u0000${k}`);
    return base === undefined ? [] : [base];
  });
  const kinds = { final: 0, candidate: 0, base: 0 };
  for (const c of graded) kinds[pickKind(mode, k, c.pick?.label ?? "")]++;
  const picks = { selector: 0, trivial: 0, fallback: 0, failed: 0, ...kinds };
  for (const c of cells) if (c.pick) picks[c.pick.kind]++;
  const similar = cells.flatMap((c) => (c.similarity ? [c.similarity] : []));
  const spend = { stages: 0, selection: 0, reflection: 0, executor: 0 };
  for (const c of cells) {
    spend.stages += c.spend.stages;
    spend.selection += c.spend.selection;
    spend.reflection += c.spend.reflection;
    spend.executor += c.spend.executor;
  }
  const metrics = [
    ...new Set(graded.flatMap((c) => (c.judgment?.metric ? [c.judgment.metric] : []))),
  ].sort();
  return {
    mode,
    k,
    name: cellName(mode, k),
    tasks: cells.length,
    n: graded.length,
    ungraded: cells.filter((c) => c.judgment !== null && gradedScore(c) === null).length,
    unjudged: cells.filter((c) => c.pick !== null && c.judgment === null).length,
    unfinished: cells.filter((c) => c.pick === null).length,
    score: r3OrNull(mean(scores)),
    scoreSpread: spreadOf(scores),
    allPass:
      counted.length === 0
        ? null
        : round3(
            counted.filter((c) => (c.judgment?.passed ?? 0) >= (c.judgment?.total ?? 0)).length /
              counted.length,
          ),
    base: { n: rawBases.length, score: r3OrNull(mean(rawBases)) },
    delta: {
      n: rawDeltas.length,
      mean: r3OrNull(mean(rawDeltas)),
      perTask,
      spread: spreadOf(rawDeltas),
    },
    picks,
    fellBack: {
      stages: cells.reduce((n, c) => n + c.fellBack, 0),
      tasks: cells.filter((c) => c.fellBack > 0).length,
    },
    similarity: {
      tasks: similar.length,
      meanLineJaccard: r3OrNull(mean(similar.map((s) => s.meanLineJaccard))),
      distinctShare: r3OrNull(mean(similar.map((s) => (s.n > 0 ? s.nDistinct / s.n : 1)))),
    },
    spend: {
      stages: round4(spend.stages),
      selection: round4(spend.selection),
      reflection: round4(spend.reflection),
      improver: round4(spend.stages + spend.selection + spend.reflection),
      executor: round4(spend.executor),
    },
    metrics,
  };
}

function summariseBases(k: number, bases: readonly BaseCell[]): BaseSummary {
  const runs = bases.flatMap((b) => b.runs);
  const means = [...baseMeans(bases).values()];
  return {
    k,
    tasks: bases.length,
    graded: runs.filter((r) => r.judgment?.graded === true).length,
    ungraded: runs.filter((r) => r.judgment !== null && r.judgment.graded !== true).length,
    unjudged: runs.filter((r) => r.judgment === null).length,
    score: r3OrNull(mean(means)),
    spread: spreadOf(means),
    executor: round4(bases.reduce((s, b) => s + b.executor, 0)),
  };
}

/** Mean of a − b over the tasks graded in both cells. */
function paired(
  a: readonly PickCell[],
  b: readonly PickCell[],
): { n: number; mean: number | null; spread: Spread } {
  const bScores = new Map(
    b.flatMap((c) => (gradedScore(c) === null ? [] : [[c.task, gradedScore(c) as number]])),
  );
  const diffs = a.flatMap((c) => {
    const x = gradedScore(c);
    const y = bScores.get(c.task);
    return x === null || y === undefined ? [] : [x - y];
  });
  return { n: diffs.length, mean: r3OrNull(mean(diffs)), spread: spreadOf(diffs) };
}

function comparisons(groups: ReadonlyMap<string, PickCell[]>, ks: number[]): Comparison[] {
  const get = (mode: ModeToken, k: number) => groups.get(`${mode}\u0000${k}`);
  const out: Comparison[] = [];
  for (const k of ks) {
    const agg = get("agg", k);
    const seq = get("seq", k);
    if (!agg || !seq) continue;
    out.push({
      kind: "modes",
      label: `sequential − parallel at k=${k}`,
      a: cellName("seq", k),
      b: cellName("agg", k),
      ...paired(seq, agg),
    });
  }
  for (const mode of MODE_ORDER) {
    const own = ks.filter((k) => get(mode, k));
    const k0 = own[0];
    if (k0 === undefined) continue;
    for (const k of own.slice(1)) {
      out.push({
        kind: "k",
        label: `${MODE_NAMES[mode]} k=${k} − k=${k0}`,
        a: cellName(mode, k),
        b: cellName(mode, k0),
        ...paired(get(mode, k) as PickCell[], get(mode, k0) as PickCell[]),
      });
    }
  }
  return out;
}

const fmt3 = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x > 0 ? "+" : ""}${x.toFixed(3)}`;

/**
 * One note per mode × k whose delta against the base harness cannot be told from no change: its
 * 95% interval includes 0, or it rests on a single task (no interval at all).
 */
function spreadNotes(summaries: readonly ModeSummary[]): string[] {
  const out: string[] = [];
  for (const s of summaries) {
    const { low, high, n } = s.delta.spread;
    if (n === 1) {
      out.push(
        `${s.name}: the delta rests on 1 paired task, too few for an interval; it is not distinguishable from no change`,
      );
    } else if (low !== null && high !== null && low <= 0 && high >= 0) {
      out.push(
        `${s.name}: the delta's 95% interval [${signed(low)}, ${signed(high)}] includes 0: not distinguishable from no change on these ${n} tasks`,
      );
    }
  }
  return out;
}

function warningsFor(summaries: readonly ModeSummary[], bases: readonly BaseSummary[]): string[] {
  const out: string[] = [];
  for (const s of summaries) {
    if (s.n > 0 && s.picks.final <= 0.25 * s.n) {
      out.push(
        `${s.name}: the mode's own final was picked on only ${s.picks.final}/${s.n} graded tasks, so the figures include outputs from outside the pool of k finals`,
      );
    }
    if (s.n > 0 && s.picks.base >= 0.8 * s.n) {
      out.push(
        `${s.name}: a base run was picked on ${s.picks.base}/${s.n} graded tasks, outside the pool of finals`,
      );
    }
    if (s.fellBack.stages > 0) {
      out.push(
        `${s.name}: ${s.fellBack.stages} improvement stage(s) fell back to the inherited harness on ${s.fellBack.tasks} task(s); inspect the stage errors (harness2 show)`,
      );
    }
    if (s.picks.fallback + s.picks.failed > 0) {
      out.push(
        `${s.name}: selection fell back on ${s.picks.fallback} and failed on ${s.picks.failed} of ${s.tasks} task(s); those picks are ungraded and out of the mean, so the score is conditioned on the selector succeeding`,
      );
    }
    const judgeFailures = s.ungraded - s.picks.fallback - s.picks.failed;
    if (judgeFailures > 0) {
      out.push(
        `${s.name}: ${judgeFailures} pick(s) are ungraded because the judge failed; they are out of the mean, not zeros (re-run harness2 judge)`,
      );
    }
    if (s.unjudged > 0) {
      out.push(`${s.name}: ${s.unjudged} pick(s) not judged yet (run harness2 judge)`);
    }
    if (s.metrics.length > 1) {
      out.push(
        `${s.name}: the graded rows mix scoring units (${s.metrics.join(", ")}); their mean averages unlike numbers — re-judge before comparing with any published figure`,
      );
    }
  }
  const anyPicks = summaries.some((s) => s.n > 0);
  if (anyPicks && bases.every((b) => b.graded === 0)) {
    out.push(
      "no base rollout has a graded judgment, so nothing is paired with the base harness (run harness2 judge --bases)",
    );
  }
  return out;
}

export type SummariseInput = {
  picks: readonly PickCell[];
  bases: readonly BaseCell[];
  bench: string;
  substrate: string;
  seed: number | null;
  tag: string;
  sweeps: readonly string[];
  /** Rollouts that ran with no known cost (see store unpricedRollouts); their spend is left out. */
  unpricedRollouts?: number;
  /** Which part of a partition the report shows, as its first note. */
  partition?: string;
  /** Whether the executor could reach the web, one note per policy the sweeps recorded. */
  web?: readonly string[];
};

/**
 * Per (mode, k) figures, comparisons, notes and warnings for the given cells. Differences from the
 * original (docs/differences.md S14; docs/method.md §12): scores stay fractions in [0, 1] (not
 * percent), the base harness is paired per task, modes and k are compared on the same tasks,
 * selection fallbacks get a warning (the mean is conditioned on the selector succeeding), spend
 * includes executor rollouts, and every mean and paired delta carries n, sd and a 95% t-interval,
 * with a note when a delta's interval includes 0 (docs/differences.md S14).
 */
export function summarise(input: SummariseInput): Report {
  const groups = new Map<string, PickCell[]>();
  for (const c of input.picks) {
    const key = `${c.mode}\u0000${c.k}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const ks = [...new Set(input.picks.map((c) => c.k))].sort((a, b) => a - b);
  const baseOf = baseMeans(input.bases);
  const summaries: ModeSummary[] = [];
  for (const k of ks) {
    for (const mode of MODE_ORDER) {
      const cells = groups.get(`${mode}\u0000${k}`);
      if (cells) summaries.push(summariseCell(mode, k, cells, baseOf));
    }
  }
  const bases = ks.map((k) =>
    summariseBases(
      k,
      input.bases.filter((b) => b.k === k),
    ),
  );
  const notes: string[] = [
    ...(input.partition === undefined ? [] : [input.partition]),
    ...(input.web ?? []),
  ];
  const k1 = summaries.filter((s) => s.k === 1 && s.score !== null);
  if (k1.length === 2) {
    const gap = round3(Math.abs((k1[0]?.score ?? 0) - (k1[1]?.score ?? 0)));
    notes.push(
      `k=1: parallel and sequential are the same procedure here (one invariant draw, one domain draw, one composition), so their gap of ${fmt3(gap)} is a noise floor that any k ≥ 2 effect must clear`,
    );
  }
  const carried = input.picks.filter((c) => c.carried).length;
  if (carried > 0) {
    notes.push(
      `${carried} task × mode result(s) come from earlier sweeps of this experiment (skipped on resume)`,
    );
  }
  notes.push(...spreadNotes(summaries));
  const judges = [
    ...new Set(
      [
        ...input.picks.map((c) => c.judgment),
        ...input.bases.flatMap((b) => b.runs.map((r) => r.judgment)),
      ].flatMap((j) => (j && j.judge !== "" ? [j.judge] : [])),
    ),
  ].sort();
  const modes = [...new Set(summaries.map((s) => MODE_NAMES[s.mode]))].join(",");
  const title = [
    `${input.bench}-${input.substrate}`,
    input.seed === null ? "" : `seed=${input.seed}`,
    input.tag === "" ? "" : `tag=${input.tag}`,
    ks.length > 0 ? `k=${ks.join(",")}` : "",
    modes === "" ? "" : `modes=${modes}`,
  ]
    .filter(Boolean)
    .join(" ");
  return Report.parse({
    title,
    bench: input.bench,
    substrate: input.substrate,
    sweeps: [...input.sweeps],
    judges,
    summaries,
    bases,
    comparisons: comparisons(groups, ks),
    notes,
    warnings: [
      ...warningsFor(summaries, bases),
      ...((input.unpricedRollouts ?? 0) > 0
        ? [
            `${input.unpricedRollouts} rollout(s) ran on an executor model without a price (HARNESS2_CODEX_PRICES), so their cost is unknown and the executor spend leaves them out`,
          ]
        : []),
      ...(judges.length > 1
        ? [
            `the rows come from ${judges.length} different judges; scores by different judges are not comparable`,
          ]
        : []),
    ],
  });
}
