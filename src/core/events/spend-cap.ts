// The spending cap as a sweep records it (docs/method.md "Spending cap"): `run --max-usd` and
// `--max-tokens` put it in `sweep.started`'s config under `spendCap`, with what earlier runs of the
// same experiment had already spent, so every front end (the live view's header, the headless
// lines, show) can say how far the experiment is from its cap without asking the store.

import { z } from "zod";
import { formatUsd } from "../lib/format.ts";

export const SPEND_CAP_KEY = "spendCap";

export const SpendCap = z
  .object({
    /** The cap in dollars, for the whole experiment. */
    usd: z.number().positive().optional(),
    /** What earlier runs of the same experiment had spent when this one started. */
    priorUsd: z.number().nonnegative().default(0),
    /** The cap in dollars on any one task (per k). */
    perTask: z.number().positive().optional(),
    /** The cap on tokens of calls without a price (a Codex model not in the price table). */
    tokens: z.number().int().positive().optional(),
    /** Those tokens earlier runs of the same experiment had spent. */
    priorTokens: z.number().int().nonnegative().default(0),
  })
  .refine((c) => c.usd !== undefined || c.perTask !== undefined || c.tokens !== undefined);
export type SpendCap = z.infer<typeof SpendCap>;

/** What the experiment has spent in this run: dollars, and tokens of calls without a price. */
export type Spent = { usd: number; tokens: number };

/** The cap a sweep's config records, or null when it ran without one (or recorded something else). */
export function spendCapOf(config: Record<string, unknown>): SpendCap | null {
  const parsed = SpendCap.safeParse(config[SPEND_CAP_KEY]);
  return parsed.success ? parsed.data : null;
}

/** The experiment's dollars so far (earlier runs included) and their share of the dollar cap. */
export function capShare(cap: SpendCap, usdThisRun: number): { spent: number; pct: number } | null {
  if (cap.usd === undefined) return null;
  const spent = cap.priorUsd + usdThisRun;
  return { spent, pct: percent(spent, cap.usd) };
}

const percent = (spent: number, cap: number) => Math.min(999, Math.floor((spent / cap) * 100));

/**
 * "$1.23 of the $5.00 cap (25%)", "12,000 of the 50,000 token cap (24%)", or both joined by " · ":
 * the experiment's spend so far against each cap it has.
 */
export function capProgress(cap: SpendCap, thisRun: Partial<Spent>): string {
  const usd = (n: number) => formatUsd(n);
  const parts: string[] = [];
  if (cap.usd !== undefined) {
    const spent = cap.priorUsd + (thisRun.usd ?? 0);
    parts.push(`${usd(spent)} of the ${usd(cap.usd)} cap (${percent(spent, cap.usd)}%)`);
  }
  if (cap.perTask !== undefined) parts.push(`per task at most ${usd(cap.perTask)}`);
  // Tokens this run are known to the live front ends; `show` reads dollars only.
  if (cap.tokens !== undefined && thisRun.tokens !== undefined) {
    const spent = cap.priorTokens + thisRun.tokens;
    const n = (x: number) => x.toLocaleString("en-US");
    parts.push(`${n(spent)} of the ${n(cap.tokens)} token cap (${percent(spent, cap.tokens)}%)`);
  }
  return parts.join(" · ");
}

/** "  (experiment: $0.20 of the $0.20 cap (100%))" for a sweep run with a cap, else "" (show). */
export function capNote(config: Record<string, unknown>, thisRun: Partial<Spent>): string {
  const cap = spendCapOf(config);
  return cap === null ? "" : `  (experiment: ${capProgress(cap, thisRun)})`;
}

/** What one event adds to the spend: an uncached improver call, a rollout that ran (not reused). */
export function spentBy(ev: {
  type: string;
  cached?: boolean;
  reused?: boolean;
  usd?: number;
  priced?: boolean;
  tokens?: number;
}): Spent {
  if (ev.type === "proposer.call" && ev.cached === false) return { usd: ev.usd ?? 0, tokens: 0 };
  if (ev.type === "rollout.finished" && ev.reused === false) {
    return { usd: ev.usd ?? 0, tokens: ev.priced === false ? (ev.tokens ?? 0) : 0 };
  }
  return { usd: 0, tokens: 0 };
}
