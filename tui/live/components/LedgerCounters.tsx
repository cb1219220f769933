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
  const barWidth = Math.max(6, Math.min(20, Math.floor((width - 50) / 2)));
  return (
    <Box flexDirection="column">
      {modes.map((m) => {
        const rDone = m.R >= m.expectedR;
        const pDone = m.P >= m.expectedP;
        return (
          <Text key={m.mode} wrap="truncate">
            {pad(MODE_NAME[m.mode], 11)} rollouts R{" "}
            <Bar
              value={m.R}
              max={m.expectedR}
              width={barWidth}
              color={color}
              tone={rDone ? "ok" : "accent"}
            />{" "}
            <Text {...toneProps(color, rDone ? "ok" : undefined)}>
              {pad(`${m.R}/${m.expectedR}`, 7)}
            </Text>
            {"  "}sessions P{" "}
            <Bar
              value={m.P}
              max={m.expectedP}
              width={barWidth}
              color={color}
              tone={pDone ? "ok" : "accent"}
            />{" "}
            <Text {...toneProps(color, pDone ? "ok" : undefined)}>{`${m.P}/${m.expectedP}`}</Text>
          </Text>
        );
      })}
    </Box>
  );
}
