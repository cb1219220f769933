// One short, plain line per meaningful event for the live view's event log (toggled with `l`):
// the same line the headless printer prints (core's describeEvent), cut to one row. Components
// colour by level; there are no colour codes here.

import { describeEvent, lineText } from "../../src/core/events/describe.ts";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { oneLine } from "../../src/core/lib/format.ts";
import { LIMITS } from "./view-model.ts";

export { MODE_NAMES as MODE_NAME } from "../../src/core/events/registry.ts";

/** First line of a text, shortened to `max` columns with an ellipsis. */
export function firstLine(text: string, max: number = LIMITS.line): string {
  return oneLine(text, max);
}

export type LogEntry = { level: "info" | "warn" | "error"; text: string };

/** The log's entry for an event: its line in the method's words, or null for a detail. */
export function logEntry(event: HarnessEvent): LogEntry | null {
  const line = describeEvent(event);
  if (line === null || line.quiet) return null;
  return { level: line.level, text: firstLine(lineText(line).trim()) };
}
