// The two kinds of stop (docs/method.md "Spending cap"): a user's stop kills running work; a soft
// stop (the spending cap) stops new work from starting and lets running work finish, until a user
// stops it too.
import { describe, expect, test } from "bun:test";
import { isSoftStop, runningSignal, SoftStop } from "../../../src/core/lib/interrupt.ts";

describe("runningSignal", () => {
  test("follows a user's stop at once", () => {
    const sweep = new AbortController();
    const running = runningSignal(sweep.signal);
    expect(running.signal?.aborted).toBe(false);
    sweep.abort();
    expect(running.signal?.aborted).toBe(true);
    running.done();
  });

  test("a soft stop leaves running work alone until the hard stop it carries", () => {
    const user = new AbortController();
    const cap = new AbortController();
    const sweep = AbortSignal.any([user.signal, cap.signal]);
    const running = runningSignal(sweep);
    cap.abort(new SoftStop("budget", user.signal));
    expect(sweep.aborted).toBe(true);
    expect(isSoftStop(sweep)).toBe(true);
    expect(running.signal?.aborted).toBe(false);
    user.abort();
    expect(running.signal?.aborted).toBe(true);
    running.done();
  });

  test("work that starts after a soft stop is not killed by it either; a user's stop still is", () => {
    const user = new AbortController();
    const sweep = new AbortController();
    sweep.abort(new SoftStop("budget", user.signal));
    const running = runningSignal(sweep.signal);
    expect(running.signal?.aborted).toBe(false);
    user.abort();
    expect(running.signal?.aborted).toBe(true);
    expect(isSoftStop(new AbortController().signal)).toBe(false);
    expect(runningSignal(undefined).signal).toBeUndefined();
  });

  test("done() drops the listener: a later stop no longer reaches it", () => {
    const sweep = new AbortController();
    const running = runningSignal(sweep.signal);
    running.done();
    sweep.abort();
    expect(running.signal?.aborted).toBe(false);
  });
});
