// Timer delays that a timer can hold. A delay past 2^31 - 1 ms (about 24.8 days) makes
// setTimeout fire at once, so a generous limit from a setting (an idle limit, a session's wall
// clock) would end the thing it guards immediately; every such delay goes through timerDelay.

/** The longest delay setTimeout waits for: 2^31 - 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms`, or MAX_TIMER_MS when it is longer: a limit of more than 24.8 days waits 24.8 days. */
export function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}
