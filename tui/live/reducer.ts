// The live view's reducer: reduce(state, event-or-key) → new state, pure and synchronous. It keeps
// every collection bounded (finished tasks become summary rows in a ring, the log is a ring) and
// never throws on an event it does not expect: it records what it can and moves on.

import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { spendCapOf } from "../../src/core/events/spend-cap.ts";
import { stageOfCall } from "./derive.ts";
import { firstLine, type LogEntry, logEntry } from "./log-line.ts";
import { finishTask, newTask, upsertStage, withLane, withMode, withTask } from "./task-lanes.ts";
import {
  LIMITS,
  type LiveState,
  type SelectionRow,
  type TripwireAlert,
  taskKey,
  type UiAction,
} from "./view-model.ts";

export type LiveAction = HarnessEvent | UiAction;

export function reduce(state: LiveState, action: LiveAction): LiveState {
  switch (action.type) {
    case "ui.focus":
      return moveFocus(state, action.delta);
    case "ui.log.toggle":
      return { ...state, showLog: !state.showLog };
    case "ui.tripwires.ack":
      return { ...state, tripwires: { ...state.tripwires, alerts: [], overflow: 0 } };
    case "ui.stop":
      return state.stop === "forced" ? state : { ...state, stop: action.level };
    default: {
      let next = applyEvent(state, action);
      const entry = logEntry(action);
      if (entry) next = appendLog(next, action.ts, entry);
      return action.ts > next.lastTs ? { ...next, lastTs: action.ts } : next;
    }
  }
}

/** Reduces a whole sequence (tests, and the batcher's flush). */
export function reduceAll(state: LiveState, actions: Iterable<LiveAction>): LiveState {
  let s = state;
  for (const a of actions) s = reduce(s, a);
  return s;
}

function applyEvent(state: LiveState, e: HarnessEvent): LiveState {
  switch (e.type) {
    case "sweep.started": {
      const perK = Math.max(1, e.ks.length);
      return {
        ...state,
        sweep: {
          id: e.sweep,
          bench: e.bench,
          substrate: e.substrate,
          ks: e.ks,
          modes: e.modes,
          seed: e.seed,
          tag: e.tag,
          startedTs: e.ts,
          cap: spendCapOf(e.config),
          finished: null,
        },
        counts: {
          total: e.domains.reduce((n, d) => n + d.tasks.length, 0) * perK,
          ok: 0,
          failed: 0,
          skipped: 0,
        },
        spend: { improverUsd: 0, executorUsd: 0 },
        lanes: e.domains.map((d) => ({
          domain: d.domain,
          total: d.tasks.length * perK,
          done: 0,
          active: [],
        })),
        tasks: [],
        lastFinished: null,
        finished: { count: 0, rows: [] },
        focus: null,
        tripwires: { total: 0, alerts: [], overflow: 0, nextId: 1 },
      };
    }
    case "sweep.finished":
      return state.sweep
        ? {
            ...state,
            sweep: {
              ...state.sweep,
              finished: { status: e.status, wallS: e.wallS, usd: e.usd },
            },
            // An interrupted sweep's executions were killed: nothing is running any more.
            tasks: state.tasks.map((t) =>
              t.rollouts.running > 0
                ? { ...t, rollouts: { ...t.rollouts, running: 0, bases: 0 } }
                : t,
            ),
          }
        : state;
    case "task.started": {
      const key = taskKey(e.domain, e.task, e.k);
      if (state.tasks.some((t) => t.key === key)) return state;
      const task = newTask(e.domain, e.task, e.k, e.ts, e.modes);
      task.index = e.index;
      task.of = e.of;
      return withLane({ ...state, tasks: [...state.tasks, task] }, e.domain, (l) => ({
        ...l,
        active: [...l.active, key],
      }));
    }
    case "task.skipped":
      return withLane(
        { ...state, counts: { ...state.counts, skipped: state.counts.skipped + 1 } },
        e.domain,
        (l) => ({ ...l, done: l.done + 1 }),
      );
    case "task.finished":
      return finishTask(state, e);
    case "mode.started":
      return withMode(state, e, (m) => ({ ...m, status: "running" }));
    case "mode.finished":
      return withMode(state, e, (m) => ({
        ...m,
        status: e.status,
        R: e.R,
        P: e.P,
        expectedR: e.expectedR,
        expectedP: e.expectedP,
        usd: e.usd,
        error: firstLine(e.error),
      }));
    case "phase.started":
      return withMode(state, e, (m) => ({
        ...m,
        status: m.status === "waiting" ? "running" : m.status,
        phase: e.phase,
      }));
    case "stage.started":
      return withMode(state, e, (m) =>
        upsertStage(m, e.label, () => ({
          label: e.label,
          dim: e.dim,
          state: "running",
          attempts: null,
          usd: null,
          cached: false,
          keptBase: false,
          fellBack: false,
          error: "",
        })),
      );
    case "stage.finished":
      return withMode(state, e, (m) =>
        upsertStage(m, e.label, () => ({
          label: e.label,
          dim: e.dim,
          state: e.fellBack ? "fell back" : e.keptBase ? "kept base" : "ok",
          attempts: e.attempts,
          usd: e.usd,
          cached: e.cached,
          keptBase: e.keptBase,
          fellBack: e.fellBack,
          error: firstLine(e.error),
        })),
      );
    case "proposer.call": {
      const spent = e.cached ? state : addSpend(state, e.usd, 0);
      const label = stageOfCall(e);
      if (label === null || e.task === undefined || e.mode === undefined) return spent;
      const where = { domain: e.domain, task: e.task, mode: e.mode, k: e.k };
      return withMode(spent, where, (m) => {
        const row = m.stages.find((s) => s.label === label);
        if (row?.state !== "running") return m;
        // Counted as the stage counts them on finishing (src/core/recursion/stage.ts): each uncached call
        // adds its session attempts (at least one), a cached one adds none; cached only if all were.
        const first = row.usd === null;
        return upsertStage(m, label, () => ({
          ...row,
          attempts: (row.attempts ?? 0) + (e.cached ? 0 : Math.max(1, e.attempts)),
          usd: (row.usd ?? 0) + (e.cached ? 0 : e.usd),
          cached: first ? e.cached : row.cached && e.cached,
        }));
      });
    }
    case "rollout.started":
      return withTask(state, e, (t) => ({
        ...t,
        rollouts: {
          ...t.rollouts,
          running: t.rollouts.running + 1,
          bases: t.rollouts.bases + (isBaseLabel(e.label) ? 1 : 0),
        },
      }));
    case "rollout.finished": {
      const spent = e.reused ? state : addSpend(state, 0, e.usd);
      return withTask(spent, e, (t) => ({
        ...t,
        rollouts: {
          running: Math.max(0, t.rollouts.running - 1),
          ok: t.rollouts.ok + (e.ok ? 1 : 0),
          dead: t.rollouts.dead + (e.ok ? 0 : 1),
          bases: Math.max(0, t.rollouts.bases - (isBaseLabel(e.label) ? 1 : 0)),
        },
      }));
    }
    case "ledger.recorded":
      return withMode(state, e, (m) => ({ ...m, R: e.R, P: e.P }));
    case "tripwire.fired":
      return fireTripwire(state, e);
    case "selection.made":
      return withMode(state, e, (m) => ({ ...m, selection: selectionRow(e) }));
    case "reflection.finished":
      return withMode(state, e, (m) => ({
        ...m,
        reflection: !e.ok ? "failed" : e.noEntry ? "no entry" : "lesson",
      }));
    case "library.added":
      return withMode(state, e, (m) => ({ ...m, lesson: firstLine(e.cue) }));
    case "adoption.recorded":
    case "judgment.recorded":
    case "note":
      return state;
    default:
      return e satisfies never;
  }
}

// ── the rest ─────────────────────────────────────────────────────────────────────────────────

function addSpend(state: LiveState, improverUsd: number, executorUsd: number): LiveState {
  return {
    ...state,
    spend: {
      improverUsd: state.spend.improverUsd + improverUsd,
      executorUsd: state.spend.executorUsd + executorUsd,
    },
  };
}

function selectionRow(e: Extract<HarnessEvent, { type: "selection.made" }>): SelectionRow {
  return {
    chosenLabel: e.chosenLabel,
    anonId: e.anonId,
    candidates: Object.keys(e.idMap).length,
    why: firstLine(e.why),
    ok: e.ok,
    fallback: e.fallback,
    trivial: e.trivial,
    error: firstLine(e.error),
  };
}

function fireTripwire(state: LiveState, e: Extract<HarnessEvent, { type: "tripwire.fired" }>) {
  const alert: TripwireAlert = {
    id: state.tripwires.nextId,
    ts: e.ts,
    kind: e.kind,
    path: e.path,
    marker: e.marker,
    stage: e.stage,
    task: e.task ?? "",
    mode: e.mode ?? null,
    message: firstLine(e.message),
  };
  const alerts = [...state.tripwires.alerts, alert];
  let overflow = state.tripwires.overflow;
  if (alerts.length > LIMITS.alerts) {
    overflow += alerts.length - LIMITS.alerts;
    alerts.splice(0, alerts.length - LIMITS.alerts);
  }
  const next: LiveState = {
    ...state,
    tripwires: {
      total: state.tripwires.total + 1,
      alerts,
      overflow,
      nextId: state.tripwires.nextId + 1,
    },
  };
  return withTask(next, e, (t) => ({ ...t, tripwires: t.tripwires + 1 }));
}

function appendLog(state: LiveState, ts: number, entry: LogEntry): LiveState {
  const lines = [...state.log.lines, { id: state.log.nextId, ts, ...entry }];
  if (lines.length > LIMITS.log) lines.splice(0, lines.length - LIMITS.log);
  return { ...state, log: { nextId: state.log.nextId + 1, lines } };
}

function moveFocus(state: LiveState, delta: 1 | -1): LiveState {
  const keys = state.tasks.map((t) => t.key);
  if (keys.length === 0) return state;
  const current = state.focus !== null ? keys.indexOf(state.focus) : 0;
  const from = Math.max(current, 0);
  const to = (from + delta + keys.length) % keys.length;
  return { ...state, focus: keys[to] ?? null };
}

/** The task's shared base rollouts are labelled base1…basek (docs/method.md §2). */
function isBaseLabel(label: string): boolean {
  return /^base\d+$/.test(label);
}
