// Headless front ends over the event spine: `--no-tui` prints one readable line per meaningful
// event (the line `describeEvent` gives, shared with the live view's log), `--json` prints every
// event as one NDJSON line, exactly the event schema. Printers only format; they decide nothing.

import { describeEvent, type Tone } from "../core/events/describe.ts";
import type { EventSink } from "../core/events/sink.ts";

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

const ANSI: Record<Tone, string> = { ok: "32", warn: "33", error: "31", dim: "2" };

/** One human line per meaningful event; details (phases, ledger entries) only with verbose. */
export function linePrinter(write: Write, opts: LinePrinterOptions): EventSink {
  return {
    emit(event) {
      const line = describeEvent(event);
      if (line === null || (line.quiet && !opts.verbose)) return;
      const text = line.spans
        .map((s) =>
          typeof s === "string" ? s : opts.color ? `\x1b[${ANSI[s.tone]}m${s.text}\x1b[0m` : s.text,
        )
        .join("");
      write(`${text}\n`);
    },
  };
}
