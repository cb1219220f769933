// `--max-usd X` on run and demo (docs/method.md "Spending cap"): once the spend recorded for the
// experiment reaches X, no new paid call starts; sessions and executions already running finish
// and are recorded (a SoftStop, src/core/lib/interrupt.ts), and the sweep ends interrupted with
// reason "budget". The cap counts the whole experiment — every earlier run of the same bench,
// substrate, tag and seed in the store — so the same command with a higher cap resumes it, and
// nothing recorded is paid for twice (finished rollouts are reused, answered calls are cached).

import type { Database } from "bun:sqlite";
import type { HarnessEvent } from "../../core/events/registry.ts";
import type { EventSink } from "../../core/events/sink.ts";
import { type Spent, spentBy } from "../../core/events/spend-cap.ts";
import { formatUsd } from "../../core/lib/format.ts";
import { roundUsd } from "../../core/lib/money.ts";
import { type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";

export const CAP_OPTIONS = {
  "max-usd": {
    type: "string",
    valueName: "USD",
    description:
      "spending cap for the experiment: once its recorded spend reaches USD no new paid call starts (running ones finish); raise it and run again to resume",
  },
  "max-usd-per-task": {
    type: "string",
    valueName: "USD",
    description:
      "the same for any one task (per k): once a task's recorded spend reaches USD the sweep stops as with --max-usd",
  },
} as const satisfies OptionSpecs;

export const TOKEN_CAP_OPTIONS = {
  "max-tokens": {
    type: "int",
    min: 1,
    valueName: "N",
    description:
      "cap on the tokens of calls whose price is unknown (a Codex model not in HARNESS2_CODEX_PRICES), counted like --max-usd",
  },
} as const satisfies OptionSpecs;

/** `--max-usd` (or `flag`) as a number of dollars (> 0, finite), null when absent; a bad value is exit 2. */
export function capOf(raw: string | undefined, command: string, flag = "--max-usd"): number | null {
  if (raw === undefined) return null;
  const usd = Number(raw.trim());
  if (!/^\d*\.?\d+$/.test(raw.trim()) || !Number.isFinite(usd) || usd <= 0) {
    throw new UsageError(`${flag} must be a positive amount of dollars, got '${raw}'`, command);
  }
  return usd;
}

/** The caps of a command line's `--max-usd`, `--max-usd-per-task` and `--max-tokens`. */
export function capsOf(
  opts: { "max-usd"?: string; "max-usd-per-task"?: string; "max-tokens"?: number },
  command: string,
): Caps {
  return {
    usd: capOf(opts["max-usd"], command),
    perTask: capOf(opts["max-usd-per-task"], command, "--max-usd-per-task"),
    tokens: opts["max-tokens"] ?? null,
  };
}

/** The experiment a cap counts: the sweeps `assertContinuesExperiment` treats as one. */
export type CapCell = { bench: string; substrate: string; tag: string; seed: number | null };

/** What the store records as spent by every sweep of `cell` so far (uncached calls, rollouts run). */
export function recordedSpend(db: Database, cell: CapCell): number {
  const row = db
    .query(
      `SELECT COALESCE(SUM(sp.improver_usd + sp.executor_usd), 0) AS usd
       FROM sweep_spend sp JOIN sweeps s ON s.id = sp.sweep_id
       WHERE s.bench = ? AND s.substrate = ? AND s.tag = ? AND s.seed IS ?`,
    )
    .get(cell.bench, cell.substrate, cell.tag, cell.seed) as { usd: number } | null;
  return roundUsd(row?.usd ?? 0);
}

/**
 * Tokens the store records for the experiment's rollouts whose cost is unknown (run, not reused):
 * what `--max-tokens` counts.
 */
export function recordedTokens(db: Database, cell: CapCell): number {
  const row = db
    .query(
      `SELECT COALESCE(SUM(r.tokens), 0) AS tokens
       FROM rollouts r JOIN tasks t ON t.id = r.task_id JOIN sweeps s ON s.id = t.sweep_id
       WHERE s.bench = ? AND s.substrate = ? AND s.tag = ? AND s.seed IS ?
         AND r.finished = 1 AND r.priced = 0 AND COALESCE(r.reused, 0) = 0`,
    )
    .get(cell.bench, cell.substrate, cell.tag, cell.seed) as { tokens: number } | null;
  return row?.tokens ?? 0;
}

/** The caps of one run: dollars, dollars per task, tokens of calls without a price; null: none. */
export type Caps = { usd: number | null; perTask: number | null; tokens: number | null };

export const hasCap = (c: Caps): boolean =>
  c.usd !== null || c.perTask !== null || c.tokens !== null;

/** What the experiment had spent before this run (the store's records), with each task's dollars. */
export type Prior = Spent & { byTask: Map<string, number> };

/** A task's key in the per-task tally: domain, task and k. */
export const taskKey = (e: { domain: string; task: string; k: number }): string =>
  `${e.domain}\u0000${e.task}\u0000${e.k}`;

export function priorSpend(db: Database, cell: CapCell, caps: Caps): Prior {
  return {
    usd: caps.usd === null ? 0 : recordedSpend(db, cell),
    tokens: caps.tokens === null ? 0 : recordedTokens(db, cell),
    byTask: caps.perTask === null ? new Map() : recordedTaskSpend(db, cell),
  };
}

/** Each task's (domain, task, k) recorded spend across the experiment: uncached calls, rollouts run. */
export function recordedTaskSpend(db: Database, cell: CapCell): Map<string, number> {
  const rows = db
    .query(
      `SELECT t.domain AS domain, t.task AS task, t.k AS k, SUM(x.usd) AS usd FROM (
         SELECT c.task_id AS task_id, c.usd AS usd FROM proposer_calls c WHERE c.cached = 0
         UNION ALL
         SELECT r.task_id, r.usd FROM rollouts r WHERE COALESCE(r.reused, 0) = 0
       ) x JOIN tasks t ON t.id = x.task_id JOIN sweeps s ON s.id = t.sweep_id
       WHERE s.bench = ? AND s.substrate = ? AND s.tag = ? AND s.seed IS ?
       GROUP BY t.domain, t.task, t.k`,
    )
    .all(cell.bench, cell.substrate, cell.tag, cell.seed) as {
    domain: string;
    task: string;
    k: number;
    usd: number;
  }[];
  return new Map(rows.map((r) => [taskKey(r), roundUsd(r.usd)]));
}

/**
 * Which cap `spent` has reached, in words ("spending cap $0.20 reached ($0.21 recorded for this
 * experiment)"; `reached` may say "is already reached"), else null.
 */
export function capReached(caps: Caps, spent: Spent, reached = "reached"): string | null {
  if (caps.usd !== null && spent.usd >= caps.usd) {
    return `spending cap ${formatUsd(caps.usd)} ${reached} (${formatUsd(spent.usd)} recorded for this experiment)`;
  }
  if (caps.tokens !== null && spent.tokens >= caps.tokens) {
    return `token cap ${caps.tokens} ${reached} (${spent.tokens} tokens of calls without a price recorded for this experiment)`;
  }
  return null;
}

/**
 * Counts the spend as events are recorded and calls `onReached` once, when it reaches a cap.
 * Its `sink` joins the sweep's fan-out.
 */
export class SpendMeter {
  #spent: Spent;
  #reached = false;
  readonly #byTask: Map<string, number>;

  constructor(
    readonly caps: Caps,
    prior: Prior,
    private readonly onReached: (why: string) => void,
  ) {
    this.#spent = { usd: prior.usd, tokens: prior.tokens };
    this.#byTask = new Map(prior.byTask);
  }

  #trip(why: string | null): void {
    if (why === null || this.#reached) return;
    this.#reached = true;
    this.onReached(why);
  }

  /** The per-task cap reached by the task an event belongs to, in words; else null. */
  #taskCap(ev: HarnessEvent, add: number): string | null {
    const cap = this.caps.perTask;
    if (cap === null || add <= 0 || !("task" in ev) || ev.task === undefined) return null;
    const k = "k" in ev ? ev.k : undefined;
    if (k === undefined || !("domain" in ev) || ev.domain === undefined) return null;
    const key = taskKey({ domain: ev.domain, task: ev.task, k });
    const usd = (this.#byTask.get(key) ?? 0) + add;
    this.#byTask.set(key, usd);
    // A task an earlier run brought to its cap stops the sweep at its first new paid call (a task
    // that is skipped because it finished spends nothing here).
    if (usd < cap) return null;
    return `per-task cap ${formatUsd(cap)} reached by ${ev.task} k=${k} (${formatUsd(usd)} recorded for it)`;
  }

  /** The experiment's spend so far, earlier runs included. */
  get spent(): Spent {
    return { usd: roundUsd(this.#spent.usd), tokens: this.#spent.tokens };
  }

  readonly sink: EventSink = {
    emit: (ev: HarnessEvent) => {
      const add = spentBy(ev);
      this.#trip(this.#taskCap(ev, add.usd));
      if (add.usd <= 0 && add.tokens <= 0) return;
      this.#spent = { usd: this.#spent.usd + add.usd, tokens: this.#spent.tokens + add.tokens };
      this.#trip(capReached(this.caps, this.spent));
    },
  };
}

/**
 * Refuses a dollar cap it could not enforce (exit 1, before anything is spent): a Codex executor
 * model without a price in HARNESS2_CODEX_PRICES records each rollout's cost as unknown, which
 * `--max-usd` cannot count — unless `--max-tokens` bounds those. (A Codex improver model without a
 * price is refused by its channel.)
 */
export async function assertCapEnforceable(
  caps: Caps,
  substrate: string,
  codexModel: string,
  env: Record<string, string | undefined>,
): Promise<void> {
  if (caps.usd === null || caps.tokens !== null || substrate !== "cx") return;
  const { loadPriceTable } = await import("../../agent-cli/codex-prices.ts");
  if (loadPriceTable(env)[codexModel] !== undefined) return;
  throw new CliError(
    `--max-usd cannot be enforced: the Codex executor model ${JSON.stringify(codexModel)} has no price in HARNESS2_CODEX_PRICES, so what its rollouts cost is unknown. Fix: add it, e.g. HARNESS2_CODEX_PRICES='{"${codexModel}": {"input": 1.25, "output": 10}}' (USD per million tokens), or bound those rollouts with --max-tokens N too`,
  );
}
