// Whether a new sweep continues the experiment already recorded in this store. The experiment is
// (bench, substrate, tag); its seed and identity record (models, endpoints, …) must not change,
// while its task stream may grow or narrow. Never decides anything from paths or namespaces.

import type { Database } from "bun:sqlite";
import { Harness2Error } from "../src/core/lib/errors.ts";

export type StreamDomain = { domain: string; tasks: readonly string[] };

/** What a sweep.started declares about its experiment. */
export type ExperimentIdentity = {
  bench: string;
  substrate: string;
  tag: string;
  seed: number | null;
  /** Everything that must stay equal (models, endpoints, method version, split, …). */
  identity: Record<string, unknown>;
  /** The task stream; it may be extended (or run in part) without a new experiment. */
  domains: readonly StreamDomain[];
};

export type IdentityDifference = { field: string; before: unknown; after: unknown };

export type IdentityComparison = {
  differences: IdentityDifference[];
  addedDomains: string[];
  addedTasks: string[];
  /** Tasks recorded before that this sweep does not run (allowed: their records stay). */
  omittedTasks: string[];
};

export class IdentityMismatchError extends Harness2Error {
  constructor(
    readonly previousSweep: string,
    readonly differences: readonly IdentityDifference[],
  ) {
    const lines = differences.map((d) => `${d.field}: was ${show(d.before)}, now ${show(d.after)}`);
    super(
      `this runs directory holds a different experiment (last sweep ${previousSweep}): ${lines.join("; ")}. Use the same settings to continue it, or choose a new runs directory (--runs / HARNESS2_RUNS_DIR) for a new experiment.`,
    );
  }
}

function show(value: unknown): string {
  return value === undefined ? "(absent)" : JSON.stringify(value);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Leaf-by-leaf differences between two JSON values, named by dotted path. */
function diffValues(path: string, before: unknown, after: unknown, out: IdentityDifference[]) {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) diffValues(`${path}.${key}`, before[key], after[key], out);
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ field: path, before, after });
}

/** Compares a new sweep with what was recorded; differences are exact and ordered by field. */
export function compareIdentity(
  before: Pick<ExperimentIdentity, "seed" | "identity" | "domains">,
  after: Pick<ExperimentIdentity, "seed" | "identity" | "domains">,
): IdentityComparison {
  const differences: IdentityDifference[] = [];
  if (before.seed !== after.seed) {
    differences.push({ field: "seed", before: before.seed, after: after.seed });
  }
  // A sweep recorded before harness2 recorded its web policy and improver sandbox has neither:
  // that alone is no change.
  const ran = { ...before.identity };
  for (const key of ["web", "improverSandbox"]) {
    if (!(key in ran) && key in after.identity) ran[key] = after.identity[key];
  }
  diffValues("identity", ran, after.identity, differences);
  const beforeDomainOf = new Map<string, string>();
  for (const d of before.domains) for (const t of d.tasks) beforeDomainOf.set(t, d.domain);
  const beforeDomains = new Set(before.domains.map((d) => d.domain));
  const seen = new Set<string>();
  const addedTasks: string[] = [];
  for (const d of after.domains) {
    for (const t of d.tasks) {
      seen.add(t);
      const was = beforeDomainOf.get(t);
      if (was === undefined) addedTasks.push(t);
      else if (was !== d.domain) {
        differences.push({ field: `stream.${t}.domain`, before: was, after: d.domain });
      }
    }
  }
  return {
    differences,
    addedDomains: after.domains.map((d) => d.domain).filter((d) => !beforeDomains.has(d)),
    addedTasks,
    omittedTasks: [...beforeDomainOf.keys()].filter((t) => !seen.has(t)),
  };
}

export type Continuation = IdentityComparison & {
  /** The newest earlier sweep of this experiment, or null when this one starts it. */
  previousSweep: string | null;
};

type SweepIdentityRow = { id: string; seed: number | null; identity: string; domains: string };

/**
 * Checks a sweep about to start against the sweeps already recorded for its experiment and
 * throws IdentityMismatchError listing every difference. The stream is compared with the union
 * of all earlier sweeps' streams, the rest with the newest one.
 */
export function assertContinuesExperiment(db: Database, next: ExperimentIdentity): Continuation {
  const rows = db
    .query(`SELECT id, seed, identity, domains FROM sweeps
      WHERE bench = ? AND substrate = ? AND tag = ? AND announced = 1 ORDER BY id`)
    .all(next.bench, next.substrate, next.tag) as SweepIdentityRow[];
  const newest = rows[rows.length - 1];
  if (newest === undefined) {
    return {
      previousSweep: null,
      differences: [],
      addedDomains: next.domains.map((d) => d.domain),
      addedTasks: next.domains.flatMap((d) => d.tasks),
      omittedTasks: [],
    };
  }
  const union = new Map<string, Set<string>>();
  for (const row of rows) {
    for (const d of JSON.parse(row.domains) as StreamDomain[]) {
      const tasks = union.get(d.domain) ?? new Set<string>();
      for (const t of d.tasks) tasks.add(t);
      union.set(d.domain, tasks);
    }
  }
  const before = {
    seed: newest.seed,
    identity: JSON.parse(newest.identity) as Record<string, unknown>,
    domains: [...union].map(([domain, tasks]) => ({ domain, tasks: [...tasks] })),
  };
  const comparison = compareIdentity(before, next);
  if (comparison.differences.length > 0) {
    throw new IdentityMismatchError(newest.id, comparison.differences);
  }
  return { previousSweep: newest.id, ...comparison };
}
