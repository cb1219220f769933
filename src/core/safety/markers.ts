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

export { dotted, maskMarker, unquoted } from "../lib/marker-mask.ts";
