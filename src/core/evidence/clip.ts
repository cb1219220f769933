// The clip rules of the shared trajectory grammar, the same for every executor's renderer: how a
// long text is cut and the markers that say so (the shape the mission explains to the improver).
// Pure text functions.

import { stringify } from "../lib/jsonl.ts";

/** The clipped-text marker (the shape core's mission explains to the improver). */
export function truncationMarker(dropped: number): string {
  return `…(+${dropped} chars — render truncation)`;
}

/**
 * The whole-trajectory marker. Fix docs/differences.md H18: over the cap, the original kept only
 * the beginning and dropped the end, where the deliverable is written; here the MIDDLE is cut and
 * this marker says so, with the number of dropped characters.
 */
export function middleTruncationMarker(dropped: number, maxChars: number): string {
  return `…(+${dropped} chars — render truncation: the middle of this trajectory was cut to fit ${maxChars} chars; its beginning and its end are kept)`;
}

/** Text of any value: strings as they are, other values as JSON, NUL characters removed. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  const text = typeof value === "string" ? value : stringify(value);
  return text.includes("\0") ? text.replaceAll("\0", "") : text;
}

/** The shared clip rule: text over `limit` keeps its first `limit` characters plus the marker. */
export function clipText(value: unknown, limit: number): string {
  const text = asText(value);
  if (limit <= 0 || text.length <= limit) return text;
  // Never split a surrogate pair.
  const keep = isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
  return `${text.slice(0, keep)}${truncationMarker(text.length - keep)}`;
}

export const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

export const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Keeps the beginning and the end of `text` within `maxChars` (plus the marker line), cutting at
 * line boundaries where one is near. Two thirds of the budget go to the beginning.
 */
export function capTrajectory(text: string, maxChars: number): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  let headEnd = Math.floor((maxChars * 2) / 3);
  const tailBudget = maxChars - headEnd;
  const nl = text.lastIndexOf("\n", headEnd);
  if (nl > headEnd * 0.8) headEnd = nl;
  let tailStart = text.length - tailBudget;
  const next = text.indexOf("\n", tailStart);
  if (next !== -1 && next - tailStart < tailBudget * 0.2) tailStart = next + 1;
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  const dropped = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n${middleTruncationMarker(dropped, maxChars)}\n${text.slice(tailStart)}`;
}
