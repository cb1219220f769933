// The live view's `?` panel: what its words and marks mean, in the words of docs/method.md's
// glossary (`harness2 help concepts` has every one). Pure function of its props.

import { Box, Text } from "ink";
import { toneProps } from "../../components/theme.ts";

export const LIVE_HELP_LINES = [
  "INV, DOM   improver proposals: what helps any task of this kind; what this domain's tasks need",
  "AGG        a parallel final: every proposal composed into one harness",
  "COMPOSE    a sequential checkpoint c1, c2, …: that round's two proposals composed",
  "R, P       rollouts and improver sessions so far, against the mode's budget (4k and 3k)",
  "[A], B → x the blind id the selector saw, and the candidate it stands for",
  "↩ n        stages that fell back to the harness they were given (their proposal was refused)",
  "kept base  an edit that changed nothing in the harness it was given",
  "⚠          a task that finished with a problem inside (show names it)",
  "Every word: harness2 help concepts · ? closes this",
] as const;

export function LiveHelp({ color }: { color: boolean }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text {...toneProps(color, "strong")}>what the words mean</Text>
      {LIVE_HELP_LINES.map((l) => (
        <Text key={l} wrap="truncate" {...toneProps(color, "dim")}>
          {l}
        </Text>
      ))}
    </Box>
  );
}
