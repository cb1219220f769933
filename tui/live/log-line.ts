// One short, plain line per meaningful event for the live view's event log (toggled with `l`).
// Pure formatting: no colour codes (components colour by level), never more than one line.

import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { LIMITS } from "./view-model.ts";

export const MODE_NAME = { agg: "parallel", seq: "sequential" } as const;

/** First line of a text, shortened to `max` characters with an ellipsis. */
export function firstLine(text: string, max: number = LIMITS.line): string {
  const line = (text.split("\n")[0] ?? "").trim();
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}

export type LogEntry = { level: "info" | "warn" | "error"; text: string };

export function logEntry(event: HarnessEvent): LogEntry | null {
  const info = (text: string): LogEntry => ({ level: "info", text: firstLine(text) });
  const warn = (text: string): LogEntry => ({ level: "warn", text: firstLine(text) });
  const error = (text: string): LogEntry => ({ level: "error", text: firstLine(text) });
  switch (event.type) {
    case "sweep.started":
      return info(`sweep ${event.sweep} started: ${event.bench}/${event.substrate}`);
    case "sweep.finished":
      return (event.status === "ok" ? info : error)(
        `sweep ${event.status}: ${event.tasksOk} ok, ${event.tasksFailed} failed, ${event.tasksSkipped} skipped`,
      );
    case "task.started":
      return info(
        `${event.task} k=${event.k} started (${event.index}/${event.of} in ${event.domain})`,
      );
    case "task.skipped":
      return info(`${event.task} k=${event.k} skipped: ${event.reason}`);
    case "task.finished":
      return (event.status === "ok" ? info : error)(
        `${event.task} k=${event.k} ${event.status}${event.error ? `: ${event.error}` : ""}`,
      );
    case "mode.started":
      return null;
    case "mode.finished":
      return (event.status === "ok" ? info : event.status === "degraded" ? warn : error)(
        `${event.task} ${MODE_NAME[event.mode]} ${event.status} R=${event.R}/${event.expectedR} P=${event.P}/${event.expectedP}${event.error ? `: ${event.error}` : ""}`,
      );
    case "phase.started":
      return info(`${event.task} ${MODE_NAME[event.mode]} → ${event.phase}`);
    case "stage.started":
      return null;
    case "stage.finished": {
      const outcome = event.fellBack ? "fell back" : event.keptBase ? "kept base" : "ok";
      return (event.fellBack ? warn : info)(
        `${event.task} ${event.mode} ${event.label} ${outcome}${event.error ? `: ${event.error}` : ""}`,
      );
    }
    case "proposer.call":
      return event.error
        ? warn(`call ${event.label} (${event.purpose}) attempt ${event.attempts}: ${event.error}`)
        : null;
    case "rollout.started":
      return null;
    case "rollout.finished":
      return event.ok
        ? null
        : warn(`rollout ${event.task} ${event.label} dead${event.error ? `: ${event.error}` : ""}`);
    case "ledger.recorded":
      return null;
    case "tripwire.fired":
      return error(`TRIPWIRE ${event.kind} at ${event.stage}: ${event.path}`);
    case "selection.made": {
      const how = event.trivial
        ? "k=1"
        : event.fallback
          ? "FALLBACK"
          : event.ok
            ? "chosen"
            : "failed";
      return (event.fallback || !event.ok ? warn : info)(
        `${event.task} ${MODE_NAME[event.mode]} selection: ${event.anonId ? `${event.anonId} → ` : ""}${event.chosenLabel || "(none)"} (${how})`,
      );
    }
    case "reflection.finished":
      return event.ok
        ? null
        : warn(`${event.task} ${event.mode} reflection failed: ${event.error}`);
    case "library.added":
      return info(`${event.task} ${MODE_NAME[event.mode]} library + ${event.cue}`);
    case "judgment.recorded":
      return info(
        `judged ${event.task} ${event.mode} ${event.label}: ${event.graded ? `score ${event.score}` : "ungraded"}`,
      );
    case "note":
      return { level: event.level, text: firstLine(event.message) };
  }
}
