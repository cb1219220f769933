// How a message names a grader-verdict marker (src/core/safety/markers.ts) without carrying it.
// Here, in lib, so the event descriptions and the live view can use it too.

/**
 * A marker named so a reader can tell which one it is, without the message carrying the marker
 * itself: a middle dot after its first letter (`p·ass_rate`). A message quoting the marker, or the
 * text around it, would trip again wherever it is copied (a stage error, the next stage's
 * decisions), so no message quotes either (docs/differences.md X10).
 */
export function maskMarker(marker: string): string {
  const bare = unquoted(marker);
  return bare !== marker ? `the JSON key "${dotted(bare)}"` : `"${dotted(bare)}"`;
}

/** A marker without the JSON quotes it may carry (`"pass_rate"` → `pass_rate`). */
export function unquoted(marker: string): string {
  return marker.startsWith('"') ? marker.slice(1, -1) : marker;
}

/** `text` with a middle dot after its first character: no longer the string it was. */
export function dotted(text: string): string {
  return `${text.slice(0, 1)}·${text.slice(1)}`;
}
