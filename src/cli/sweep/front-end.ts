// Which front end a sweep command shows (the terminal UI, one line per event, or NDJSON), and the
// flags every sweep command shares to choose it and the store.

import type { CliIO, OptionSpecs } from "../command.ts";

export type FrontEnd = "tui" | "lines" | "json";

/** The flags every sweep command shares: where the store is, and which front end to show. */
export const SWEEP_FRONT_OPTIONS = {
  runs: {
    type: "string",
    valueName: "DIR",
    description: "runs directory holding the store (default $HARNESS2_RUNS_DIR or runs)",
  },
  "no-tui": { type: "boolean", description: "one line per event instead of the terminal UI" },
  json: { type: "boolean", description: "NDJSON events on stdout (one per line)" },
} as const satisfies OptionSpecs;

/** Which front end a command gets: the TUI only on a terminal, never with --no-tui or --json. */
export function chooseFrontEnd(io: CliIO, flags: { noTui: boolean; json: boolean }): FrontEnd {
  if (flags.json) return "json";
  if (flags.noTui || !io.isTTY) return "lines";
  return "tui";
}
