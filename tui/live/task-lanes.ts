// The live state's tasks and modes: a task's record created on its first event, found again by
// (domain, task, k), updated immutably, and moved to the finished list when it ends. Pure.

import { expectedRollouts, expectedSessions } from "../../src/core/events/budget.ts";
import { taskProblems } from "../../src/core/events/outcome.ts";
import type { HarnessEvent, ModeToken } from "../../src/core/events/registry.ts";
import { firstLine } from "./log-line.ts";
import {
  type FinishedRow,
  LIMITS,
  type LiveState,
  type ModeLive,
  type StageRow,
  type TaskLive,
  taskKey,
} from "./view-model.ts";

// ── tasks and modes ──────────────────────────────────────────────────────────────────────────

export function newMode(mode: ModeToken, k: number): ModeLive {
  return {
    mode,
    status: "waiting",
    phase: null,
    R: 0,
    P: 0,
    expectedR: expectedRollouts(k),
    expectedP: expectedSessions(k),
    stages: [],
    selection: null,
    reflection: null,
    lesson: "",
    usd: 0,
    error: "",
  };
}

export function newTask(
  domain: string,
  task: string,
  k: number,
  ts: number,
  modes: ModeToken[],
): TaskLive {
  return {
    key: taskKey(domain, task, k),
    domain,
    task,
    k,
    index: 0,
    of: 0,
    status: "running",
    modes: modes.map((m) => newMode(m, k)),
    rollouts: { running: 0, ok: 0, dead: 0, bases: 0 },
    tripwires: 0,
    startedTs: ts,
    usd: 0,
    wallS: null,
    error: "",
  };
}

export type Where = { domain?: string; task?: string; k?: number; ts?: number };

/** Index of the task in flight an event belongs to; k may be absent on older emitters. */
export function findTask(state: LiveState, w: Where): number {
  if (w.task === undefined) return -1;
  if (w.k !== undefined && w.domain !== undefined) {
    const key = taskKey(w.domain, w.task, w.k);
    return state.tasks.findIndex((t) => t.key === key);
  }
  return state.tasks.findIndex(
    (t) => t.task === w.task && (w.domain === undefined || t.domain === w.domain),
  );
}

/**
 * Applies `fn` to the task in flight the event belongs to. An event for a task that never
 * announced itself (a resumed stream) starts the task; one for a task that already finished is
 * only logged.
 */
export function withTask(state: LiveState, w: Where, fn: (t: TaskLive) => TaskLive): LiveState {
  const i = findTask(state, w);
  if (i >= 0) {
    const tasks = state.tasks.slice();
    tasks[i] = fn(tasks[i] as TaskLive);
    return { ...state, tasks };
  }
  if (w.task === undefined || w.k === undefined || w.domain === undefined) return state;
  const key = taskKey(w.domain, w.task, w.k);
  if (state.finished.rows.some((r) => r.key === key)) return state;
  const modes = state.sweep?.modes ?? [];
  const task = fn(newTask(w.domain, w.task, w.k, w.ts ?? state.lastTs, modes));
  return withLane({ ...state, tasks: [...state.tasks, task] }, w.domain, (l) => ({
    ...l,
    active: [...l.active, key],
  }));
}

export function withMode(
  state: LiveState,
  w: Where & { mode: ModeToken; k?: number },
  fn: (m: ModeLive) => ModeLive,
): LiveState {
  return withTask(state, w, (t) => {
    const i = t.modes.findIndex((m) => m.mode === w.mode);
    const modes = t.modes.slice();
    if (i >= 0) modes[i] = fn(modes[i] as ModeLive);
    else modes.push(fn(newMode(w.mode, t.k)));
    return { ...t, modes };
  });
}

export function upsertStage(m: ModeLive, label: string, make: () => StageRow): ModeLive {
  const i = m.stages.findIndex((s) => s.label === label);
  const stages = m.stages.slice();
  if (i >= 0) stages[i] = make();
  else stages.push(make());
  return { ...m, stages };
}

export function withLane(
  state: LiveState,
  domain: string,
  fn: (l: LiveState["lanes"][number]) => LiveState["lanes"][number],
): LiveState {
  const i = state.lanes.findIndex((l) => l.domain === domain);
  const lanes = state.lanes.slice();
  if (i >= 0) lanes[i] = fn(lanes[i] as LiveState["lanes"][number]);
  else lanes.push(fn({ domain, total: 0, done: 0, active: [] }));
  return { ...state, lanes };
}

export function finishTask(state: LiveState, e: Extract<HarnessEvent, { type: "task.finished" }>) {
  const key = taskKey(e.domain, e.task, e.k);
  const i = state.tasks.findIndex((t) => t.key === key);
  const base = i >= 0 ? (state.tasks[i] as TaskLive) : newTask(e.domain, e.task, e.k, e.ts, []);
  const task: TaskLive = {
    ...base,
    status: e.status,
    usd: e.usd,
    wallS: e.wallS,
    error: firstLine(e.error),
    rollouts: { ...base.rollouts, running: 0, bases: 0 },
  };
  const count = state.finished.count + 1;
  const row: FinishedRow = {
    seq: count,
    key,
    domain: e.domain,
    task: e.task,
    k: e.k,
    status: e.status,
    modes: task.modes.map((m) => ({
      mode: m.mode,
      status: e.modes[m.mode] ?? m.status,
      chosen: m.selection?.chosenLabel ?? "",
      anonId: m.selection?.anonId ?? "",
      fallback: m.selection?.fallback ?? false,
      trivial: m.selection?.trivial ?? false,
      fellBack: m.stages.filter((s) => s.fellBack).length,
    })),
    usd: e.usd,
    wallS: e.wallS,
    tripwires: task.tripwires,
    error: task.error,
    problems: taskProblems({
      modes: task.modes.map((m) => ({
        mode: m.mode,
        degraded: (e.modes[m.mode] ?? m.status) === "degraded",
        selectionFellBack: m.selection?.fallback ?? false,
        reflectionFailed: m.reflection === "failed",
      })),
      deadRollouts: task.rollouts.dead,
    }),
  };
  const rows = [...state.finished.rows, row];
  if (rows.length > LIMITS.finishedRows) rows.splice(0, rows.length - LIMITS.finishedRows);
  const ok = e.status === "ok";
  const next: LiveState = {
    ...state,
    tasks: state.tasks.filter((t) => t.key !== key),
    lastFinished: task,
    finished: { count, rows },
    counts: {
      ...state.counts,
      ok: state.counts.ok + (ok ? 1 : 0),
      failed: state.counts.failed + (ok ? 0 : 1),
    },
    focus: state.focus === key ? null : state.focus,
  };
  return withLane(next, e.domain, (l) => ({
    ...l,
    done: l.done + 1,
    active: l.active.filter((a) => a !== key),
  }));
}
