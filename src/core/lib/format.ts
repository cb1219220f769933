// How numbers, times and text read in every front end (the live view, the browser, `runs`,
// `show`, `report`, the headless printer): money, durations, instants, one-line text, and terminal
// column widths. Pure functions of their arguments; nothing here decides anything about a run.

/** What a table cell shows for "no value" (never a made-up 0). */
export const NONE = "—";

/**
 * US dollars for people: `$0` for nothing, 4 decimals below a cent (so small spends stay
 * visible), else 2. `precise` always gives 4 decimals (event lines, cost columns).
 */
export function formatUsd(usd: number, opts: { precise?: boolean } = {}): string {
  if (opts.precise) return `$${usd.toFixed(4)}`;
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/**
 * 42 → "42s", 75 → "1m 15s", 3725 → "1h 02m", 90000 → "1d 01h"; null → "-". `compact` drops the
 * space ("1m15s"), for the live view's narrow header.
 */
export function formatDuration(seconds: number | null, opts: { compact?: boolean } = {}): string {
  if (seconds === null) return "-";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const two = (n: number) => String(n).padStart(2, "0");
  const sp = opts.compact ? "" : " ";
  if (s < 3600) return `${Math.floor(s / 60)}m${sp}${two(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${sp}${two(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d${sp}${two(Math.floor((s % 86_400) / 3600))}h`;
}

/** An ISO instant as "YYYY-MM-DD HH:MMZ" (UTC, so one store prints the same everywhere). */
export function formatWhen(iso: string | null): string {
  if (!iso) return "-";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}

/** A score with 3 decimals, or NONE. */
export function fixed3(x: number | null): string {
  return x === null ? NONE : x.toFixed(3);
}

/** A difference with 3 decimals and its sign (`+0.250`), or NONE. */
export function signed3(x: number | null): string {
  return x === null ? NONE : `${x > 0 ? "+" : ""}${x.toFixed(3)}`;
}

/**
 * A 95% interval as "[low, high]" (NONE when it has no bounds, below two values). `signed` for
 * differences; `compact` drops the space so a whitespace-split table reads it as one cell.
 */
export function interval(
  sp: { low: number | null; high: number | null },
  opts: { signed?: boolean; compact?: boolean } = {},
): string {
  if (sp.low === null || sp.high === null) return NONE;
  const f = opts.signed ? signed3 : fixed3;
  return `[${f(sp.low)},${opts.compact ? "" : " "}${f(sp.high)}]`;
}

/** A mean's spread as the report prints it: sd, and a 95% interval (its bounds null below two values). */
export type SpreadText = { sd: number | null; low: number | null; high: number | null };

/** ", sd 0.500, 95% CI [-0.045, +1.546]" after a paired mean (", 95% CI —" below two tasks). */
export function spreadSuffix(sp: SpreadText): string {
  return `${sp.sd === null ? "" : `, sd ${fixed3(sp.sd)}`}, 95% CI ${interval(sp, { signed: true })}`;
}

/** " (sd 0.250, 95% CI [0.100, 0.900])" for a base harness mean; nothing below two tasks. */
export function baseSpread(sp: SpreadText): string {
  return sp.sd === null ? "" : ` (sd ${fixed3(sp.sd)}, 95% CI ${interval(sp)})`;
}

/**
 * Terminal columns a text takes (wide CJK characters count 2, emoji 2, combining marks 0, ANSI
 * escapes 0): Bun's own measure, the same figures the string-width package gave.
 */
export function textWidth(text: string): number {
  return Bun.stringWidth(text);
}

/** Cuts a text to at most `width` terminal columns, marking a cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  if (width <= 0) return "";
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = textWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** Pads a text with spaces to `width` terminal columns. */
export function pad(text: string, width: number, align: "left" | "right" = "left"): string {
  const fill = " ".repeat(Math.max(0, width - textWidth(text)));
  return align === "right" ? fill + text : text + fill;
}

/** A text on one line: every run of white space (newlines too) one space, the ends trimmed. */
export function squish(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The first line of a text, trimmed and cut to `max` columns. */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const line = (text.split("\n")[0] ?? "").trim();
  return Number.isFinite(max) ? truncate(line, max) : line;
}

/** Each id's shortest prefix (at least 8 characters) that no other id shares: a handle for lists on narrow screens that every command accepts. */
export function uniquePrefixes(ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of ids) {
    let n = Math.min(8, id.length);
    while (n < id.length && ids.some((o) => o !== id && o.startsWith(id.slice(0, n)))) n++;
    out.set(id, id.slice(0, n));
  }
  return out;
}

/**
 * Whether output may be coloured: NO_COLOR set to anything non-empty says never
 * (https://no-color.org); FORCE_COLOR set (not "0" or "false") says yes even without a terminal
 * (https://force-color.org), as for output piped into `less -R`; else only on a terminal.
 */
export function colorWanted(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR?.trim().toLowerCase();
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  return isTTY;
}
