// One finished task as a single line (written once above the live area via <Static>): status,
// domain and task, per mode the chosen candidate (or FALLBACK / k=1), fell-back stages, cost, time,
// and what went wrong inside the task (a failed reflection, dead rollouts…) in the warning tone.

import { Text } from "ink";
import { toneProps } from "../../components/theme.ts";
import { formatDuration, formatUsd } from "../derive.ts";
import { MODE_NAME } from "../log-line.ts";
import type { FinishedRow } from "../view-model.ts";

export type FinishedTaskRowProps = { row: FinishedRow; color: boolean };

export function FinishedTaskRow({ row, color }: FinishedTaskRowProps) {
  const ok = row.status === "ok";
  // An ok task with a failed part never looks like a clean success.
  const icon = !ok ? "✘" : row.problems.length > 0 ? "⚠" : "✔";
  const tone = !ok ? "error" : row.problems.length > 0 ? "warn" : "ok";
  return (
    <Text wrap="truncate">
      <Text {...toneProps(color, tone)}>
        {icon} {row.status}
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
      {row.problems.length > 0 ? (
        <Text {...toneProps(color, "warn")}> ⚠ {row.problems.join(", ")}</Text>
      ) : null}
      {row.tripwires > 0 ? (
        <Text {...toneProps(color, "error")}> tripwires {row.tripwires}</Text>
      ) : null}
      {row.error ? <Text {...toneProps(color, "error")}> — {row.error}</Text> : null}
    </Text>
  );
}
