// `--max-usd X` on run and demo (docs/method.md "Spending cap"): once the spend recorded for the
// experiment reaches X, no new paid call starts; sessions and executions already running finish
// and are recorded (a SoftStop, src/core/lib/interrupt.ts), and the sweep ends interrupted with
// reason "budget". The cap counts the whole experiment — every earlier run of the same bench,
// substrate, tag and seed in the store — so the same command with a higher cap resumes it, and
// nothing recorded is paid for twice (finished rollouts are reused, answered calls are cached).

import type { Database } from "bun:sqlite";
import type { HarnessEvent } from "../core/events/registry.ts";
import type { EventSink } from "../core/events/sink.ts";
import { type Spent, spentBy } from "../core/events/spend-cap.ts";
import { formatUsd } from "../core/lib/format.ts";
import { roundUsd } from "../core/lib/money.ts";
import { type OptionSpecs, UsageError } from "./command.ts";
import { CliError } from "./errors.ts";

export const CAP_OPTIONS = {
  "max-usd": {
    type: "string",
    valueName: "USD",
    description:
      "spending cap for the experiment: once its recorded spend reaches USD no new paid call starts (running ones finish); raise it and run again to resume",
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

/** `--max-usd` as a number of dollars (> 0, finite), null when absent; a bad value is exit 2. */
export function capOf(raw: string | undefined, command: string): number | null {
  if (raw === undefined) return null;
  const usd = Number(raw.trim());
  if (!/^\d*\.?\d+$/.test(raw.trim()) || !Number.isFinite(usd) || usd <= 0) {
    throw new UsageError(`--max-usd must be a positive amount of dollars, got '${raw}'`, command);
  }
  return usd;
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

/** The caps of one run: dollars, tokens of calls without a price; null where none was given. */
export type Caps = { usd: number | null; tokens: number | null };

/** What the experiment had spent before this run (the store's records). */
export function priorSpend(db: Database, cell: CapCell, caps: Caps): Spent {
  return {
    usd: caps.usd === null ? 0 : recordedSpend(db, cell),
    tokens: caps.tokens === null ? 0 : recordedTokens(db, cell),
  };
}

/** Which cap `spent` has reached, in words ("$0.20 recorded for this experiment"), else null. */
export function capReached(caps: Caps, spent: Spent): string | null {
  if (caps.usd !== null && spent.usd >= caps.usd) {
    return `spending cap ${formatUsd(caps.usd)} reached (${formatUsd(spent.usd)} recorded for this experiment)`;
  }
  if (caps.tokens !== null && spent.tokens >= caps.tokens) {
    return `token cap ${caps.tokens} reached (${spent.tokens} tokens of calls without a price recorded for this experiment)`;
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

  constructor(
    readonly caps: Caps,
    prior: Spent,
    private readonly onReached: (why: string) => void,
  ) {
    this.#spent = { ...prior };
  }

  /** The experiment's spend so far, earlier runs included. */
  get spent(): Spent {
    return { usd: roundUsd(this.#spent.usd), tokens: this.#spent.tokens };
  }

  readonly sink: EventSink = {
    emit: (ev: HarnessEvent) => {
      const add = spentBy(ev);
      if (add.usd <= 0 && add.tokens <= 0) return;
      this.#spent = { usd: this.#spent.usd + add.usd, tokens: this.#spent.tokens + add.tokens };
      const why = this.#reached ? null : capReached(this.caps, this.spent);
      if (why !== null) {
        this.#reached = true;
        this.onReached(why);
      }
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
  const { loadPriceTable } = await import("../clis/codex-prices.ts");
  if (loadPriceTable(env)[codexModel] !== undefined) return;
  throw new CliError(
    `--max-usd cannot be enforced: the Codex executor model ${JSON.stringify(codexModel)} has no price in HARNESS2_CODEX_PRICES, so what its rollouts cost is unknown. Fix: add it, e.g. HARNESS2_CODEX_PRICES='{"${codexModel}": {"input": 1.25, "output": 10}}' (USD per million tokens), or bound those rollouts with --max-tokens N too`,
  );
}
