// One line per domain lane: its progress, the task it is on (with k and stream position) and, per
// mode, the phase that task is in. The focused task's lane is marked. Pure function of its props.

import { Box, Text } from "ink";
import { pad, truncate } from "../../../src/core/lib/format.ts";
import { Spinner } from "../../components/Spinner.tsx";
import { toneProps } from "../../components/theme.ts";
import { MODE_NAME } from "../log-line.ts";
import type { Lane, ModeLive, TaskLive } from "../view-model.ts";

export type LanesProps = {
  lanes: Lane[];
  tasks: TaskLive[];
  focusKey: string | null;
  /** Lines the lanes may take; the rest are summarised in one line. */
  maxLines: number;
  /** Spinners turn (false: tests and final frames draw a still one). */
  animate: boolean;
  color: boolean;
  width: number;
};

function modePhase(m: ModeLive, basesRunning: boolean): string {
  if (m.status === "waiting") return basesRunning ? "bases" : "waiting";
  if (m.status !== "running") return m.status;
  return m.phase ?? "starting";
}

export function Lanes({ lanes, tasks, focusKey, maxLines, animate, color, width }: LanesProps) {
  if (lanes.length === 0) return null;
  const byKey = new Map(tasks.map((t) => [t.key, t]));
  // Busy lanes first keeps the useful ones on screen when there are more lanes than lines.
  const ordered = [...lanes].sort(
    (a, b) => Number(b.active.length > 0) - Number(a.active.length > 0),
  );
  const room = Math.max(1, maxLines);
  // With one line there is no room for the summary: the busiest lane alone is more useful.
  const shown = ordered.length > room ? ordered.slice(0, room === 1 ? 1 : room - 1) : ordered;
  const hidden = ordered.length - shown.length;
  const nameWidth = Math.min(24, Math.max(...lanes.map((l) => l.domain.length)));
  return (
    <Box flexDirection="column">
      {shown.map((lane) => {
        const task = lane.active.map((k) => byKey.get(k)).find((t) => t !== undefined);
        const focused = task !== undefined && task.key === focusKey;
        const count = `${lane.done}/${lane.total}`;
        const head = `${focused ? "▶" : " "} ${pad(truncate(lane.domain, nameWidth), nameWidth)} ${pad(count, 7)} `;
        if (!task) {
          const done = lane.total > 0 && lane.done >= lane.total;
          return (
            <Text key={lane.domain} wrap="truncate">
              {head}
              <Text {...toneProps(color, done ? "ok" : "dim")}>{done ? "done" : "idle"}</Text>
            </Text>
          );
        }
        const more = lane.active.length > 1 ? ` +${lane.active.length - 1}` : "";
        const where = task.of > 0 ? ` (${task.index}/${task.of})` : "";
        const rollouts =
          task.rollouts.running > 0 ? `  ${task.rollouts.running} rollout(s) running` : "";
        return (
          <Text key={lane.domain} wrap="truncate">
            <Text {...toneProps(color, focused ? "accent" : undefined)}>{head}</Text>
            <Spinner animate={animate} color={color} />{" "}
            <Text {...toneProps(color, "strong")}>
              {truncate(task.task, Math.max(12, width / 3))}
            </Text>
            {` k=${task.k}${where}${more}  `}
            {task.modes.map((m, i) => (
              <Text key={m.mode}>
                {i > 0 ? " · " : ""}
                {MODE_NAME[m.mode]}:{" "}
                <Text {...toneProps(color, m.status === "running" ? "accent" : "dim")}>
                  {modePhase(m, task.rollouts.bases > 0)}
                </Text>
              </Text>
            ))}
            <Text {...toneProps(color, "dim")}>{rollouts}</Text>
          </Text>
        );
      })}
      {hidden > 0 ? <Text {...toneProps(color, "dim")}> … {hidden} more lane(s)</Text> : null}
    </Box>
  );
}
