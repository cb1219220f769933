// The live view's model: what the run view shows, built only by reducer.ts from events and key
// actions. Every collection here is bounded (see LIMITS) so memory stays flat over any sweep length.
// Plain data only: no functions, no Dates, nothing that cannot be compared with deep equality.

import type { ModeToken, Phase, StageDim, TripwireKind } from "../../src/core/events/registry.ts";
import type { SpendCap } from "../../src/core/events/spend-cap.ts";

export const LIMITS = {
  /** Lines kept in the event log ring buffer. */
  log: 200,
  /** Summary rows of finished tasks kept (older ones were already printed above the live area). */
  finishedRows: 256,
  /** Unacknowledged tripwire alerts kept; more are counted in `tripwires.overflow`. */
  alerts: 20,
  /** Characters kept of a one-line text (error, why, message). */
  line: 160,
} as const;

/** Key actions the container feeds through the same reducer as events. */
export type UiAction =
  | { type: "ui.focus"; delta: 1 | -1 }
  | { type: "ui.log.toggle" }
  | { type: "ui.tripwires.ack" }
  | { type: "ui.stop"; level: "none" | "asking" | "requested" | "forced" };

export type SweepHeader = {
  id: string;
  bench: string;
  substrate: string;
  ks: number[];
  modes: ModeToken[];
  seed: number | null;
  tag: string;
  startedTs: number;
  /** The experiment's spending cap (`--max-usd`), as sweep.started recorded it; null: none. */
  cap: SpendCap | null;
  /** Set by sweep.finished. */
  finished: { status: "ok" | "failed" | "interrupted"; wallS: number; usd: number } | null;
};

/** running → ok | kept base | fell back (the store's words for a stage's outcome). */
export type StageState = "running" | "ok" | "kept base" | "fell back";

export type StageRow = {
  label: string;
  dim: StageDim;
  state: StageState;
  /** Proposer attempts so far (null until the first call reports). */
  attempts: number | null;
  usd: number | null;
  cached: boolean;
  keptBase: boolean;
  fellBack: boolean;
  /** First line of the stage's error, shortened. */
  error: string;
};

export type SelectionRow = {
  chosenLabel: string;
  anonId: string;
  /** Number of anonymised candidates the selector saw. */
  candidates: number;
  /** First line of the selector's why, shortened. */
  why: string;
  ok: boolean;
  fallback: boolean;
  /** k = 1: a single final, no selector was asked. */
  trivial: boolean;
  error: string;
};

/** "waiting": declared by the task, not started yet. */
export type ModeStatus = "waiting" | "running" | "ok" | "degraded" | "failed";

export type ModeLive = {
  mode: ModeToken;
  status: ModeStatus;
  phase: Phase | null;
  R: number;
  P: number;
  expectedR: number;
  expectedP: number;
  stages: StageRow[];
  selection: SelectionRow | null;
  reflection: "lesson" | "no entry" | "failed" | null;
  /** Cue of the lesson the library kept for this mode, if any. */
  lesson: string;
  usd: number;
  error: string;
};

export type TaskStatus = "running" | "ok" | "partial" | "failed";

export type TaskLive = {
  /** domain, task and k joined: unique within a sweep. */
  key: string;
  domain: string;
  task: string;
  k: number;
  index: number;
  of: number;
  status: TaskStatus;
  modes: ModeLive[];
  /** `bases`: how many of the running ones are the task's shared base rollouts. */
  rollouts: { running: number; ok: number; dead: number; bases: number };
  tripwires: number;
  startedTs: number;
  usd: number;
  wallS: number | null;
  error: string;
};

/** What a finished task leaves behind: one line above the live area. */
export type FinishedRow = {
  /** 1-based count of finished tasks when this one finished; orders rows for <Static>. */
  seq: number;
  key: string;
  domain: string;
  task: string;
  k: number;
  status: Exclude<TaskStatus, "running">;
  modes: {
    mode: ModeToken;
    status: string;
    chosen: string;
    anonId: string;
    fallback: boolean;
    trivial: boolean;
    fellBack: number;
  }[];
  usd: number;
  wallS: number;
  tripwires: number;
  error: string;
  /** What went wrong inside the task, worded by src/core/events/outcome.ts (empty: nothing). */
  problems: string[];
};

export type Lane = {
  domain: string;
  /** Task runs this domain has in the sweep (tasks × k values). */
  total: number;
  /** Finished or skipped. */
  done: number;
  /** Keys of the domain's tasks in flight, oldest first. */
  active: string[];
};

export type TripwireAlert = {
  id: number;
  ts: number;
  kind: TripwireKind;
  path: string;
  marker: string;
  stage: string;
  task: string;
  mode: ModeToken | null;
  message: string;
};

export type LogLine = { id: number; ts: number; level: "info" | "warn" | "error"; text: string };

export type LiveState = {
  sweep: SweepHeader | null;
  /** Newest event time seen (ms). */
  lastTs: number;
  counts: { total: number; ok: number; failed: number; skipped: number };
  spend: { improverUsd: number; executorUsd: number };
  lanes: Lane[];
  /** Tasks in flight, in start order. */
  tasks: TaskLive[];
  /** The most recently finished task in full, so the view still has something to show. */
  lastFinished: TaskLive | null;
  finished: { count: number; rows: FinishedRow[] };
  /** Key of the task the user focused, or null to follow the oldest task in flight. */
  focus: string | null;
  tripwires: { total: number; alerts: TripwireAlert[]; overflow: number; nextId: number };
  log: { nextId: number; lines: LogLine[] };
  showLog: boolean;
  /** asking: the first q or Ctrl-C, waiting for a second to confirm (any other key goes on). */
  stop: "none" | "asking" | "requested" | "forced";
};

export function initialState(): LiveState {
  return {
    sweep: null,
    lastTs: 0,
    counts: { total: 0, ok: 0, failed: 0, skipped: 0 },
    spend: { improverUsd: 0, executorUsd: 0 },
    lanes: [],
    tasks: [],
    lastFinished: null,
    finished: { count: 0, rows: [] },
    focus: null,
    tripwires: { total: 0, alerts: [], overflow: 0, nextId: 1 },
    log: { nextId: 1, lines: [] },
    showLog: false,
    stop: "none",
  };
}

export function taskKey(domain: string, task: string, k: number): string {
  return `${domain}\u0000${task}\u0000${k}`;
}
