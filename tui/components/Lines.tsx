// Text lines made of toned segments, and a window over many of them (scrolled by the container).
// Screens that are mostly text (a stage, a selection, a diff, a report) build Line[] with pure
// functions and hand them here. Pure functions of their props.

import { Box, Text } from "ink";
import InkSpinner from "ink-spinner";
import { textWidth } from "../../src/core/lib/format.ts";
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

/**
 * Lines folded at `width` terminal columns, so a detail view shows a long error or note whole:
 * a line wider than `width` continues on the next, indented as it was (at most 8 columns), its
 * segments keeping their tones. Lines that fit are kept as they are.
 */
export function wrapLines(lines: readonly Line[], width: number): Line[] {
  if (width < 10) return [...lines];
  const out: Line[] = [];
  for (const l of lines) {
    if (textWidth(l.map((s) => s.text).join("")) <= width) {
      out.push(l);
      continue;
    }
    const indent = " ".repeat(
      Math.min(
        8,
        (
          l
            .map((s) => s.text)
            .join("")
            .match(/^ */)?.[0] ?? ""
        ).length,
      ),
    );
    let row: Line = [];
    let used = 0;
    for (const seg of l) {
      let piece = "";
      for (const ch of Array.from(seg.text)) {
        const w = textWidth(ch);
        if (used + w > width) {
          if (piece !== "") row.push({ ...seg, text: piece });
          out.push(row);
          row = [{ text: indent }];
          used = indent.length;
          piece = "";
        }
        piece += ch;
        used += w;
      }
      if (piece !== "") row.push({ ...seg, text: piece });
    }
    if (row.length > 0) out.push(row);
  }
  return out;
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
