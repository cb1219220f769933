// The view's tones and glyphs in one place. With colour off (NO_COLOR, or not a terminal) a tone
// adds no style at all, so every meaning must also be readable from the text itself.

import type { TextProps } from "ink";

export type Tone = "ok" | "warn" | "error" | "dim" | "accent" | "running" | "strong";

const STYLES: Record<Tone, TextProps> = {
  ok: { color: "green" },
  warn: { color: "yellow" },
  error: { color: "red" },
  dim: { dimColor: true },
  accent: { color: "cyan" },
  running: { color: "blue" },
  strong: { bold: true },
};

/** Text props for a tone, or none when colour is off. */
export function toneProps(color: boolean, tone: Tone | undefined): TextProps {
  return color && tone ? STYLES[tone] : {};
}
