// The live view's reducer on its own, over scripted event sequences: every field the view shows,
// purity (frozen inputs), and memory that stays flat over a 1,000-task sweep.

import { describe, expect, test } from "bun:test";
import { HarnessEvent } from "../../src/core/events/registry.ts";
import { focusedTask, progress } from "../../tui/live/derive.ts";
import { type LiveAction, reduce, reduceAll } from "../../tui/live/reducer.ts";
import { initialState, LIMITS, type LiveState, taskKey } from "../../tui/live/view-model.ts";
import { Script, SWEEP, sweepScript } from "./script.ts";

const run = (events: LiveAction[], from: LiveState = initialState()) => reduceAll(from, events);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Events up to (not including) the first one matching `stop`. */
function until(events: HarnessEvent[], stop: (e: HarnessEvent) => boolean): HarnessEvent[] {
  const i = events.findIndex(stop);
  return i < 0 ? events : events.slice(0, i);
}

const oneTask = () =>
  new Script().sweepStarted([{ domain: "acct", tasks: ["ledger-1"] }], { ks: [2] });

describe("the test script", () => {
  test("every scripted event is a valid event of the union", () => {
    const s = sweepScript({ domains: 2, tasksPerDomain: 2 });
    for (const e of s.events) expect(HarnessEvent.safeParse(e).success).toBe(true);
  });
});

describe("reduce", () => {
  test("an interrupted sweep's final state has no rollout still running", () => {
    const s = oneTask().taskStarted("acct", "ledger-1", { k: 2 });
    const at = { sweep: SWEEP, domain: "acct", task: "ledger-1", k: 2 };
    s.push({ type: "rollout.started", ts: 5, ...at, label: "base1", runId: "r1" });
    s.push({ type: "rollout.started", ts: 5, ...at, label: "base2", runId: "r2" });
    const before = run(s.events);
    expect(before.tasks[0]?.rollouts.running).toBe(2);
    expect(before.tasks[0]?.rollouts.bases).toBe(2);
    const after = run(s.sweepFinished("interrupted").events);
    expect(after.sweep?.finished?.status).toBe("interrupted");
    expect(after.tasks[0]?.rollouts).toEqual({ running: 0, ok: 0, dead: 0, bases: 0 });
  });

  test("sweep.started fills the header, the task total (tasks × k values) and one lane per domain", () => {
    const s = new Script().sweepStarted(
      [
        { domain: "acct", tasks: ["a", "b", "c"] },
        { domain: "law", tasks: ["d"] },
      ],
      { ks: [1, 2], modes: ["agg"], seed: 3 },
    );
    const st = run(s.events);
    expect(st.sweep).toMatchObject({
      id: SWEEP,
      bench: "demo",
      substrate: "opencode",
      ks: [1, 2],
      modes: ["agg"],
      seed: 3,
      finished: null,
    });
    expect(st.counts).toEqual({ total: 8, ok: 0, failed: 0, skipped: 0 });
    expect(st.lanes.map((l) => [l.domain, l.total, l.done, l.active.length])).toEqual([
      ["acct", 6, 0, 0],
      ["law", 2, 0, 0],
    ]);
  });

  test("a stage row goes running → ok, and attempts/cost follow the proposer call", () => {
    const s = oneTask().task("acct", "ledger-1");
    const started = until(s.events, (e) => e.type === "proposer.call");
    let st = run(started);
    const mode = () => focusedTask(st)?.modes.find((m) => m.mode === "agg");
    expect(mode()?.status).toBe("running");
    expect(mode()?.phase).toBe("proposals");
    expect(mode()?.stages).toEqual([
      {
        label: "inv1",
        dim: "INV",
        state: "running",
        attempts: null,
        usd: null,
        cached: false,
        keptBase: false,
        fellBack: false,
        error: "",
      },
    ]);
    st = run(until(s.events, (e) => e.type === "stage.finished"));
    expect(mode()?.stages[0]).toMatchObject({ state: "running", attempts: 1, usd: 0.02 });
    st = run(s.events.slice(0, s.events.findIndex((e) => e.type === "stage.finished") + 1));
    expect(mode()?.stages[0]).toMatchObject({ state: "ok", attempts: 1, usd: 0.02 });
  });

  test("a running stage adds up its attempts' calls (<stage>.aN); selection and reflection calls are no stage's", () => {
    const s = oneTask().task("acct", "ledger-1", { fellBack: ["inv1"], modes: ["agg"] });
    const calls = s.events.filter((e) => e.type === "proposer.call").map((e) => e.label);
    expect(calls.slice(0, 2)).toEqual(["inv1.a1", "inv1.a2"]);
    expect(calls).toContain("select.agg2");
    expect(calls).toContain("experience.agg2");
    const mode = (st: LiveState) => st.tasks[0]?.modes.find((m) => m.mode === "agg");
    let st = run(until(s.events, (e) => e.type === "proposer.call" && e.label === "inv1.a2"));
    expect(mode(st)?.stages[0]).toMatchObject({ label: "inv1", state: "running", attempts: 1 });
    expect(mode(st)?.stages[0]?.usd).toBeCloseTo(0.01, 9);
    st = run(until(s.events, (e) => e.type === "tripwire.fired" || e.type === "stage.finished"));
    expect(mode(st)?.stages[0]).toMatchObject({ state: "running", attempts: 2 });
    expect(mode(st)?.stages[0]?.usd).toBeCloseTo(0.02, 9);

    // A running row named like the selector's or reflector's target never takes their calls.
    const at = { sweep: SWEEP, domain: "acct", task: "ledger-1", mode: "agg" as const, k: 2 };
    const call = (label: string, purpose: "stage" | "selection" | "reflection") =>
      HarnessEvent.parse({
        type: "proposer.call",
        ts: 1,
        ...at,
        label,
        purpose,
        attempts: 1,
        channel: "scripted",
        model: "m",
        cached: false,
        wallS: 1,
        usd: 0.5,
        error: "",
        auditPath: "",
      });
    const started = HarnessEvent.parse({
      type: "stage.started",
      ts: 1,
      ...at,
      label: "agg2",
      dim: "AGG",
      evidenceDir: "/e",
    });
    st = run([
      ...oneTask().events,
      started,
      call("select.agg2", "selection"),
      call("select.agg2.repair1", "selection"),
      call("experience.agg2", "reflection"),
      call("experience.agg2.repair1", "reflection"),
      call("agg2", "stage"),
    ]);
    expect(mode(st)?.stages[0]).toMatchObject({ label: "agg2", attempts: null, usd: null });
    st = run([call("agg2.a1", "stage")], st);
    expect(mode(st)?.stages[0]).toMatchObject({ label: "agg2", attempts: 1, usd: 0.5 });
  });

  test("fell back, kept base and cached stages keep their outcome and the error's first line", () => {
    const s = oneTask().task("acct", "ledger-1", {
      fellBack: ["dom1"],
      keptBase: ["inv2"],
      cached: ["inv1"],
    });
    const st = run(until(s.events, (e) => e.type === "task.finished"));
    const stages = st.tasks[0]?.modes[0]?.stages ?? [];
    const byLabel = Object.fromEntries(stages.map((r) => [r.label, r]));
    expect(byLabel.dom1).toMatchObject({
      state: "fell back",
      fellBack: true,
      attempts: 2,
      error: "invalid proposal: skills/x/SKILL.md needs a description",
    });
    expect(byLabel.inv2).toMatchObject({ state: "kept base", keptBase: true });
    expect(byLabel.inv1).toMatchObject({ state: "ok", cached: true, usd: 0 });
    expect(stages.map((r) => r.label)).toEqual(["inv1", "dom1", "inv2", "dom2", "agg1", "agg2"]);
  });

  test("ledger counters start at 0 of 4k/3k and end at 4k/3k", () => {
    const s = oneTask().task("acct", "ledger-1", { k: 2 });
    const atStart = run(until(s.events, (e) => e.type === "ledger.recorded"));
    expect(atStart.tasks[0]?.modes.map((m) => [m.R, m.expectedR, m.P, m.expectedP])).toEqual([
      [0, 8, 0, 6],
      [0, 8, 0, 6],
    ]);
    const atEnd = run(until(s.events, (e) => e.type === "task.finished"));
    expect(atEnd.tasks[0]?.modes.map((m) => [m.R, m.P, m.status])).toEqual([
      [8, 6, "ok"],
      [8, 6, "ok"],
    ]);
  });

  test("a tripwire alert is kept until acknowledged; the total stays", () => {
    const s = oneTask().task("acct", "ledger-1", { tripwireAt: "dom1", status: "partial" });
    const st = run(s.events);
    expect(st.tripwires.total).toBe(2);
    expect(st.tripwires.alerts.map((a) => [a.kind, a.path, a.marker, a.stage, a.mode])).toEqual([
      ["grader_verdict", "context/dom1/rollouts/base1.md", "PASSED", "dom1", "agg"],
      ["grader_verdict", "context/dom1/rollouts/base1.md", "PASSED", "dom1", "seq"],
    ]);
    expect(st.finished.rows[0]).toMatchObject({ status: "partial", tripwires: 2 });
    const acked = reduce(st, { type: "ui.tripwires.ack" });
    expect(acked.tripwires.alerts).toEqual([]);
    expect(acked.tripwires.total).toBe(2);
  });

  test("alerts beyond the limit are counted, not kept", () => {
    let st = run(oneTask().events);
    for (let i = 0; i < LIMITS.alerts + 5; i++) {
      st = reduce(st, {
        type: "tripwire.fired",
        ts: 1,
        sweep: SWEEP,
        kind: "leak_path",
        path: `p${i}`,
        marker: "",
        stage: "library",
        message: "m",
      });
    }
    expect(st.tripwires.alerts.length).toBe(LIMITS.alerts);
    expect(st.tripwires.overflow).toBe(5);
    expect(st.tripwires.alerts.at(-1)?.path).toBe(`p${LIMITS.alerts + 4}`);
  });

  test("selections: chosen anon id → label with the why's first line, fallback, and k=1 trivial", () => {
    const s2 = oneTask().task("acct", "ledger-1", { k: 2, fallbackIn: "seq" });
    const st2 = run(until(s2.events, (e) => e.type === "task.finished"));
    const [agg, seq] = st2.tasks[0]?.modes ?? [];
    expect(agg?.selection).toEqual({
      chosenLabel: "agg2",
      anonId: "B",
      candidates: 2,
      why: "Candidate B reconciles every ledger",
      ok: true,
      fallback: false,
      trivial: false,
      error: "",
    });
    expect(seq?.selection).toMatchObject({ fallback: true, ok: false, chosenLabel: "c2" });
    const s1 = new Script()
      .sweepStarted([{ domain: "acct", tasks: ["t"] }], { ks: [1] })
      .task("acct", "t", { k: 1 });
    const st1 = run(s1.events);
    expect(st1.lastFinished?.modes[0]?.selection).toMatchObject({ trivial: true, anonId: "" });
    expect(st1.finished.rows[0]?.modes[0]).toMatchObject({ chosen: "agg1", trivial: true });
  });

  test("a finished task becomes a summary row; counts, lane and last-finished follow", () => {
    const s = oneTask().task("acct", "ledger-1", { fellBack: ["dom1"] });
    const st = run(s.events);
    expect(st.tasks).toEqual([]);
    expect(st.counts).toMatchObject({ ok: 1, failed: 0 });
    expect(st.lanes[0]).toMatchObject({ done: 1, active: [] });
    expect(st.lastFinished?.status).toBe("ok");
    expect(st.finished.rows).toEqual([
      {
        seq: 1,
        key: taskKey("acct", "ledger-1", 2),
        domain: "acct",
        task: "ledger-1",
        k: 2,
        status: "ok",
        modes: [
          {
            mode: "agg",
            status: "ok",
            chosen: "agg2",
            anonId: "B",
            fallback: false,
            trivial: false,
            fellBack: 1,
          },
          {
            mode: "seq",
            status: "ok",
            chosen: "c2",
            anonId: "B",
            fallback: false,
            trivial: false,
            fellBack: 1,
          },
        ],
        usd: 0.5,
        wallS: 42,
        tripwires: 0,
        error: "",
        problems: [],
      },
    ]);
    expect(focusedTask(st)?.task).toBe("ledger-1");
  });

  test("a finished row names what went wrong inside an ok task: failed reflection, fallback", () => {
    const s = oneTask().task("acct", "ledger-1", { reflectionFailsIn: "agg", fallbackIn: "seq" });
    const row = run(s.events).finished.rows[0];
    expect(row?.status).toBe("ok");
    expect(row?.problems).toEqual([
      "parallel reflection failed (no lesson stored)",
      "sequential selection fell back",
    ]);
  });

  test("spend: uncached improver calls and executed rollouts", () => {
    const s = oneTask().task("acct", "ledger-1", { cached: ["inv1"] });
    const st = run(s.events);
    // Per mode: 6 stages at $0.02 (less inv1, cached), a selector call at $0.03 and a reflection
    // at $0.01; executor: 2 bases + 2 × 6 rollouts.
    expect(st.spend.improverUsd).toBeCloseTo(2 * (5 * 0.02 + 0.03 + 0.01), 9);
    expect(st.spend.executorUsd).toBeCloseTo(14 * 0.01, 9);
  });

  test("focus cycles over the tasks in flight and returns to following when its task ends", () => {
    const s = new Script().sweepStarted([
      { domain: "a", tasks: ["t1"] },
      { domain: "b", tasks: ["t2"] },
    ]);
    s.taskStarted("a", "t1").taskStarted("b", "t2");
    let st = run(s.events);
    expect(focusedTask(st)?.task).toBe("t1");
    st = reduce(st, { type: "ui.focus", delta: 1 });
    expect(focusedTask(st)?.task).toBe("t2");
    st = reduce(st, { type: "ui.focus", delta: 1 });
    expect(focusedTask(st)?.task).toBe("t1");
    st = reduce(st, { type: "ui.focus", delta: -1 });
    expect(focusedTask(st)?.task).toBe("t2");
    expect(st.lanes.map((l) => l.active.length)).toEqual([1, 1]);
    st = reduce(st, {
      type: "task.finished",
      ts: 9,
      sweep: SWEEP,
      domain: "b",
      task: "t2",
      k: 2,
      status: "failed",
      modes: {},
      usd: 0,
      wallS: 1,
      error: "agg: BudgetError",
    });
    expect(st.focus).toBeNull();
    expect(focusedTask(st)?.task).toBe("t1");
    expect(st.counts.failed).toBe(1);
  });

  test("events of a task that never announced itself start it; late events of a finished one are dropped", () => {
    const s = oneTask();
    s.stageStarted("acct", "ledger-1", "seq", 2, "inv1", "INV");
    let st = run(s.events);
    expect(st.tasks.map((t) => [t.task, t.modes.map((m) => m.mode)])).toEqual([
      ["ledger-1", ["agg", "seq"]],
    ]);
    expect(st.lanes[0]?.active).toEqual([taskKey("acct", "ledger-1", 2)]);
    const full = oneTask().task("acct", "ledger-1");
    st = run(full.events);
    st = run([...new Script().stageStarted("acct", "ledger-1", "agg", 2, "x", "INV").events], st);
    expect(st.tasks).toEqual([]);
  });

  test("skips count toward progress; the ETA appears once a task ran", () => {
    const s = new Script().sweepStarted([{ domain: "a", tasks: ["t1", "t2", "t3", "t4"] }], {
      ks: [1],
    });
    s.push({
      type: "task.skipped",
      ts: s.events[0]!.ts + 1000,
      sweep: SWEEP,
      domain: "a",
      task: "t1",
      k: 1,
      reason: "done",
    });
    let st = run(s.events);
    const t0 = st.sweep!.startedTs;
    expect(progress(st, t0 + 10_000)).toMatchObject({ done: 1, total: 4, etaS: null });
    s.task("a", "t2", { k: 1 });
    st = run(s.events);
    const p = progress(st, st.lastTs);
    expect(p.done).toBe(2);
    expect(p.fraction).toBe(0.5);
    expect(p.etaS).toBeCloseTo(p.elapsedS * 2, 6);
  });

  test("the log is a bounded ring and toggles; stop is requested, then forced, never downgraded", () => {
    const s = sweepScript({ domains: 1, tasksPerDomain: 12 });
    let st = run(s.events);
    expect(st.log.lines.length).toBe(LIMITS.log);
    expect(st.log.lines.at(-1)?.text).toMatch(/^sweep \S+ ok: /);
    expect(st.log.nextId).toBeGreaterThan(LIMITS.log);
    expect(st.showLog).toBe(false);
    st = reduce(st, { type: "ui.log.toggle" });
    expect(st.showLog).toBe(true);
    st = reduce(st, { type: "ui.stop", level: "requested" });
    expect(st.stop).toBe("requested");
    st = reduce(st, { type: "ui.stop", level: "forced" });
    st = reduce(st, { type: "ui.stop", level: "requested" });
    expect(st.stop).toBe("forced");
  });

  test("reduce never mutates the state it is given", () => {
    const s = oneTask().task("acct", "ledger-1", { tripwireAt: "inv1", fallbackIn: "agg" });
    let st = deepFreeze(initialState());
    for (const e of s.events) st = deepFreeze(reduce(st, e));
    for (const a of [
      { type: "ui.focus", delta: 1 },
      { type: "ui.tripwires.ack" },
      { type: "ui.log.toggle" },
    ] as const) {
      st = deepFreeze(reduce(st, a));
    }
    expect(st.finished.count).toBe(1);
  });

  test("memory stays flat: the state after 1,000 tasks is no bigger than after 300", () => {
    const size = (st: LiveState) => JSON.stringify(st).length;
    const s = new Script();
    const domains = Array.from({ length: 4 }, (_, d) => ({
      domain: `d${d}`,
      tasks: Array.from({ length: 250 }, (_, i) => `d${d}-t${i}`),
    }));
    let st = run(s.sweepStarted(domains, { ks: [2] }).events);
    let at300 = 0;
    let n = 0;
    for (let i = 0; i < 250; i++) {
      for (const { domain, tasks } of domains) {
        const one = new Script().task(domain, tasks[i] as string, {
          tripwireAt: n % 50 === 0 ? "inv1" : undefined,
        });
        st = run(one.events, st);
        n++;
        if (n === 300) at300 = size(st);
      }
    }
    expect(st.finished.count).toBe(1000);
    expect(st.counts.ok).toBe(1000);
    expect(st.finished.rows.length).toBe(LIMITS.finishedRows);
    expect(size(st)).toBeLessThanOrEqual(Math.ceil(at300 * 1.05));
  });
});
