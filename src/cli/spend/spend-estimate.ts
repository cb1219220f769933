// What a planned sweep will roughly cost, before anything is spent (issue 34; docs/method.md
// "Spending cap"): the calls the plan implies per role — executor rollouts, improver stage
// sessions, selections, reflections — times what one such call cost in earlier sweeps in the store
// with the same models (the middle half of their spread, and the median). Only recorded calls
// count: not cached ones, not reused rollouts, not failed calls, not rollouts of unknown price. A
// role with no earlier call falls back on its model's price table times an assumed number of
// tokens per call (src/cli/spend/spend-prices.ts), half to twice that, and says so; a role with neither
// has no estimate, said so.

import type { Database } from "bun:sqlite";
import { roundUsd } from "../../core/lib/money.ts";

export type Role = "executor" | "stages" | "selection" | "reflection";
export const ROLES: readonly Role[] = ["executor", "stages", "selection", "reflection"];

/** How many calls of each role the plan implies. */
export type PlannedCalls = Record<Role, number>;

export type RoleEstimate = {
  calls: number;
  /** Earlier calls of this role and model the figures come from; 0 = none. */
  samples: number;
  /** "store": earlier calls; "prices": a price table × assumed tokens; null: no estimate. */
  basis: "store" | "prices" | null;
  /** With basis "prices": where the price came from (e.g. HARNESS2_CODEX_PRICES). */
  priceSource?: string;
  /** calls × the 25th, 50th and 75th percentile of one call's cost; null without samples. */
  usd: { low: number; median: number; high: number } | null;
};

/** One call's assumed cost per role, and where its price came from (the fallback). */
export type PriceFallback = Partial<Record<Role, { usd: number; source: string }>>;

export type SpendEstimate = {
  /** Which the roles' figures came from: the store, price tables, both, or nothing. */
  basis: "store" | "prices" | "mixed" | "none";
  models: { solver: string; improver: string };
  roles: Record<Role, RoleEstimate>;
  /** The sum over roles that have an estimate; `complete` false when a role with calls has none. */
  total: { low: number; median: number; high: number; complete: boolean };
};

/** The q-quantile of sorted values (linear between neighbours). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 1) return sorted[0] as number;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (at - lo);
}

/** One call's recorded costs per role, for these models, from every sweep in the store. */
export function recordedCallCosts(
  db: Database,
  models: { solver: string; improver: string },
): Record<Role, number[]> {
  const purposes: Record<Exclude<Role, "executor">, string> = {
    stages: "stage",
    selection: "selection",
    reflection: "reflection",
  };
  const out = { executor: [], stages: [], selection: [], reflection: [] } as Record<Role, number[]>;
  for (const [role, purpose] of Object.entries(purposes) as [Exclude<Role, "executor">, string][]) {
    const rows = db
      .query(
        `SELECT usd FROM proposer_calls
         WHERE purpose = ? AND model = ? AND cached = 0 AND error = '' AND attempts > 0`,
      )
      .all(purpose, models.improver) as { usd: number }[];
    out[role] = rows.map((r) => r.usd);
  }
  const rollouts = db
    .query(
      `SELECT r.usd AS usd FROM rollouts r JOIN tasks t ON t.id = r.task_id
       JOIN sweeps s ON s.id = t.sweep_id
       WHERE r.finished = 1 AND COALESCE(r.reused, 0) = 0 AND r.ok = 1 AND r.priced = 1
         AND json_extract(s.identity, '$.solverModel') = ?`,
    )
    .all(models.solver) as { usd: number }[];
  out.executor = rollouts.map((r) => r.usd);
  return out;
}

/** The estimate for `planned` calls from `costs` (one call's recorded costs per role). */
export function estimateSpend(
  planned: PlannedCalls,
  costs: Record<Role, number[]>,
  models: { solver: string; improver: string },
  fallback: PriceFallback = {},
): SpendEstimate {
  const roles = {} as Record<Role, RoleEstimate>;
  const total = { low: 0, median: 0, high: 0, complete: true };
  for (const role of ROLES) {
    const calls = planned[role];
    const sorted = [...costs[role]]
      .filter((x) => Number.isFinite(x) && x >= 0)
      .sort((a, b) => a - b);
    const priced = fallback[role];
    if (sorted.length === 0 && priced !== undefined) {
      const usd = {
        low: roundUsd(calls * priced.usd * 0.5),
        median: roundUsd(calls * priced.usd),
        high: roundUsd(calls * priced.usd * 2),
      };
      roles[role] = { calls, samples: 0, basis: "prices", priceSource: priced.source, usd };
      total.low += usd.low;
      total.median += usd.median;
      total.high += usd.high;
      continue;
    }
    if (sorted.length === 0) {
      roles[role] = { calls, samples: 0, basis: null, usd: null };
      if (calls > 0) total.complete = false;
      continue;
    }
    const usd = {
      low: roundUsd(calls * quantile(sorted, 0.25)),
      median: roundUsd(calls * quantile(sorted, 0.5)),
      high: roundUsd(calls * quantile(sorted, 0.75)),
    };
    roles[role] = { calls, samples: sorted.length, basis: "store", usd };
    total.low += usd.low;
    total.median += usd.median;
    total.high += usd.high;
  }
  const used = new Set(ROLES.filter((r) => roles[r].calls > 0).map((r) => roles[r].basis));
  const basis =
    used.has("store") && used.has("prices")
      ? "mixed"
      : used.has("store")
        ? "store"
        : used.has("prices")
          ? "prices"
          : "none";
  return {
    basis,
    models,
    roles,
    total: {
      low: roundUsd(total.low),
      median: roundUsd(total.median),
      high: roundUsd(total.high),
      complete: total.complete,
    },
  };
}
