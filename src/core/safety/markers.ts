// The grader-verdict markers: strings only a grader's own output carries, which nothing shown to
// a model may contain, and how a message names one without carrying it.

/** Strings that only a grader's own output carries (the last three with their JSON quotes). */
export const GRADER_VERDICT_MARKERS: readonly string[] = [
  "deterministic_eval_summary",
  "deterministic_eval_result",
  "judge_scope_and_deterministic_status",
  "Judge findings on the rendered result",
  '"passed_count"',
  '"pass_rate"',
  '"test_pass_rate"',
];

/**
 * A marker named so a reader can tell which one it is, without the message carrying the marker
 * itself: a middle dot after its first letter (`p·ass_rate`). A message quoting the marker, or the
 * text around it, would trip again wherever it is copied (a stage error, the next stage's
 * decisions), so no message quotes either (docs/differences.md X10).
 */
export function maskMarker(marker: string): string {
  const quoted = marker.startsWith('"');
  const bare = quoted ? marker.slice(1, -1) : marker;
  const masked = `${bare.slice(0, 1)}·${bare.slice(1)}`;
  return quoted ? `the JSON key "${masked}"` : `"${masked}"`;
}
