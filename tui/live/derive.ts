// Read-only views derived from the live state for the components: the focused task, progress and
// ETA, elapsed time. Pure functions of (state, now); they never change the state.

import {
  formatDuration as formatDurationText,
  formatUsd as formatUsdText,
} from "../../src/core/lib/format.ts";
import type { LiveState, TaskLive } from "./view-model.ts";

/** The task the user focused, else the oldest task in flight, else the last one that finished. */
export function focusedTask(state: LiveState): TaskLive | null {
  if (state.focus !== null) {
    const t = state.tasks.find((x) => x.key === state.focus);
    if (t) return t;
  }
  return state.tasks[0] ?? state.lastFinished;
}

export type Progress = {
  done: number;
  total: number;
  /** 0..1 */
  fraction: number;
  elapsedS: number;
  /** Seconds left, or null until at least one task ran to an end. */
  etaS: number | null;
};

export function progress(state: LiveState, now: number): Progress {
  const { ok, failed, skipped, total } = state.counts;
  const done = ok + failed + skipped;
  const sweep = state.sweep;
  const elapsedS = !sweep
    ? 0
    : sweep.finished
      ? sweep.finished.wallS
      : Math.max(0, (Math.max(now, state.lastTs) - sweep.startedTs) / 1000);
  const ran = ok + failed;
  const left = Math.max(0, total - done);
  // Skipped tasks take no time, so the rate counts only tasks that ran.
  const etaS =
    sweep?.finished || left === 0 ? 0 : ran > 0 && elapsedS > 0 ? (elapsedS / ran) * left : null;
  return {
    done,
    total,
    fraction: total > 0 ? Math.min(1, done / total) : 0,
    elapsedS,
    etaS,
  };
}

/** The live view's durations: compact, "1m15s" (one formatter for every front end: lib/format). */
export function formatDuration(seconds: number): string {
  return formatDurationText(seconds, { compact: true });
}

/** The live view's money: 4 decimals, so a sweep's small spends stay visible. */
export function formatUsd(usd: number): string {
  return formatUsdText(usd, { precise: true });
}

/**
 * The stage a proposer call belongs to, or null. A stage's calls are labelled `<stage>.a<N>`, one
 * per stage attempt (src/core/recursion/stage.ts); selection (`select.<mode><k>[.repairN]`) and reflection
 * (`experience.<mode><k>[.repairN]`) calls belong to no stage, and neither does any other purpose.
 */
export function stageOfCall(call: { label: string; purpose: string }): string | null {
  if (call.purpose !== "stage") return null;
  const m = /^(.+)\.a(\d+)$/.exec(call.label);
  return m ? (m[1] as string) : null;
}
