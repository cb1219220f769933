// The method's budget identity (docs/method.md §6), in one place: a mode at k spends R = 4k
// executor rollouts and P = 3k improver sessions. The ledger checks it; the events, the store's
// views and the live view show progress against it — all from these two functions.

/** k base + k INV + k DOM + k final executor rollouts. */
export function expectedRollouts(k: number): number {
  return 4 * k;
}

/** k INV + k DOM + k composition (agg<i> or c<t>) improver sessions. */
export function expectedSessions(k: number): number {
  return 3 * k;
}
