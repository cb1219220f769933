// The legend `show` prints where statuses meet (issue 35): one sweep may read failed while a task
// reads partial and a mode degraded; the line says what each word present means, in the words of
// docs/method.md's glossary, and where the rest are (`harness2 help concepts`).

import type { SweepDetail } from "../../../store/views.ts";

const MEANINGS: Readonly<Record<string, string>> = {
  partial: "a task where not every mode succeeded",
  degraded: "a mode that finished but every stage fell back",
  failed: "ended in an error",
  interrupted: "stopped before its end; the same command resumes it",
  "fell back": "a stage that found no acceptable edit kept the tree it was editing",
  "kept base": "a stage whose accepted edit changed nothing",
};

/** "words: partial = …; degraded = … (all: harness2 help concepts)", or nothing when all is ok. */
export function legendLines(d: SweepDetail): string[] {
  const seen = new Set<string>([d.sweep.status]);
  for (const t of d.tasks) {
    seen.add(t.status);
    for (const m of t.modes) {
      seen.add(m.status);
      for (const s of m.stages) seen.add(s.status);
    }
  }
  const words = Object.keys(MEANINGS).filter((w) => seen.has(w));
  if (words.length === 0) return [];
  const said = words.map((w) => `${w} = ${MEANINGS[w]}`).join("; ");
  return [`words    ${said} (all: harness2 help concepts)`];
}
