// `run --dry-run`: what a sweep would do, before anything is run, written or spent — its task
// stream, namespaces and locks, the rollouts and improver sessions the plan implies, and what they
// would roughly cost, learned from earlier sweeps in the store (src/cli/spend/spend-estimate.ts).

import type { StoreLocation } from "../../../store/db.ts";
import type { ModeToken } from "../../core/events/registry.ts";
import { formatUsd } from "../../core/lib/format.ts";
import { expectedRollouts, expectedSessions } from "../../core/recursion/ledger.ts";
import { MODE_NAMES } from "../../core/run/naming.ts";
import type { BenchmarkAdapter } from "../../core/seams/benchmark.ts";
import type { CliIO } from "../command.ts";
import { openForBrowsing } from "../runs/run-handle.ts";
import {
  estimateSpend,
  type PlannedCalls,
  type PriceFallback,
  ROLES,
  recordedCallCosts,
  type SpendEstimate,
} from "../spend/spend-estimate.ts";
import { ASSUMED_TOKENS, assumedCallUsd, type UnitPrice } from "../spend/spend-prices.ts";
import type { AppliedPart } from "./partition-opts.ts";
import { lockNamespaces, modeNamespaces, type SweepCell } from "./sweep-cell.ts";

type PlanFlags = { k: number; modes: ModeToken[]; seed: number | null; tag: string };

const taskCount = (stream: Map<string, string[]>) =>
  [...stream.values()].reduce((n, t) => n + t.length, 0);

/** One task's rollouts and stage sessions over its modes (the k base rollouts shared by them). */
function perTaskBudget(f: PlanFlags): { rollouts: number; sessions: number } {
  const modes = f.modes.length;
  return {
    rollouts: modes * expectedRollouts(f.k) - (modes - 1) * f.k,
    sessions: modes * expectedSessions(f.k),
  };
}

/** The calls of each role a sweep of `stream` implies (bases shared by the modes). */
export function plannedCalls(f: PlanFlags, stream: Map<string, string[]>): PlannedCalls {
  const tasks = taskCount(stream);
  const modes = f.modes.length;
  const perTask = perTaskBudget(f);
  return {
    executor: tasks * perTask.rollouts,
    stages: tasks * perTask.sessions,
    // One selector session per task and mode when there is more than one final to choose from.
    selection: f.k > 1 ? tasks * modes : 0,
    reflection: tasks * modes,
  };
}

/** The estimate from the store at `where` (read-only; none when there is no store yet). */
export async function estimateFromStore(
  where: StoreLocation,
  models: { solver: string; improver: string },
  planned: PlannedCalls,
  prices: { executor: UnitPrice | null; improver: UnitPrice | null } = {
    executor: null,
    improver: null,
  },
): Promise<SpendEstimate> {
  const none = { executor: [], stages: [], selection: [], reflection: [] };
  let db: Awaited<ReturnType<typeof openForBrowsing>> = null;
  try {
    db = await openForBrowsing(where);
  } catch {
    // A store the dry run cannot read gives no estimate; the real run says what is wrong with it.
    db = null;
  }
  const fallback: PriceFallback = {};
  for (const role of ROLES) {
    const price = role === "executor" ? prices.executor : prices.improver;
    if (price !== null) fallback[role] = { usd: assumedCallUsd(role, price), source: price.source };
  }
  try {
    const costs = db === null ? none : recordedCallCosts(db, models);
    return estimateSpend(planned, costs, models, fallback);
  } finally {
    db?.close();
  }
}

export type PlanInputs = {
  adapter: BenchmarkAdapter;
  /** The sweep cell the command built (its namespaces and locks are derived from it). */
  cell: SweepCell;
  flags: PlanFlags;
  stream: Map<string, string[]>;
  runsRoot: string;
  json: boolean;
  part: AppliedPart | null;
  estimate: SpendEstimate;
};

export function printPlan(io: CliIO, p: PlanInputs): void {
  const { adapter, cell, flags: f, stream, runsRoot, part, estimate } = p;
  const namespaces = modeNamespaces(cell);
  // What the sweep will lock: the parallel namespace too, whose folders hold every mode's base
  // rollouts and the summaries (docs/differences.md R22).
  const locks = lockNamespaces(cell);
  const tasks = taskCount(stream);
  const perTask = perTaskBudget(f);
  const plan = {
    bench: adapter.spec.name,
    substrate: adapter.substrate.name,
    k: f.k,
    modes: f.modes.map((m) => MODE_NAMES[m]),
    namespaces,
    locks,
    runsRoot,
    ...(part === null ? {} : { partition: part.identity }),
    domains: [...stream.entries()].map(([domain, ids]) => ({ domain, tasks: ids })),
    budget: {
      perModePerTask: { R: expectedRollouts(f.k), P: expectedSessions(f.k) },
      perTask,
      total: { rollouts: tasks * perTask.rollouts, sessions: tasks * perTask.sessions },
    },
    estimate,
  };
  if (p.json) {
    io.stdout(`${JSON.stringify(plan, null, 2)}\n`);
    return;
  }
  io.stdout(
    `Dry run: ${plan.bench}/${plan.substrate} k=${f.k} modes=${plan.modes.join(",")} — nothing is run or written.\n`,
  );
  io.stdout(`Namespaces: ${namespaces.join(", ")} (under ${runsRoot})\n`);
  const shared = f.modes.includes("agg")
    ? ""
    : " (the parallel one holds the base rollouts and summaries)";
  io.stdout(`Locked while it runs: ${locks.join(", ")}${shared}\n`);
  if (part !== null) io.stdout(`${part.note[0]?.toUpperCase()}${part.note.slice(1)}.\n`);
  for (const d of plan.domains) io.stdout(`  ${d.domain}: ${d.tasks.join(", ")}\n`);
  io.stdout(
    `Budget per mode and task: R=${plan.budget.perModePerTask.R} rollouts, P=${plan.budget.perModePerTask.P} improver sessions (bases shared by the modes).\n`,
  );
  io.stdout(
    `Total: ${tasks} task(s), ${plan.budget.total.rollouts} executions, ${plan.budget.total.sessions} improver sessions, plus selection and reflection sessions.\n`,
  );
  for (const line of estimateLines(estimate)) io.stdout(`${line}\n`);
}

const ROLE_WORDS = {
  executor: "executor rollouts",
  stages: "improver stage sessions",
  selection: "selections",
  reflection: "reflections",
} as const;

/** The estimate in words: where it comes from, a range per role, and the total. */
export function estimateLines(e: SpendEstimate): string[] {
  if (e.basis === "none") {
    return [
      `Estimate: none yet — no earlier sweep in this store used ${e.models.solver} (executor) or ${e.models.improver} (improver), and no price table names them; a first small sweep (--max-tasks 1) teaches it, and --max-usd bounds it.`,
    ];
  }
  const range = (u: { low: number; median: number; high: number }) =>
    `${formatUsd(u.low)}–${formatUsd(u.high)} (median ${formatUsd(u.median)})`;
  const from = {
    store:
      "from the cost of earlier calls with the same models in this store (middle half of their spread)",
    prices:
      "from price tables × assumed tokens per call (half to twice; a first small sweep measures it)",
    mixed:
      "from earlier calls in this store where there are some, else price tables × assumed tokens",
  }[e.basis];
  const out = [`Estimate, ${from}:`];
  for (const role of ROLES) {
    const r = e.roles[role];
    if (r.calls === 0) continue;
    const what = `${r.calls} ${ROLE_WORDS[role]}`;
    const t = ASSUMED_TOKENS[role];
    const k = (n: number) => `${Math.round(n / 1000)}k`;
    out.push(
      r.usd === null
        ? `  ${what}: unknown (no earlier call of this kind with this model, and no price for it)`
        : r.basis === "prices"
          ? `  ${what}: ${range(r.usd)} at ${r.priceSource}'s price × ${k(t.input)} input + ${k(t.output)} output tokens each (assumed)`
          : `  ${what}: ${range(r.usd)} from ${r.samples} earlier call(s)`,
    );
  }
  const partial = e.total.complete ? "" : " for the roles above that have an estimate";
  out.push(`  total${partial}: ${range(e.total)}`);
  return out;
}
