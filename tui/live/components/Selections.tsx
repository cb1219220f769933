// Per mode of the focused task, what the blind selector chose: anonymous id → candidate label and
// the first line of its why, with a clear mark for a fallback pick or a k=1 trivial one. A mode
// that has not reached selection takes no line.

import { Box, Text } from "ink";
import { pad } from "../../../src/core/lib/format.ts";
import { toneProps } from "../../components/theme.ts";
import { MODE_NAME } from "../log-line.ts";
import type { ModeLive } from "../view-model.ts";

export type SelectionsProps = {
  modes: ModeLive[];
  color: boolean;
};

export function Selections({ modes, color }: SelectionsProps) {
  const selected = modes.filter((m) => m.selection !== null);
  if (selected.length === 0) return null;
  return (
    <Box flexDirection="column">
      {selected.map((m) => {
        const s = m.selection;
        const name = pad(MODE_NAME[m.mode], 11);
        if (!s) return null;
        if (s.trivial) {
          return (
            <Text key={m.mode} wrap="truncate">
              {name} <Text {...toneProps(color, "strong")}>{s.chosenLabel}</Text>{" "}
              <Text {...toneProps(color, "accent")}>
                [k=1 trivial: the only final, no selector]
              </Text>
            </Text>
          );
        }
        if (s.fallback || !s.ok) {
          return (
            <Text key={m.mode} wrap="truncate">
              {name}{" "}
              <Text {...toneProps(color, s.fallback ? "warn" : "error")}>
                [{s.fallback ? "FALLBACK" : "FAILED"}]
              </Text>{" "}
              <Text {...toneProps(color, "strong")}>{s.chosenLabel || "(none)"}</Text>
              {s.error ? ` — selector: ${s.error}` : ""}
            </Text>
          );
        }
        return (
          <Text key={m.mode} wrap="truncate">
            {name} <Text {...toneProps(color, "accent")}>{s.anonId}</Text> →{" "}
            <Text {...toneProps(color, "strong")}>{s.chosenLabel}</Text>
            {` of ${s.candidates}`}
            {s.why ? <Text {...toneProps(color, "dim")}> “{s.why}”</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
