// Scoring a WorkBuddy rollout (docs/benchmarks.md "WorkBuddy: scoring"): the task's own verifier
// already ran in the trial and wrote `verifier/score.json`; the judge only reads it. The first of
// reward, overall, test_pass_rate and tests_passed/tests_total that is present decides; a value
// outside [0, 1], a torn file or none at all leaves the rollout ungraded (null), never a zero.
// Only src/judge reaches this module.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Scorer } from "../../core/seams/benchmark.ts";
import { SCORE_FILE } from "./wb-trials.ts";

export type WbScore = {
  score: number;
  /** Which field decided. */
  source: "reward" | "overall" | "test_pass_rate" | "tests_passed/tests_total";
  /**
   * All-pass as the checkout's metrics count it (scorer/metrics.py: a full verifier score, ≥ 1.0),
   * as the one criterion the report's all-pass rate reads: 1 of 1 when full, else 0 of 1.
   */
  passed: 0 | 1;
  total: 1;
  all_pass: boolean;
  /** The verifier's own test counts, when it gave them (diagnostics only, as in metrics.py). */
  tests_passed: number | null;
  tests_total: number | null;
};

/** The score in a verifier's score.json text, or why there is none. */
export function readScore(text: string): WbScore | { problem: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { problem: "is not JSON" };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    return { problem: "is not a JSON object" };
  }
  const o = v as Record<string, unknown>;
  let score: unknown;
  let source: WbScore["source"];
  if (o.reward !== undefined) [score, source] = [o.reward, "reward"];
  else if (o.overall !== undefined) [score, source] = [o.overall, "overall"];
  else if (o.test_pass_rate !== undefined) [score, source] = [o.test_pass_rate, "test_pass_rate"];
  else if (o.tests_passed !== undefined && o.tests_total !== undefined) {
    const passed = o.tests_passed;
    const total = o.tests_total;
    if (typeof passed !== "number" || typeof total !== "number" || total <= 0) {
      return { problem: "has tests_passed/tests_total that are not counts with a total above 0" };
    }
    [score, source] = [passed / total, "tests_passed/tests_total"];
  } else {
    return { problem: "has none of reward, overall, test_pass_rate or tests_passed/tests_total" };
  }
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) {
    return { problem: `has ${source} ${JSON.stringify(score)}, not a number in [0, 1]` };
  }
  const count = (x: unknown) => (typeof x === "number" && Number.isInteger(x) && x >= 0 ? x : null);
  const full = score >= 1;
  return {
    score,
    source,
    passed: full ? 1 : 0,
    total: 1,
    all_pass: full,
    tests_passed: count(o.tests_passed),
    tests_total: count(o.tests_total),
  };
}

export class WorkBuddyScorer implements Scorer {
  /** Why the last rollouts were left ungraded, by run folder (for the judge's log). */
  readonly problems = new Map<string, string>();

  async score(runDir: string, _taskId: string): Promise<Record<string, unknown> | null> {
    let text: string;
    try {
      text = readFileSync(join(runDir, SCORE_FILE), "utf8");
    } catch {
      this.problems.set(runDir, `${SCORE_FILE} is missing: the verifier did not finish`);
      return null;
    }
    const got = readScore(text);
    if ("problem" in got) {
      this.problems.set(runDir, `${SCORE_FILE} ${got.problem}`);
      return null;
    }
    return { ...got };
  }
}
