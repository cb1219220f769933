// The headless front ends from outside, feeding the live view: `harness2 demo --json` prints
// every event as one NDJSON line; that recorded stream, reduced and drawn by the live view, must
// end where the run ended. Real python3 executions and the real proposer loop (k=1, both modes).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessEvent } from "../../src/core/events/registry.ts";
import { FrameBatcher } from "../../tui/live/batcher.ts";
import { LiveApp } from "../../tui/live/live-app.tsx";
import { reduceAll } from "../../tui/live/reducer.ts";
import { initialState } from "../../tui/live/view-model.ts";
import { runCli } from "../helpers/cli.ts";
import { renderInk } from "./ink-harness.ts";

let root: string;
let events: HarnessEvent[] = [];
let code = -1;
let stderr = "";
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "h2-tui-demo-"));
  const r = await runCli(["demo", "--json", "--k", "1", "--runs", join(root, "runs")]);
  code = r.code;
  stderr = r.stderr;
  events = r.stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => HarnessEvent.parse(JSON.parse(l)));
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("harness2 demo --json, drawn by the live view", () => {
  test("stdout is nothing but valid events, from sweep.started to sweep.finished", () => {
    expect(code, stderr).toBe(0);
    expect(events[0]?.type).toBe("sweep.started");
    expect(events.at(-1)?.type).toBe("sweep.finished");
  });

  test("the reduced state matches the run: 2 tasks ok, R=4 and P=3 per mode, a k=1 pick each", () => {
    const st = reduceAll(initialState(), events);
    expect(st.sweep?.finished?.status).toBe("ok");
    expect(st.counts).toEqual({ total: 2, ok: 2, failed: 0, skipped: 0 });
    expect(st.tasks).toEqual([]);
    expect(st.lanes.every((l) => l.done === l.total && l.active.length === 0)).toBe(true);
    const last = st.lastFinished;
    expect(last?.modes.map((m) => [m.mode, m.status, m.R, m.expectedR, m.P, m.expectedP])).toEqual([
      ["agg", "ok", 4, 4, 3, 3],
      ["seq", "ok", 4, 4, 3, 3],
    ]);
    expect(last?.modes.every((m) => m.stages.every((s) => s.state !== "running"))).toBe(true);
    for (const row of st.finished.rows) {
      expect(row.modes.map((m) => [m.mode, m.trivial, m.fallback])).toEqual([
        ["agg", true, false],
        ["seq", true, false],
      ]);
    }
  });

  test("fed through the batcher, the final frame shows the finished sweep", async () => {
    const batcher = new FrameBatcher();
    const r = renderInk(
      <LiveApp
        batcher={batcher}
        sweepLabel="demo"
        color={false}
        onStopRequest={() => {}}
        onForceStop={() => {}}
        clock={() => events.at(-1)?.ts ?? 0}
        tickMs={0}
      />,
    );
    for (const e of events) batcher.emit(e);
    await batcher.settled();
    const frame = await r.waitFor((f) => f.includes("tasks 2 ok · 0 failed · 0 skipped of 2"));
    r.unmount();
    expect(frame).toContain("100%");
    expect(frame).toMatch(/parallel\s+rollouts R █+ 4\/4\s+sessions P █+ 3\/3/);
    expect(frame).toContain("[k=1 trivial: the only final, no selector]");
    expect(frame).toMatch(/✔ ok accounting ledger-1 k=1 {2}parallel agg1 \(k=1\)/);
  });
});
