// Money as the method records it: US dollars rounded to the micro-dollar, so sums of many spends
// leave no float residue in records, events or reports. Formatting for people lives in format.ts.

/** `usd` rounded to 6 decimal places. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/** The rounded sum of `values`. */
export function sumUsd(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return roundUsd(total);
}
