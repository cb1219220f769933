// The live view's EventSink: queues events (and key actions) and folds them into the reducer at
// most once per frame, so a burst of any size costs one render. emit() never throws back into the
// method and never does more than push onto a queue.

import type { HarnessEvent } from "../../src/core/events/registry.ts";
import type { EventSink } from "../../src/core/events/sink.ts";
import { type LiveAction, reduce } from "./reducer.ts";
import { initialState, type LiveState, type UiAction } from "./view-model.ts";

/** ~30 frames per second. */
export const FRAME_MS = 33;

/** Timers and time, injectable so tests can drive frames without waiting. */
export interface FrameScheduler {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const REAL_SCHEDULER: FrameScheduler = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export type BatcherStats = {
  /** Flushes that changed the state (each one is one notification, so at most one render). */
  flushes: number;
  /** Actions folded in. */
  reduced: number;
  /** Actions the reducer threw on; they were skipped. */
  dropped: number;
};

export type BatcherOptions = {
  frameMs?: number;
  initial?: LiveState;
  scheduler?: FrameScheduler;
};

export class FrameBatcher implements EventSink {
  private state: LiveState;
  private queue: LiveAction[] = [];
  private timer: unknown = null;
  private lastFlush = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly listeners = new Set<(s: LiveState) => void>();
  private readonly waiters: (() => void)[] = [];
  private readonly frameMs: number;
  private readonly scheduler: FrameScheduler;
  readonly stats: BatcherStats = { flushes: 0, reduced: 0, dropped: 0 };

  constructor(opts: BatcherOptions = {}) {
    this.state = opts.initial ?? initialState();
    this.frameMs = opts.frameMs ?? FRAME_MS;
    this.scheduler = opts.scheduler ?? REAL_SCHEDULER;
  }

  emit(event: HarnessEvent): void {
    this.enqueue(event);
  }

  /** A key action; it lands in the same frame as the events around it. */
  dispatch(action: UiAction): void {
    this.enqueue(action);
  }

  getState = (): LiveState => this.state;

  /** Called once per flush that changed the state; returns the unsubscribe function. */
  subscribe = (listener: (s: LiveState) => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Resolves after the queue has been folded in (at once when it is empty). */
  settled(): Promise<void> {
    if (this.queue.length === 0 && this.timer === null) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Folds everything queued into the state now and notifies once. */
  flush = (): void => {
    if (this.timer !== null) {
      this.scheduler.clearTimeout(this.timer);
      this.timer = null;
    }
    this.lastFlush = this.scheduler.now();
    const batch = this.queue;
    this.queue = [];
    let next = this.state;
    for (const action of batch) {
      try {
        next = reduce(next, action);
        this.stats.reduced++;
      } catch {
        // A reducer bug must not stop the run or the view; the store still has the event.
        this.stats.dropped++;
      }
    }
    if (next !== this.state) {
      this.state = next;
      this.stats.flushes++;
      for (const listener of this.listeners) {
        try {
          listener(next);
        } catch {
          // A broken view must never reach back into the method.
        }
      }
    }
    for (const resolve of this.waiters.splice(0)) resolve();
  };

  /** Flushes what is queued and stops scheduling; later events are folded in synchronously. */
  close(): void {
    this.closed = true;
    this.flush();
  }

  private enqueue(action: LiveAction): void {
    this.queue.push(action);
    if (this.closed) {
      this.flush();
      return;
    }
    if (this.timer !== null) return;
    const wait = Math.max(0, this.lastFlush + this.frameMs - this.scheduler.now());
    this.timer = this.scheduler.setTimeout(this.flush, wait);
  }
}
