// What went wrong inside a task that may still read `ok` (docs/method.md, Glossary: "problems"):
// a degraded mode, a selection that fell back, a reflection that failed (no lesson stored), dead
// rollouts. One function words them, so the live view, the headless lines, `show` and `runs`
// say the same thing with the same words.

import { MODE_NAMES, type ModeToken } from "./registry.ts";

export type ModeFacts = {
  mode: ModeToken;
  /** The mode finished but every stage fell back. */
  degraded: boolean;
  /** The selector failed and the first final stands in (not adopted, not stored). */
  selectionFellBack: boolean;
  /** The reflection ran and failed: no lesson was stored. */
  reflectionFailed: boolean;
};

export type TaskFacts = { modes: readonly ModeFacts[]; deadRollouts: number };

/** One short phrase per problem, in mode order; empty when nothing went wrong. */
export function taskProblems(facts: TaskFacts): string[] {
  const out: string[] = [];
  for (const m of facts.modes) {
    const name = MODE_NAMES[m.mode];
    if (m.degraded) out.push(`${name} degraded`);
    if (m.selectionFellBack) out.push(`${name} selection fell back`);
    if (m.reflectionFailed) out.push(`${name} reflection failed (no lesson stored)`);
  }
  if (facts.deadRollouts > 0) {
    out.push(`${facts.deadRollouts} dead rollout${facts.deadRollouts === 1 ? "" : "s"}`);
  }
  return out;
}
