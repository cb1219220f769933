// The spending cap as a sweep records it (docs/method.md "Spending cap"): `run --max-usd` puts it
// in `sweep.started`'s config under `spendCap`, with what earlier runs of the same experiment had
// already spent, so every front end (the live view's header, the headless lines, show) can say
// how far the experiment is from its cap without asking the store.

import { z } from "zod";

export const SPEND_CAP_KEY = "spendCap";

export const SpendCap = z.object({
  /** The cap in dollars, for the whole experiment. */
  usd: z.number().positive(),
  /** What earlier runs of the same experiment had spent when this one started. */
  priorUsd: z.number().nonnegative(),
});
export type SpendCap = z.infer<typeof SpendCap>;

/** The cap a sweep's config records, or null when it ran without one (or recorded something else). */
export function spendCapOf(config: Record<string, unknown>): SpendCap | null {
  const parsed = SpendCap.safeParse(config[SPEND_CAP_KEY]);
  return parsed.success ? parsed.data : null;
}

/** The experiment's spend so far (earlier runs included) and its share of the cap in percent. */
export function capShare(cap: SpendCap, spentThisRun: number): { spent: number; pct: number } {
  const spent = cap.priorUsd + spentThisRun;
  return { spent, pct: Math.min(999, Math.floor((spent / cap.usd) * 100)) };
}

/** "$1.23 of the $5.00 cap (25%)" — the experiment's spend so far against its cap. */
export function capProgress(
  cap: SpendCap,
  spentThisRun: number,
  usd: (n: number) => string,
): string {
  const { spent, pct } = capShare(cap, spentThisRun);
  return `${usd(spent)} of the ${usd(cap.usd)} cap (${pct}%)`;
}

/** "  (experiment: $0.20 of the $0.20 cap (100%))" for a sweep run with a cap, else "" (show). */
export function capNote(
  config: Record<string, unknown>,
  spentThisRun: number,
  usd: (n: number) => string,
): string {
  const cap = spendCapOf(config);
  return cap === null ? "" : `  (experiment: ${capProgress(cap, spentThisRun, usd)})`;
}
