// `--max-usd X` on run and demo (docs/method.md "Spending cap"): once the spend recorded for the
// experiment reaches X, no new paid call starts; sessions and executions already running finish
// and are recorded (a SoftStop, src/core/lib/interrupt.ts), and the sweep ends interrupted with
// reason "budget". The cap counts the whole experiment — every earlier run of the same bench,
// substrate, tag and seed in the store — so the same command with a higher cap resumes it, and
// nothing recorded is paid for twice (finished rollouts are reused, answered calls are cached).

import type { Database } from "bun:sqlite";
import type { HarnessEvent } from "../core/events/registry.ts";
import type { EventSink } from "../core/events/sink.ts";
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

/** What one event adds to the spend: an improver call's and a rollout's own usd. */
export function spendOf(ev: HarnessEvent): number {
  if (ev.type === "proposer.call") return ev.cached ? 0 : ev.usd;
  if (ev.type === "rollout.finished") return ev.reused ? 0 : ev.usd;
  return 0;
}

/**
 * Counts the spend as events are recorded and calls `onReached` once, when it reaches the cap.
 * Its `sink` joins the sweep's fan-out.
 */
export class SpendMeter {
  #spent: number;
  #reached = false;

  constructor(
    readonly capUsd: number,
    readonly priorUsd: number,
    private readonly onReached: (spent: number) => void,
  ) {
    this.#spent = priorUsd;
  }

  get spent(): number {
    return roundUsd(this.#spent);
  }

  get reached(): boolean {
    return this.#spent >= this.capUsd;
  }

  readonly sink: EventSink = {
    emit: (ev: HarnessEvent) => {
      const usd = spendOf(ev);
      if (usd <= 0) return;
      this.#spent += usd;
      if (!this.#reached && this.reached) {
        this.#reached = true;
        this.onReached(this.spent);
      }
    },
  };
}

/**
 * Refuses a cap it could not enforce (exit 1, before anything is spent): a Codex executor model
 * without a price in HARNESS2_CODEX_PRICES records each rollout's cost as unknown, which the cap
 * would count as nothing. (A Codex improver model without a price is refused by its channel.)
 */
export async function assertCapEnforceable(
  maxUsd: number | null,
  substrate: string,
  codexModel: string,
  env: Record<string, string | undefined>,
): Promise<void> {
  if (maxUsd === null || substrate !== "cx") return;
  const { loadPriceTable } = await import("../clis/codex-prices.ts");
  if (loadPriceTable(env)[codexModel] !== undefined) return;
  throw new CliError(
    `--max-usd cannot be enforced: the Codex executor model ${JSON.stringify(codexModel)} has no price in HARNESS2_CODEX_PRICES, so what its rollouts cost is unknown. Fix: add it, e.g. HARNESS2_CODEX_PRICES='{"${codexModel}": {"input": 1.25, "output": 10}}' (USD per million tokens), or run without --max-usd`,
  );
}
