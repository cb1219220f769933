// A horizontal bar for a count against its target, e.g. ledger R 6/8 or tasks done 3/10.
// Pure function of its props; the count text is always shown, so it reads without colour.

import { Text } from "ink";
import { type Tone, toneProps } from "./theme.ts";

export type BarProps = {
  value: number;
  max: number;
  /** Cells the bar itself takes. */
  width: number;
  color: boolean;
  tone?: Tone;
};

/** The bar as text: filled cells for value/max, light cells for the rest. */
export function barText(value: number, max: number, width: number): string {
  const w = Math.max(1, Math.floor(width));
  const fraction = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
  const filled = Math.round(fraction * w);
  return "█".repeat(filled) + "░".repeat(w - filled);
}

export function Bar({ value, max, width, color, tone }: BarProps) {
  return <Text {...toneProps(color, tone)}>{barText(value, max, width)}</Text>;
}
