// One line in the method's own words for each event: what the headless printer prints and what
// the live view's event log shows, so the two never drift apart. Pure: no colour codes (a front
// end paints the toned spans), no decisions. The words are the glossary's (docs/method.md).

import { formatUsd, squish, truncate } from "../lib/format.ts";
import { maskMarker } from "../lib/marker-mask.ts";
import { type HarnessEvent, MODE_NAMES, type ModeToken } from "./registry.ts";

/** How a span is painted where colour is on. */
export type Tone = "ok" | "warn" | "error" | "dim";
export type Span = string | { text: string; tone: Tone };

export type EventLine = {
  /** How much the line matters: an error or warning stands out in every front end. */
  level: "info" | "warn" | "error";
  spans: Span[];
  /** A detail shown only on request (--verbose): phases, ledger entries, fine rollouts. */
  quiet: boolean;
};

/** The line as plain text. */
export function lineText(line: EventLine): string {
  return line.spans.map((s) => (typeof s === "string" ? s : s.text)).join("");
}

const modeName = (m: string): string => MODE_NAMES[m as ModeToken] ?? m;
const first = (text: string): string => text.split("\n")[0] ?? "";
const usd = (x: number): string => formatUsd(x, { precise: true });
const tone = (text: string, t: Tone): Span => ({ text, tone: t });

function line(spans: Span[], level: EventLine["level"] = "info", quiet = false): EventLine {
  return { level, spans, quiet };
}

/** Every event's line, or null for the few that say nothing on their own (a rollout starting). */
export function describeEvent(event: HarnessEvent): EventLine | null {
  switch (event.type) {
    case "sweep.started": {
      const tasks = event.domains.reduce((n, d) => n + d.tasks.length, 0);
      const modes = event.modes.map(modeName).join(",");
      return line([
        `sweep ${event.sweep}: ${event.bench}/${event.substrate} k=${event.ks.join(",")} modes=${modes} — ${tasks} task(s) in ${event.domains.length} domain(s)`,
      ]);
    }
    case "sweep.finished": {
      const ok = event.status === "ok";
      return line(
        [
          `sweep ${event.sweep} `,
          tone(event.status, ok ? "ok" : "error"),
          `: ${event.tasksOk} ok, ${event.tasksFailed} failed, ${event.tasksSkipped} skipped; ${usd(event.usd)}; ${event.wallS.toFixed(1)}s`,
        ],
        ok ? "info" : "error",
      );
    }
    case "task.started":
      return line([
        `[${event.domain} ${event.index}/${event.of}] ${event.task} k=${event.k}: started`,
      ]);
    case "task.skipped":
      return line([
        `[${event.domain}] ${event.task} k=${event.k}: `,
        tone(`skipped (${event.reason})`, "dim"),
      ]);
    case "task.finished": {
      const ok = event.status === "ok";
      const modes = Object.entries(event.modes)
        .map(([m, s]) => `${modeName(m)}=${s}`)
        .join(" ");
      return line(
        [
          `[${event.domain}] ${event.task} k=${event.k}: `,
          tone(event.status, ok ? "ok" : "error"),
          ` (${modes}) ${usd(event.usd)} ${event.wallS.toFixed(1)}s`,
          ...(event.error ? [" — ", tone(event.error, "error")] : []),
        ],
        ok ? "info" : "error",
      );
    }
    case "mode.started":
      return line([`  ${event.task} ${modeName(event.mode)}: started`], "info", true);
    case "mode.finished": {
      const t: Tone = event.status === "ok" ? "ok" : event.status === "degraded" ? "warn" : "error";
      const fell = event.fellBack.length ? ` fell back: ${event.fellBack.join(",")}` : "";
      return line(
        [
          `  ${event.task} ${modeName(event.mode)}: `,
          tone(event.status, t),
          ` R=${event.R}/${event.expectedR} P=${event.P}/${event.expectedP}${fell}`,
          ...(event.error ? [" — ", tone(event.error, "error")] : []),
        ],
        t === "ok" ? "info" : t,
      );
    }
    case "phase.started":
      return line([`  ${event.task} ${modeName(event.mode)}: ${event.phase}`], "info", true);
    case "stage.started":
      return line(
        [`    ${event.task} ${modeName(event.mode)} ${event.label} (${event.dim}): started`],
        "info",
        true,
      );
    case "stage.finished": {
      const state = event.fellBack
        ? tone("fell back", "warn")
        : event.keptBase
          ? // "kept base" alone read as "kept the task's buggy starting harness" right before such
            // a candidate won: it means the edit changed nothing in the harness it was given.
            "kept base (its edit changed nothing in the harness it was given)"
          : tone("accepted", "ok");
      const cached = event.cached ? " cached" : "";
      const err = event.error ? ` — ${first(event.error)}` : "";
      return line(
        [
          `    ${event.task} ${modeName(event.mode)} ${event.label} (${event.dim}): `,
          state,
          `, ${event.attempts} attempt(s)${cached} ${usd(event.usd)}${err}`,
        ],
        event.fellBack ? "warn" : "info",
      );
    }
    case "proposer.call":
      return line(
        [
          `    call ${event.label} ${event.channel}/${event.model}: `,
          event.error ? tone(event.error, "error") : event.cached ? "cached" : "ok",
        ],
        event.error ? "warn" : "info",
        event.error === "",
      );
    case "rollout.started":
      return null;
    case "rollout.finished": {
      const state = event.ok
        ? event.delivered
          ? "delivered"
          : tone("no deliverable", "warn")
        : tone(`dead — ${event.error}`, "error");
      return line(
        [
          `    rollout ${event.task} ${event.label}: `,
          state,
          event.reused ? " (reused)" : "",
          event.priced === false ? " (cost unknown: no price for the model)" : "",
        ],
        event.ok ? "info" : "warn",
        event.ok && event.delivered,
      );
    }
    case "ledger.recorded":
      return line(
        [
          `    ledger ${event.task} ${modeName(event.mode)}: +${event.kind} ${event.label} → R=${event.R} P=${event.P}`,
        ],
        "info",
        true,
      );
    case "tripwire.fired":
      return line(
        [
          tone(
            `TRIPWIRE ${event.kind} at ${event.stage}${event.task ? ` (${event.task})` : ""}: ${event.path}${event.marker ? ` [${maskMarker(event.marker)}]` : ""} — blocked before any model saw it: ${first(event.message)}`,
            "error",
          ),
        ],
        "error",
      );
    case "selection.made": {
      const how = event.trivial
        ? "k=1, no selector"
        : event.fallback
          ? tone("FALLBACK", "warn")
          : event.ok
            ? "chosen"
            : tone("failed", "error");
      // The selector's whole reason on one line (it often spans several), cut only when long.
      const why = event.why ? ` — ${truncate(squish(event.why), 300)}` : "";
      return line(
        [
          `  ${event.task} ${modeName(event.mode)}: selection ${event.chosenLabel || "(none)"}${event.anonId ? ` [${event.anonId}]` : ""} `,
          how,
          why,
        ],
        event.fallback || !event.ok ? "warn" : "info",
      );
    }
    case "adoption.recorded":
      return line(
        [
          `  ${event.task} ${modeName(event.mode)}: adopted ${event.chosenLabel || "(none)"}${event.chosenTreeIsBase ? " (the base harness)" : ""}`,
        ],
        "info",
        true,
      );
    case "reflection.finished":
      return line(
        [
          `  ${event.task} ${modeName(event.mode)}: reflection `,
          event.ok
            ? event.noEntry
              ? "NO_ENTRY"
              : "lesson"
            : tone(`failed — ${event.error}`, "error"),
        ],
        event.ok ? "info" : "warn",
        event.ok,
      );
    case "library.added":
      // A resumed task's entry put back is no news: a detail.
      if (event.restored === true) {
        return line(
          [`  ${event.task} ${modeName(event.mode)}: library kept (resumed)`],
          "info",
          true,
        );
      }
      return line([`  ${event.task} ${modeName(event.mode)}: library + ${event.cue}`]);
    case "judgment.recorded":
      return line([
        `  judged ${event.task} ${modeName(event.mode)} ${event.label}: `,
        event.graded ? `score ${event.score}` : tone(`ungraded (${event.reason})`, "warn"),
      ]);
    case "note":
      return line(
        [
          event.level === "info"
            ? event.message
            : tone(event.message, event.level === "error" ? "error" : "warn"),
        ],
        event.level,
      );
    default:
      // Every event type has a line: a new event fails typechecking here until it has one.
      return event satisfies never;
  }
}
