// Headless front ends over the event spine (ARCHITECTURE §4): `--no-tui` prints one readable line
// per meaningful event, `--json` prints every event as one NDJSON line, exactly the event schema.
// Printers only format; they never decide anything about the run.

import type { EventSink, HarnessEvent } from "../core/events/registry.ts";

export type Write = (text: string) => void;

/** NDJSON: one event per line, nothing else on stdout. */
export function jsonPrinter(write: Write): EventSink {
  return { emit: (event) => write(`${JSON.stringify(event)}\n`) };
}

export type LinePrinterOptions = {
  /** ANSI colours (only for a TTY, and never when NO_COLOR is set). */
  color: boolean;
  /** Print per-rollout and per-ledger lines too (noisy; off by default). */
  verbose?: boolean;
};

const MODE_NAME = { agg: "parallel", seq: "sequential" } as const;

/** One human line per meaningful event; quiet events (phases, ledger entries) only with verbose. */
export function linePrinter(write: Write, opts: LinePrinterOptions): EventSink {
  const paint = (code: string, text: string) => (opts.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const red = (t: string) => paint("31", t);
  const green = (t: string) => paint("32", t);
  const yellow = (t: string) => paint("33", t);
  const dim = (t: string) => paint("2", t);
  return {
    emit(event) {
      const line = describe(event, { red, green, yellow, dim }, opts.verbose ?? false);
      if (line !== null) write(`${line}\n`);
    },
  };
}

type Paint = Record<"red" | "green" | "yellow" | "dim", (t: string) => string>;

export function describe(event: HarnessEvent, p: Paint, verbose: boolean): string | null {
  switch (event.type) {
    case "sweep.started": {
      const tasks = event.domains.reduce((n, d) => n + d.tasks.length, 0);
      const modes = event.modes.map((m) => MODE_NAME[m]).join(",");
      return `sweep ${event.sweep}: ${event.bench}/${event.substrate} k=${event.ks.join(",")} modes=${modes} — ${tasks} task(s) in ${event.domains.length} domain(s)`;
    }
    case "sweep.finished": {
      const status = event.status === "ok" ? p.green("ok") : p.red(event.status);
      return `sweep ${event.sweep} ${status}: ${event.tasksOk} ok, ${event.tasksFailed} failed, ${event.tasksSkipped} skipped; $${event.usd.toFixed(4)}; ${event.wallS.toFixed(1)}s`;
    }
    case "task.started":
      return `[${event.domain} ${event.index}/${event.of}] ${event.task} k=${event.k}: started`;
    case "task.skipped":
      return `[${event.domain}] ${event.task} k=${event.k}: ${p.dim(`skipped (${event.reason})`)}`;
    case "task.finished": {
      const status = event.status === "ok" ? p.green("ok") : p.red(event.status);
      const modes = Object.entries(event.modes)
        .map(([m, s]) => `${MODE_NAME[m as "agg" | "seq"] ?? m}=${s}`)
        .join(" ");
      const err = event.error ? ` — ${p.red(event.error)}` : "";
      return `[${event.domain}] ${event.task} k=${event.k}: ${status} (${modes}) $${event.usd.toFixed(4)} ${event.wallS.toFixed(1)}s${err}`;
    }
    case "mode.started":
      return verbose ? `  ${event.task} ${MODE_NAME[event.mode]}: started` : null;
    case "mode.finished": {
      const status =
        event.status === "ok"
          ? p.green("ok")
          : event.status === "degraded"
            ? p.yellow("degraded")
            : p.red("failed");
      const fell = event.fellBack.length ? ` fell back: ${event.fellBack.join(",")}` : "";
      const err = event.error ? ` — ${p.red(event.error)}` : "";
      return `  ${event.task} ${MODE_NAME[event.mode]}: ${status} R=${event.R}/${event.expectedR} P=${event.P}/${event.expectedP}${fell}${err}`;
    }
    case "phase.started":
      return verbose ? `  ${event.task} ${MODE_NAME[event.mode]}: ${event.phase}` : null;
    case "stage.started":
      return verbose
        ? `    ${event.task} ${event.mode} ${event.label} (${event.dim}): started`
        : null;
    case "stage.finished": {
      const state = event.fellBack
        ? p.yellow("fell back")
        : event.keptBase
          ? "kept base"
          : p.green("accepted");
      const cached = event.cached ? " cached" : "";
      const err = event.error ? ` — ${event.error.split("\n")[0]}` : "";
      return `    ${event.task} ${event.mode} ${event.label} (${event.dim}): ${state}, ${event.attempts} attempt(s)${cached} $${event.usd.toFixed(4)}${err}`;
    }
    case "proposer.call":
      return verbose || event.error
        ? `    call ${event.label} ${event.channel}/${event.model}: ${event.error ? p.red(event.error) : event.cached ? "cached" : "ok"}`
        : null;
    case "rollout.started":
      return null;
    case "rollout.finished":
      if (!verbose && event.ok && event.delivered) return null;
      return `    rollout ${event.task} ${event.label}: ${event.ok ? (event.delivered ? "delivered" : p.yellow("no deliverable")) : p.red(`dead — ${event.error}`)}${event.reused ? " (reused)" : ""}`;
    case "ledger.recorded":
      return verbose
        ? `    ledger ${event.task} ${event.mode}: +${event.kind} ${event.label} → R=${event.R} P=${event.P}`
        : null;
    case "tripwire.fired":
      return p.red(
        `TRIPWIRE ${event.kind} at ${event.stage}${event.task ? ` (${event.task})` : ""}: ${event.path}${event.marker ? ` [${event.marker}]` : ""} — ${event.message.split("\n")[0]}`,
      );
    case "selection.made": {
      const how = event.trivial
        ? "k=1, no selector"
        : event.fallback
          ? p.yellow("FALLBACK")
          : event.ok
            ? "chosen"
            : p.red("failed");
      const why = event.why ? ` — ${event.why.split("\n")[0]}` : "";
      return `  ${event.task} ${MODE_NAME[event.mode]}: selection ${event.chosenLabel || "(none)"}${event.anonId ? ` [${event.anonId}]` : ""} ${how}${why}`;
    }
    case "reflection.finished":
      return verbose || !event.ok
        ? `  ${event.task} ${MODE_NAME[event.mode]}: reflection ${event.ok ? (event.noEntry ? "NO_ENTRY" : "lesson") : p.red(`failed — ${event.error}`)}`
        : null;
    case "library.added":
      // A resumed task's entry put back is no news: shown only with --verbose.
      if (event.restored === true) {
        return verbose ? `  ${event.task} ${MODE_NAME[event.mode]}: library kept (resumed)` : null;
      }
      return `  ${event.task} ${MODE_NAME[event.mode]}: library + ${event.cue}`;
    case "judgment.recorded":
      return `  judged ${event.task} ${MODE_NAME[event.mode]} ${event.label}: ${event.graded ? `score ${event.score}` : p.yellow(`ungraded (${event.reason})`)}`;
    case "note":
      return event.level === "error"
        ? p.red(event.message)
        : event.level === "warn"
          ? p.yellow(event.message)
          : event.message;
  }
}
