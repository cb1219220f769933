// Interrupting a sweep (q / Ctrl-C / SIGTERM; the original had none, docs/differences.md X4):
// the sweep's AbortSignal reaches every call, stage, rollout, selection and reflection; work in
// hand stops at once, ends *interrupted*, is never recorded as finished, and resumes on the next
// run.

import { Harness2Error } from "./errors.ts";
import { mapLimited } from "./limiter.ts";
import { roundUsd } from "./money.ts";

/**
 * The work was stopped by the sweep's signal. It carries what the stopped work spent that no
 * finished record accounts for, so the sweep's spend stays complete.
 */
export class InterruptedError extends Harness2Error {
  static override readonly errorKind = "interrupted";
  constructor(
    message: string,
    readonly usd: number = 0,
  ) {
    super(message);
  }

  /** The same interruption with `usd` more spend (what the caller had spent around it). */
  plus(usd: number): InterruptedError {
    return new InterruptedError(this.message, roundUsd(this.usd + usd));
  }
}

/**
 * The reason of a stop that lets running work finish (a spending cap reached, docs/method.md
 * "Spending cap"): nothing new starts, but sessions and executions already running are not
 * killed, so what they paid for is recorded and kept. `hard` is the stop that still kills them (a
 * second request from the user).
 */
export class SoftStop {
  constructor(
    readonly why: "budget",
    readonly hard: AbortSignal,
  ) {}
}

/** Whether `signal` was stopped softly (nothing new starts; running work finishes). */
export function isSoftStop(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof SoftStop;
}

/**
 * The signal to give work that is starting now (a session, an execution): it aborts when the
 * sweep's signal aborts, except for a SoftStop, whose hard part it follows instead. `done()`
 * drops the listeners once the work has ended.
 */
export function runningSignal(signal: AbortSignal | undefined): {
  signal: AbortSignal | undefined;
  done: () => void;
} {
  if (signal === undefined) return { signal: undefined, done: () => {} };
  const running = new AbortController();
  let hard: AbortSignal | null = null;
  const onHard = () => running.abort();
  const follow = () => {
    const reason: unknown = signal.reason;
    if (!(reason instanceof SoftStop)) return running.abort(reason);
    hard = reason.hard;
    if (hard.aborted) running.abort();
    else hard.addEventListener("abort", onHard, { once: true });
  };
  if (signal.aborted) follow();
  else signal.addEventListener("abort", follow, { once: true });
  return {
    signal: running.signal,
    done: () => {
      signal.removeEventListener("abort", follow);
      (hard as AbortSignal | null)?.removeEventListener("abort", onHard);
    },
  };
}

/** Throws InterruptedError when `signal` has been aborted: nothing new starts after an interrupt. */
export function throwIfInterrupted(signal: AbortSignal | undefined, before: string): void {
  if (signal?.aborted) throw new InterruptedError(`interrupted before ${before}`);
}

/**
 * What `err` means once the work may have been interrupted: an InterruptedError as is; any other
 * failure while `signal` is aborted is the interrupt's doing (a killed session, an aborted
 * execution), never a verdict on the work, so it becomes an InterruptedError carrying the spend
 * the error reports. Null when the work was not interrupted.
 */
export function asInterruption(
  err: unknown,
  signal: AbortSignal | undefined,
): InterruptedError | null {
  if (err instanceof InterruptedError) return err;
  if (!signal?.aborted) return null;
  const usd = (err as { usd?: unknown } | null)?.usd;
  const spent = typeof usd === "number" && Number.isFinite(usd) && usd >= 0 ? usd : 0;
  const why = err instanceof Error ? err.message : String(err);
  return new InterruptedError(`interrupted: ${why}`, spent);
}

/**
 * mapLimited for work that can be interrupted: every item settles (a barrier, as mapLimited);
 * an interrupted item comes back as its InterruptedError instead of failing the whole map, so
 * the caller can keep what its siblings finished. Any other error is rethrown as mapLimited does.
 */
export function mapInterruptible<I, O>(
  items: readonly I[],
  width: number,
  fn: (item: I, index: number) => Promise<O>,
): Promise<(O | InterruptedError)[]> {
  return mapLimited(items, width, async (item, i) => {
    try {
      return await fn(item, i);
    } catch (err) {
      if (err instanceof InterruptedError) return err;
      throw err;
    }
  });
}

/**
 * The results of a settled phase, in order, when nothing was interrupted. Otherwise it throws one
 * InterruptedError carrying the spend of every item: the interrupted ones' and that of the
 * siblings that finished (an interrupted phase records none of its items; their finished work
 * is kept on disk and in the caches, so the next run reuses it).
 */
export function allOrInterrupted<O>(
  settled: readonly (O | InterruptedError)[],
  spendOf: (done: O) => number,
): O[] {
  const done: O[] = [];
  let interrupted: InterruptedError | null = null;
  for (const s of settled) {
    if (!(s instanceof InterruptedError)) done.push(s);
    else interrupted = interrupted === null ? s : interrupted.plus(s.usd);
  }
  if (interrupted === null) return done;
  throw interrupted.plus(done.reduce((sum, d) => sum + spendOf(d), 0));
}
