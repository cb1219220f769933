// The frame batcher: bursts of any size fold into a handful of flushes, flushes keep a frame
// apart (driven by a manual clock, never timed), and nothing it does reaches back into the emitter.

import { describe, expect, test } from "bun:test";
import { FRAME_MS, FrameBatcher, type FrameScheduler } from "../../tui/live/batcher.ts";
import { reduceAll } from "../../tui/live/reducer.ts";
import { initialState } from "../../tui/live/view-model.ts";
import { Script, sweepScript } from "./script.ts";

/** A manual clock: timers fire only when the test advances time. */
class FakeScheduler implements FrameScheduler {
  private t = 1000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  readonly delays: number[] = [];
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.nextId++;
    this.delays.push(ms);
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (id: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== id);
  };
  advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
  get pending() {
    return this.timers.length;
  }
}

/** ~10,000 events: a sweep of 160 two-mode tasks. */
const bigScript = () => sweepScript({ domains: 4, tasksPerDomain: 40 });

describe("FrameBatcher", () => {
  test("10,000 events fired synchronously cost a handful of renders and end in the same state", async () => {
    const events = bigScript().events;
    expect(events.length).toBeGreaterThan(10_000);
    const batcher = new FrameBatcher();
    let renders = 0;
    batcher.subscribe(() => renders++);
    for (const e of events) batcher.emit(e);
    expect(renders).toBe(0);
    await batcher.settled();
    expect(renders).toBeGreaterThanOrEqual(1);
    expect(renders).toBeLessThanOrEqual(3);
    expect(batcher.stats.reduced).toBe(events.length);
    expect(batcher.getState()).toEqual(reduceAll(initialState(), events));
  });

  test("flushes are at least one frame apart however fast events come", () => {
    const clock = new FakeScheduler();
    const batcher = new FrameBatcher({ scheduler: clock });
    let renders = 0;
    batcher.subscribe(() => renders++);
    const events = bigScript().events;
    // One event per simulated millisecond for the first second: at most ~30 frames.
    for (let ms = 0; ms < 1000; ms++) {
      batcher.emit(events[ms % events.length]!);
      clock.advance(1);
    }
    clock.advance(FRAME_MS);
    expect(renders).toBeGreaterThanOrEqual(25);
    expect(renders).toBeLessThanOrEqual(Math.ceil(1000 / FRAME_MS) + 1);
    // The first event after idle waits no frame; later ones wait out the rest of one.
    expect(clock.delays[0]).toBe(0);
    expect(Math.max(...clock.delays)).toBeLessThanOrEqual(FRAME_MS);
    expect(clock.pending).toBe(0);
  });

  test("a burst after a quiet spell is folded in at once, and no timer runs while idle", () => {
    const clock = new FakeScheduler();
    const batcher = new FrameBatcher({ scheduler: clock });
    const s = new Script().sweepStarted([{ domain: "a", tasks: ["t"] }]);
    batcher.emit(s.events[0]!);
    expect(clock.pending).toBe(1);
    clock.advance(0);
    expect(batcher.getState().sweep?.bench).toBe("demo");
    expect(clock.pending).toBe(0);
    clock.advance(10_000);
    batcher.dispatch({ type: "ui.log.toggle" });
    expect(clock.delays.at(-1)).toBe(0);
    clock.advance(0);
    expect(batcher.getState().showLog).toBe(true);
  });

  test("a reducer failure or a throwing listener never reaches the emitter", () => {
    const clock = new FakeScheduler();
    const batcher = new FrameBatcher({ scheduler: clock });
    batcher.subscribe(() => {
      throw new Error("view broke");
    });
    const bad = { type: "sweep.started", ts: 1 } as unknown as Parameters<FrameBatcher["emit"]>[0];
    const s = new Script().sweepStarted([{ domain: "a", tasks: ["t"] }]);
    expect(() => {
      batcher.emit(s.events[0]!);
      batcher.emit(bad);
      clock.advance(0);
    }).not.toThrow();
    expect(batcher.stats.dropped).toBe(1);
    expect(batcher.getState().sweep).not.toBeNull();
  });

  test("close() folds in what is queued; later events apply at once", () => {
    const clock = new FakeScheduler();
    const batcher = new FrameBatcher({ scheduler: clock });
    const s = new Script().sweepStarted([{ domain: "a", tasks: ["t"] }]).sweepFinished("failed");
    batcher.emit(s.events[0]!);
    batcher.close();
    expect(batcher.getState().sweep?.finished).toBeNull();
    batcher.emit(s.events[1]!);
    expect(batcher.getState().sweep?.finished?.status).toBe("failed");
    expect(clock.pending).toBe(0);
  });
});
