// Headless front ends over the event spine: `--no-tui` prints one readable line per meaningful
// event (the line `describeEvent` gives, shared with the live view's log), `--json` prints every
// event as one NDJSON line, exactly the event schema. Printers only format; they decide nothing.

import { describeEvent, type Tone } from "../../core/events/describe.ts";
import { type ModeFacts, taskProblems } from "../../core/events/outcome.ts";
import type { HarnessEvent, ModeToken } from "../../core/events/registry.ts";
import type { EventSink } from "../../core/events/sink.ts";
import { capProgress, type SpendCap, spendCapOf, spentBy } from "../../core/events/spend-cap.ts";
import { paint, type Style } from "../../core/lib/paint.ts";

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

const STYLE_OF: Record<Tone, Style> = { ok: "green", warn: "yellow", error: "red", dim: "dim" };

/**
 * Collects, per task, the facts behind its problems (src/core/events/outcome.ts) from the events
 * that carry them, and hands them over once when the task finishes.
 */
class ProblemTracker {
  readonly #tasks = new Map<string, { modes: Map<ModeToken, ModeFacts>; dead: number }>();

  #of(e: { domain: string; task: string; k?: number }) {
    const key = `${e.domain}\u0000${e.task}\u0000${e.k ?? ""}`;
    let t = this.#tasks.get(key);
    if (t === undefined) {
      t = { modes: new Map(), dead: 0 };
      this.#tasks.set(key, t);
    }
    return t;
  }

  #mode(e: { domain: string; task: string; k?: number; mode: ModeToken }): ModeFacts {
    const modes = this.#of(e).modes;
    let m = modes.get(e.mode);
    if (m === undefined) {
      m = { mode: e.mode, degraded: false, selectionFellBack: false, reflectionFailed: false };
      modes.set(e.mode, m);
    }
    return m;
  }

  /** Records what `event` says; for a finished task, returns its problems and forgets it. */
  see(event: HarnessEvent): string[] {
    switch (event.type) {
      case "rollout.finished":
        if (!event.ok && !event.reused) this.#of(event).dead++;
        return [];
      case "mode.finished":
        this.#mode(event).degraded = event.status === "degraded";
        return [];
      case "selection.made":
        this.#mode(event).selectionFellBack = event.fallback;
        return [];
      case "reflection.finished":
        this.#mode(event).reflectionFailed = !event.ok;
        return [];
      case "task.finished": {
        const t = this.#of(event);
        this.#tasks.delete(`${event.domain}\u0000${event.task}\u0000${event.k}`);
        const modes = [...t.modes.values()].sort((a, b) => a.mode.localeCompare(b.mode));
        return taskProblems({ modes, deadRollouts: t.dead });
      }
      default:
        return [];
    }
  }
}

/** One human line per meaningful event; details (phases, ledger entries) only with verbose. */
export function linePrinter(write: Write, opts: LinePrinterOptions): EventSink {
  const problems = new ProblemTracker();
  let tasksWithProblems = 0;
  // With a spending cap, each finished task says how far the experiment is from it.
  let cap: SpendCap | null = null;
  const spent = { usd: 0, tokens: 0 };
  return {
    emit(event) {
      const found = problems.see(event);
      if (found.length > 0) tasksWithProblems++;
      if (event.type === "sweep.started") cap = spendCapOf(event.config);
      const add = spentBy(event);
      spent.usd += add.usd;
      spent.tokens += add.tokens;
      const line = describeEvent(event);
      if (line === null || (line.quiet && !opts.verbose)) return;
      if (cap !== null && (event.type === "task.finished" || event.type === "sweep.started")) {
        line.spans.push({ text: ` · ${capProgress(cap, spent)}`, tone: "dim" });
      }
      // A finished task says what went wrong inside it, even when it reads ok.
      if (found.length > 0) line.spans.push({ text: ` ⚠ ${found.join(", ")}`, tone: "warn" });
      if (event.type === "sweep.finished" && tasksWithProblems > 0) {
        const text = ` ⚠ ${tasksWithProblems} task(s) with problems (the show command names them)`;
        line.spans.push({ text, tone: "warn" });
      }
      const text = line.spans
        .map((s) => (typeof s === "string" ? s : paint(s.text, STYLE_OF[s.tone], opts.color)))
        .join("");
      write(`${text}\n`);
    },
  };
}
