// The live view's container in a fake terminal of a chosen size: frame budget under 10,000 events,
// keys (focus, log, acknowledge, stop), resize, NO_COLOR, <Static> rows, and startLiveView.

import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import chalk from "chalk";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { FrameBatcher } from "../../tui/live/batcher.ts";
import { LiveApp } from "../../tui/live/live-app.tsx";
import { reduceAll } from "../../tui/live/reducer.ts";
import { colorEnabled, startLiveView } from "../../tui/live/start.ts";
import { initialState } from "../../tui/live/view-model.ts";
import { KEYS, type Rendered, renderInk, settle } from "./ink-harness.ts";
import { Script, sweepScript } from "./script.ts";

const ESC = "\u001b[";
let savedLevel: typeof chalk.level;
beforeAll(() => {
  savedLevel = chalk.level;
  chalk.level = 1;
});
afterAll(() => {
  chalk.level = savedLevel;
});

let mounted: Rendered[] = [];
afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
});

type Calls = { stop: number; force: number };

function mount(
  events: HarnessEvent[],
  o: { color?: boolean; columns?: number; rows?: number } = {},
): { r: Rendered; batcher: FrameBatcher; calls: Calls } {
  const batcher = new FrameBatcher();
  for (const e of events) batcher.emit(e);
  batcher.flush();
  const calls: Calls = { stop: 0, force: 0 };
  const last = events.at(-1)?.ts ?? 0;
  const r = renderInk(
    <LiveApp
      batcher={batcher}
      sweepLabel="demo"
      color={o.color ?? false}
      onStopRequest={() => calls.stop++}
      onForceStop={() => calls.force++}
      clock={() => last + 5000}
      tickMs={0}
    />,
    { columns: o.columns ?? 100, rows: o.rows ?? 40 },
  );
  mounted.push(r);
  return { r, batcher, calls };
}

/** Two lanes busy: acct on ledger-2 (parallel in compositions), law on brief-1; one tripwire. */
function midRun(): HarnessEvent[] {
  const s = new Script().sweepStarted([
    { domain: "acct", tasks: ["ledger-1", "ledger-2"] },
    { domain: "law", tasks: ["brief-1"] },
  ]);
  s.task("acct", "ledger-1", { of: 2, tripwireAt: "dom1", modes: ["agg"] });
  const next = new Script().task("acct", "ledger-2", { index: 2, of: 2 });
  const cut = next.events.findIndex((e) => e.type === "stage.finished" && e.label === "agg1");
  for (const e of next.events.slice(0, cut)) s.push(e);
  s.taskStarted("law", "brief-1");
  s.stageStarted("law", "brief-1", "agg", 2, "inv1", "INV");
  return s.events;
}

describe("LiveApp", () => {
  test("10,000 events fired at once cost a handful of frames, and the last one is complete", async () => {
    const { r, batcher } = mount([]);
    await r.waitFor((f) => f.includes("starting"));
    const before = r.frameCount();
    const events = sweepScript({ domains: 4, tasksPerDomain: 40 }).events;
    expect(events.length).toBeGreaterThan(10_000);
    for (const e of events) batcher.emit(e);
    await batcher.settled();
    await settle(r);
    expect(r.frameCount() - before).toBeLessThanOrEqual(4);
    expect(batcher.getState()).toEqual(reduceAll(initialState(), events));
    const frame = r.lastFrame();
    expect(frame).toContain("tasks 160 ok · 0 failed · 0 skipped of 160");
    expect(frame).toContain("100%");
    expect(frame).toContain("last finished (ok) d3-task-39 k=2 in d3");
    expect(frame).toMatch(/parallel {4}B → agg2 of 2 “Candidate B reconciles every ledger”/);
  });

  test("shows the focused task's stage tables, ledger and selections; tab moves the focus", async () => {
    const { r } = mount(midRun());
    let frame = await r.waitFor((f) => f.includes("▶ focused"));
    expect(frame).toContain("▶ focused ledger-2 k=2 in acct — task 1 of 2 in flight");
    expect(frame).toMatch(/agg1\s+│ AGG │ ⠋ running/);
    expect(frame).toMatch(/parallel\s+rollouts R █+░+ 6\/8\s+sessions P █+░+ 4\/6/);
    expect(frame).not.toMatch(/B → agg/);
    r.type(KEYS.tab);
    frame = await r.waitFor((f) => f.includes("▶ focused brief-1"));
    expect(frame).toMatch(/inv1\s+│ INV │ ⠋ running/);
    expect(frame).toMatch(/▶ law/);
    r.type(KEYS.left);
    await r.waitFor((f) => f.includes("▶ focused ledger-2"));
  });

  test("a tripwire stays red until `a` acknowledges it", async () => {
    const { r } = mount(midRun(), { color: true });
    const frame = await r.waitFor((f) => f.includes("TRIPWIRE"));
    expect(frame).toMatch(/\u001b\[31m[^\n]*grader_verdict at dom1/);
    r.type("a");
    const after = await r.waitFor((f) => !f.includes("TRIPWIRE"));
    expect(after).toContain("▶ focused");
    expect(after).not.toContain("acknowledge");
  });

  test("`l` toggles the event log", async () => {
    const { r } = mount(midRun());
    await r.waitFor((f) => f.includes("l show log"));
    r.type("l");
    const frame = await r.waitFor((f) => f.includes("event log"));
    expect(frame).toMatch(/\d\d:\d\d:\d\d \[law 1\/1\] brief-1 k=2: started/);
    expect(frame).toContain("l hide log");
    r.type("l");
    await r.waitFor((f) => !f.includes("event log"));
  });

  test("`?` shows what the words and marks mean, and closes again", async () => {
    const { r } = mount(midRun());
    await r.waitFor((f) => f.includes("? words"));
    r.type("?");
    const frame = await r.waitFor((f) => f.includes("what the words mean"));
    expect(frame).toContain("R, P       rollouts and improver sessions so far");
    expect(frame).toContain("harness2 help concepts");
    r.type("?");
    await r.waitFor((f) => !f.includes("what the words mean"));
  });

  test("the first q or Ctrl-C only asks; the second stops; a third stops at once", async () => {
    const { r, calls } = mount(midRun());
    await r.waitFor((f) => f.includes("q stop"));
    r.type("q");
    await r.waitFor((f) => f.includes("stop? running work is cancelled"));
    expect(calls).toEqual({ stop: 0, force: 0 });
    r.type("q");
    await r.waitFor((f) => f.includes("stopping: running work"));
    expect(calls).toEqual({ stop: 1, force: 0 });
    r.type("q");
    await r.waitFor((f) => f.includes("stopping now"));
    expect(calls).toEqual({ stop: 1, force: 1 });
    // Any other key answers "go on": nothing is stopped, and the next q asks again.
    const undecided = mount(midRun());
    await undecided.r.waitFor((f) => f.includes("q stop"));
    undecided.r.type(KEYS.ctrlC);
    await undecided.r.waitFor((f) => f.includes("stop? running work is cancelled"));
    undecided.r.type("x");
    await undecided.r.waitFor((f) => f.includes("q stop") && !f.includes("stop?"));
    expect(undecided.calls).toEqual({ stop: 0, force: 0 });
    const quick = mount(midRun());
    await quick.r.waitFor((f) => f.includes("q stop"));
    quick.r.type("q");
    quick.r.type(KEYS.ctrlC);
    quick.r.type("q");
    await quick.r.waitFor((f) => f.includes("stopping now"));
    expect(quick.calls).toEqual({ stop: 1, force: 1 });
  });

  test("a resize redraws to the new size: lines fit the width, the live area the height", async () => {
    const { r } = mount(midRun(), { columns: 120, rows: 50 });
    const wide = await r.waitFor((f) => f.includes("▶ focused"));
    expect(wide).toMatch(/agg1 /);
    // Rows already printed above (finished tasks) keep their width; the live area must fit.
    const liveArea = (f: string) => f.slice(f.indexOf("harness2 swp")).split("\n");
    r.resize(60, 22);
    const narrow = liveArea(await r.waitFor((f) => liveArea(f).every((l) => [...l].length <= 60)));
    expect(narrow.length, narrow.join("\n")).toBeLessThanOrEqual(22);
    expect(narrow.join("\n")).toContain("▶ focused");
    expect(narrow.join("\n")).toContain("TRIPWIRE");
    r.resize(120, 50);
    await r.waitFor((f) => liveArea(f).some((l) => [...l].length > 60));
  });

  test("the live area fits every terminal height from 20 to 60 lines, log open or not", async () => {
    const { r } = mount(midRun(), { columns: 100, rows: 60 });
    await r.waitFor((f) => f.includes("▶ focused"));
    const liveArea = (f: string) => f.slice(f.indexOf("harness2 swp")).split("\n");
    for (const showLog of [false, true]) {
      if (showLog) r.type("l");
      for (const rows of [60, 40, 30, 24, 20]) {
        r.resize(100, rows);
        const lines = liveArea(
          await r.waitFor((f) => liveArea(f).length <= rows && f.includes("l hide") === showLog),
        );
        expect(lines.join("\n")).toContain("▶ focused");
        expect(lines.join("\n")).toContain("TRIPWIRE");
      }
    }
  }, 20_000);

  test("while work runs the lane's and the running stage's spinners turn (ink-spinner)", async () => {
    const mountTicking = (events: HarnessEvent[]) => {
      // As mount(), but with the clock on, as in a real terminal.
      const batcher = new FrameBatcher();
      for (const e of events) batcher.emit(e);
      batcher.flush();
      const r = renderInk(
        <LiveApp
          batcher={batcher}
          sweepLabel="demo"
          color={false}
          onStopRequest={() => {}}
          onForceStop={() => {}}
          clock={() => (events.at(-1)?.ts ?? 0) + 5000}
          tickMs={1000}
        />,
        { columns: 100, rows: 40 },
      );
      mounted.push(r);
      return r;
    };
    const r = mountTicking(midRun());
    await r.waitFor((f) => /agg1\s+│ AGG │ ⠋ running/.test(f));
    // The lane's and the stage row's spinners move on without any event or clock tick.
    await r.waitFor(
      (f) => /agg1\s+│ AGG │ ⠙ running/.test(f) && /▶ acct\s+\S+\s+⠙ ledger-2/.test(f),
    );
  });

  test("with colour off (NO_COLOR) the frame carries no escape codes at all", async () => {
    const plain = mount(midRun(), { color: false });
    expect(await plain.r.waitFor((f) => f.includes("▶ focused"))).not.toContain(ESC);
    const colored = mount(midRun(), { color: true });
    expect(await colored.r.waitFor((f) => f.includes("▶ focused"))).toContain(ESC);
    expect(colorEnabled({ NO_COLOR: "1" }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: "" }, true)).toBe(true);
    expect(colorEnabled({}, false)).toBe(false);
    // FORCE_COLOR colours output without a terminal (piped into less -R); NO_COLOR still wins.
    expect(colorEnabled({ FORCE_COLOR: "1" }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: "0" }, true)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: "1", NO_COLOR: "1" }, false)).toBe(false);
  });

  test("finished rows are written to the terminal once each, across <Static> generations", async () => {
    const events = sweepScript({ domains: 1, tasksPerDomain: 150, k: 1 }).events;
    const batcher = new FrameBatcher();
    const r = renderInk(
      <LiveApp
        batcher={batcher}
        sweepLabel="demo"
        color={false}
        onStopRequest={() => {}}
        onForceStop={() => {}}
        clock={() => 0}
        tickMs={0}
      />,
      { columns: 100, rows: 40 },
      { debug: false },
    );
    mounted.push(r);
    // Feed the run in slices, as a real run arrives, so several <Static> generations are used.
    for (let i = 0; i < events.length; i += 500) {
      for (const e of events.slice(i, i + 500)) batcher.emit(e);
      await batcher.settled();
      await settle(r);
    }
    await r.waitFor(() => r.written().includes("tasks 150 ok"));
    const out = r.written();
    for (let t = 0; t < 150; t++) {
      expect(out.split(`✔ ok d0 d0-task-${t} k=1`).length - 1).toBe(1);
    }
  });
});

describe("startLiveView", () => {
  test("renders into the given terminal, takes events through its sink, and done() leaves the final frame", async () => {
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 40 });
    const stdin = Object.assign(new PassThrough(), {
      isTTY: true,
      setRawMode: () => stdin,
      ref: () => stdin,
      unref: () => stdin,
    });
    let written = "";
    stdout.on("data", (c: Buffer) => {
      written += c.toString();
    });
    const view = startLiveView({
      sweepLabel: "demo",
      color: false,
      onStopRequest: () => {},
      onForceStop: () => {},
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      stderr: new PassThrough() as unknown as NodeJS.WriteStream,
    });
    const s = new Script().sweepStarted([{ domain: "acct", tasks: ["ledger-1"] }], { ks: [1] });
    s.task("acct", "ledger-1", { k: 1 }).sweepFinished("ok");
    for (const e of s.events) view.sink.emit(e);
    await view.done();
    await view.done();
    expect(written).toContain("tasks 1 ok · 0 failed · 0 skipped of 1");
    expect(written).toContain("✔ ok acct ledger-1 k=1");
    expect(written).not.toContain(`${ESC}31m`);
  });
});
