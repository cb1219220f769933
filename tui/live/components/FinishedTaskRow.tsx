// One finished task as a single line (written once above the live area via <Static>): status,
// domain and task, per mode the chosen candidate (or FALLBACK / k=1), fell-back stages, cost, time.

import { Text } from "ink";
import { toneProps } from "../../components/theme.ts";
import { formatDuration, formatUsd } from "../derive.ts";
import { MODE_NAME } from "../log-line.ts";
import type { FinishedRow } from "../view-model.ts";

export type FinishedTaskRowProps = { row: FinishedRow; color: boolean };

export function FinishedTaskRow({ row, color }: FinishedTaskRowProps) {
  const ok = row.status === "ok";
  return (
    <Text wrap="truncate">
      <Text {...toneProps(color, ok ? "ok" : "error")}>
        {ok ? "✔" : "✘"} {row.status}
      </Text>{" "}
      {row.domain} <Text {...toneProps(color, "strong")}>{row.task}</Text> k={row.k}
      {row.modes.map((m) => (
        <Text key={m.mode}>
          {"  "}
          {MODE_NAME[m.mode]}{" "}
          {m.trivial ? (
            `${m.chosen} (k=1)`
          ) : m.fallback ? (
            <Text {...toneProps(color, "warn")}>FALLBACK {m.chosen || "(none)"}</Text>
          ) : m.chosen ? (
            `${m.anonId}→${m.chosen}`
          ) : (
            <Text {...toneProps(color, "error")}>{m.status}</Text>
          )}
          {m.fellBack > 0 ? <Text {...toneProps(color, "warn")}> ↩{m.fellBack}</Text> : null}
        </Text>
      ))}
      {"  "}
      {formatUsd(row.usd)} {formatDuration(row.wallS)}
      {row.tripwires > 0 ? (
        <Text {...toneProps(color, "error")}> tripwires {row.tripwires}</Text>
      ) : null}
      {row.error ? <Text {...toneProps(color, "error")}> — {row.error}</Text> : null}
    </Text>
  );
}
