// Tripwire alerts: red, boxed, one line each with kind, where (stage, task, mode), path and
// marker; they stay until the user acknowledges them with `a`. Pure function of its props.

import { Box, Text } from "ink";
import { maskMarker } from "../../../src/core/lib/marker-mask.ts";
import { toneProps } from "../../components/theme.ts";
import { MODE_NAME } from "../log-line.ts";
import type { TripwireAlert } from "../view-model.ts";

export type TripwireAlertsProps = {
  alerts: TripwireAlert[];
  /** Alerts that fired beyond the ones kept. */
  overflow: number;
  color: boolean;
};

export function TripwireAlerts({ alerts, overflow, color }: TripwireAlertsProps) {
  if (alerts.length === 0) return null;
  const red = toneProps(color, "error");
  const total = alerts.length + overflow;
  return (
    <Box flexDirection="column" borderStyle="round" {...(color ? { borderColor: "red" } : {})}>
      <Text wrap="truncate" {...red} bold={color}>
        TRIPWIRE{total > 1 ? ` ×${total}` : ""} — blocked before any model saw it · press a to
        acknowledge
      </Text>
      {overflow > 0 ? <Text {...red}>… {overflow} earlier alert(s) not shown</Text> : null}
      {alerts.map((a) => (
        <Text key={a.id} wrap="truncate" {...red}>
          {a.kind} at {a.stage}
          {a.task ? ` (${a.task}${a.mode ? ` ${MODE_NAME[a.mode]}` : ""})` : ""}: {a.path}
          {a.marker ? ` [marker ${maskMarker(a.marker)}]` : ""}
          {a.message ? ` — ${a.message}` : ""}
        </Text>
      ))}
    </Box>
  );
}
