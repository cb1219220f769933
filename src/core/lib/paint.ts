// The one way harness2 colours terminal text (ANSI SGR): a style by name, applied only when colour
// is on (core/lib/format colorWanted decides that) and never to empty text. Every printer — the
// runs table, show, the headless lines, the report — names its tones through these styles.

export const STYLES = {
  green: "32",
  red: "31",
  yellow: "33",
  cyan: "36",
  dim: "2",
  bold: "1",
  plain: "",
} as const;
export type Style = keyof typeof STYLES;

/** `text` in `style` when `on`, else as it is. */
export function paint(text: string, style: Style, on: boolean): string {
  const code = STYLES[style];
  return on && code !== "" && text !== "" ? `\u001b[${code}m${text}\u001b[0m` : text;
}
