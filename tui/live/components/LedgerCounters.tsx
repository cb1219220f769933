// The focused task's ledger counters per mode: rollouts R against 4k and improvement sessions P
// against 3k, each with a bar, green once the budget identity is met. Pure function of its props.

import { Box, Text } from "ink";
import { pad } from "../../../src/core/lib/format.ts";
import { Bar } from "../../components/Bar.tsx";
import { toneProps } from "../../components/theme.ts";
import { MODE_NAME } from "../log-line.ts";
import type { ModeLive } from "../view-model.ts";

export type LedgerCountersProps = {
  modes: ModeLive[];
  color: boolean;
  width: number;
};

export function LedgerCounters({ modes, color, width }: LedgerCountersProps) {
  if (modes.length === 0) return null;
  // Numbers are the last thing to go: in a narrow terminal the labels shorten to R and P and
  // the bars shrink, then vanish, before a count is ever cut.
  const counts = Math.max(
    ...modes.map((m) => `${m.R}/${m.expectedR}`.length + `${m.P}/${m.expectedP}`.length),
  );
  const long = { r: "rollouts R ", p: "sessions P " };
  const short = { r: "R ", p: "P " };
  const fixed = (l: typeof long) => 11 + 1 + l.r.length + 2 + 7 + l.p.length + counts;
  const labels = width - fixed(long) >= 2 * 7 ? long : short;
  const room = Math.floor((width - fixed(labels) - 2) / 2);
  const barWidth = room >= 4 ? Math.min(20, room) : 0;
  return (
    <Box flexDirection="column">
      {modes.map((m) => {
        const rDone = m.R >= m.expectedR;
        const pDone = m.P >= m.expectedP;
        const bar = (value: number, max: number, done: boolean) =>
          barWidth > 0 ? (
            <>
              <Bar
                value={value}
                max={max}
                width={barWidth}
                color={color}
                tone={done ? "ok" : "accent"}
              />{" "}
            </>
          ) : null;
        return (
          <Text key={m.mode} wrap="truncate">
            {pad(MODE_NAME[m.mode], 11)} {labels.r}
            {bar(m.R, m.expectedR, rDone)}
            <Text {...toneProps(color, rDone ? "ok" : undefined)}>
              {pad(`${m.R}/${m.expectedR}`, 7)}
            </Text>
            {"  "}
            {labels.p}
            {bar(m.P, m.expectedP, pDone)}
            <Text {...toneProps(color, pDone ? "ok" : undefined)}>{`${m.P}/${m.expectedP}`}</Text>
          </Text>
        );
      })}
    </Box>
  );
}
