// The view's one spinner: ink-spinner's dots while the view animates, else the dots' first frame,
// so a test, a final frame or a finished sweep draws the same glyph every time. Pure function of
// its props (the animation's timer lives inside ink-spinner).

import { Text } from "ink";
import InkSpinner from "ink-spinner";
import { toneProps } from "./theme.ts";

/** The first frame of ink-spinner's `dots`: what a still spinner shows. */
export const SPINNER_STILL = "⠋";

export type SpinnerProps = { animate: boolean; color: boolean };

export function Spinner({ animate, color }: SpinnerProps) {
  return (
    <Text {...toneProps(color, "running")}>
      {animate ? <InkSpinner type="dots" /> : SPINNER_STILL}
    </Text>
  );
}
