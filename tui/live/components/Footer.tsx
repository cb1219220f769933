// The key line at the bottom, and what a stop request means while one is pending.
// Pure function of its props.

import { Text } from "ink";
import { toneProps } from "../../components/theme.ts";
import type { LiveState } from "../view-model.ts";

export type FooterProps = {
  stop: LiveState["stop"];
  showLog: boolean;
  hasAlerts: boolean;
  /** More than one task in flight, so focus can move. */
  canFocus: boolean;
  finished: boolean;
  color: boolean;
};

export function Footer({ stop, showLog, hasAlerts, canFocus, finished, color }: FooterProps) {
  if (stop === "forced") {
    return <Text {...toneProps(color, "error")}>stopping now…</Text>;
  }
  // Short enough to survive a narrow terminal whole: the key to press is the point.
  const pending =
    stop === "asking"
      ? "stop? running work is cancelled, finished work kept — q again stops, any key goes on"
      : "stopping: running work is cancelled, finished work kept — q again stops at once";
  if ((stop === "asking" || stop === "requested") && !finished) {
    return (
      <Text wrap="truncate" {...toneProps(color, "warn")}>
        {pending}
      </Text>
    );
  }
  // A finished sweep's frame is the last one drawn and stays on screen after the process ends:
  // it offers no key, and points at what is printed below it (issue 35).
  if (finished) {
    return (
      <Text wrap="truncate" {...toneProps(color, "dim")}>
        finished — the verdict and the next commands follow below
      </Text>
    );
  }
  const keys = [
    canFocus ? "tab/←→ focus task" : null,
    `l ${showLog ? "hide" : "show"} log`,
    hasAlerts ? "a acknowledge tripwires" : null,
    "? words",
    "q stop",
  ].filter((k): k is string => k !== null);
  return (
    <Text wrap="truncate" {...toneProps(color, "dim")}>
      {keys.join(" · ")}
    </Text>
  );
}
