// Text lines made of toned segments, and a window over many of them (scrolled by the container).
// Screens that are mostly text (a stage, a selection, a diff, a report) build Line[] with pure
// functions and hand them here. Pure functions of their props.

import { Box, Text } from "ink";
import InkSpinner from "ink-spinner";
import { type Tone, toneProps } from "./theme.ts";

/** `spinner`: this segment is a spinner's place; `text` is its still glyph. */
export type Segment = { text: string; tone?: Tone; spinner?: boolean };
export type Line = Segment[];

/** A plain line, or one toned line. */
export const line = (text: string, tone?: Tone): Line => [{ text, ...(tone ? { tone } : {}) }];

/** Splits a multi-line text into lines of one tone (a trailing newline adds no empty line). */
export function textLines(text: string, tone?: Tone, indent = ""): Line[] {
  const parts = text.replace(/\n$/, "").split("\n");
  return parts.map((p) => line(`${indent}${p}`, tone));
}

export function LineView({
  line: l,
  color,
  animate = false,
}: {
  line: Line;
  color: boolean;
  /** Turn the spinners on this line (ink-spinner); else they show their still glyph. */
  animate?: boolean;
}) {
  // An empty Text takes no height in Ink; a blank line must still hold its row.
  if (l.every((s) => s.text === "")) return <Text> </Text>;
  return (
    <Text wrap="truncate">
      {l.map((s, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: position is the identity of a segment
        <Text key={i} {...toneProps(color, s.tone)}>
          {s.spinner && animate ? <InkSpinner type="dots" /> : s.text}
        </Text>
      ))}
    </Text>
  );
}

export type ScrollViewProps = {
  lines: Line[];
  /** First line shown. */
  offset: number;
  height: number;
  color: boolean;
};

/** The largest useful offset for `total` lines in a window of `height`. */
export function maxOffset(total: number, height: number): number {
  return Math.max(0, total - Math.max(1, height));
}

export function ScrollView({ lines, offset, height, color }: ScrollViewProps) {
  const h = Math.max(1, height);
  const from = Math.min(Math.max(0, offset), maxOffset(lines.length, h));
  const shown = lines.slice(from, from + h);
  const below = lines.length - from - shown.length;
  return (
    <Box flexDirection="column">
      {shown.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a line's number is its identity here
        <LineView key={from + i} line={l} color={color} />
      ))}
      {lines.length > h ? (
        <Text {...toneProps(color, "dim")}>
          {`lines ${from + 1}–${from + shown.length} of ${lines.length}${below > 0 ? " · ↓ more" : ""}`}
        </Text>
      ) : null}
    </Box>
  );
}
