// The event log (toggled with `l`): the newest lines of the bounded log, timestamped, coloured by
// level. Pure function of its props.

import { Box, Text } from "ink";
import { toneProps } from "../../components/theme.ts";
import type { LogLine } from "../view-model.ts";

export type EventLogProps = {
  lines: LogLine[];
  /** Lines that fit. */
  maxLines: number;
  color: boolean;
};

/** HH:MM:SS in UTC, so a recorded run reads the same anywhere. */
export function clockTime(ts: number): string {
  return new Date(ts).toISOString().slice(11, 19);
}

export function EventLog({ lines, maxLines, color }: EventLogProps) {
  const shown = lines.slice(-Math.max(1, maxLines));
  return (
    <Box flexDirection="column">
      <Text {...toneProps(color, "strong")}>event log</Text>
      {shown.length === 0 ? <Text {...toneProps(color, "dim")}> (nothing yet)</Text> : null}
      {shown.map((l) => (
        <Text key={l.id} wrap="truncate">
          <Text {...toneProps(color, "dim")}>{clockTime(l.ts)}</Text>{" "}
          <Text
            {...toneProps(
              color,
              l.level === "info" ? undefined : l.level === "warn" ? "warn" : "error",
            )}
          >
            {l.text}
          </Text>
        </Text>
      ))}
    </Box>
  );
}
