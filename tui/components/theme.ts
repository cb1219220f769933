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

/** Display width of a string (the view's own texts are single-width characters). */
export function textWidth(text: string): number {
  return [...text].length;
}

/** Cuts a text to `width` columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 0) return "";
  return `${chars.slice(0, width - 1).join("")}…`;
}

export function pad(text: string, width: number, align: "left" | "right" = "left"): string {
  const fill = " ".repeat(Math.max(0, width - textWidth(text)));
  return align === "right" ? fill + text : text + fill;
}
