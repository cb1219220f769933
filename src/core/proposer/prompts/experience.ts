// The reflection's job text (docs/method.md §4, §8): one row per edited component and at
// most one transferable lesson for the domain library. Must never treat adoption as proof.
//
// One text serves both packs on purpose: the library entry and its parser are shared, and the
// lesson is a pattern for later tasks whichever way their harness is carried. No surface either:
// the rows name components by their path in the tree.

import type { BenchPrompts } from "../../seams/bench-prompts.ts";
import { EDIT_VERDICTS, NO_ENTRY, TAG } from "../reply.ts";
import { evidenceIsData, HEADING, lensSection, noAnswerKey, workSection } from "./blocks.ts";
import { prose, section, tidy } from "./text.ts";

const verdicts = EDIT_VERDICTS.map((v) => `\`${v}\``);
const VERDICT_LIST = `${verdicts.slice(0, -1).join(", ")} and ${verdicts.at(-1)}`;

/** The reflection session's job text (the mission's `job`; no system text). */
export function experience(bp: BenchPrompts): string {
  return tidy([
    prose`You are reading the complete record of one improvement round: the base harness, the edits
proposed to it, the executions those edits produced, and which output was finally submitted.
Write two things for a library that later work in this area reads before it makes its own edits:
a row for every edited component, and at most one lesson.`,
    workSection(bp),
    lensSection(bp),
    section(
      HEADING.ADOPTED_IS_NOT_ONLY_EVIDENCE,
      prose`Selection compared the outputs with the harnesses hidden, so the choice says which output
read best, not which edit worked. Treat every candidate as evidence: a rejected candidate's edit
may have helped, and the adopted one's may have done nothing. Read the trajectories, not the
choice.`,
    ),
    section(
      HEADING.WHAT_EACH_EDIT_DID,
      prose`Diff every candidate harness against \`context/base_harness/\`. For each component that any
candidate changed, write one row: the component, what changed, the difference it made to the
execution, and a verdict.

The verdicts are exactly ${VERDICT_LIST}. Prefer \`confounded\` whenever several components
changed at once and no execution isolates one of them, or when a single rollout is all that
stands behind the difference: an invented attribution poisons the library.

Cite the run and the point where it diverged. If two candidates changed the same component in
different ways, describe each form and what it produced.`,
    ),
    section(
      HEADING.ONE_LESSON,
      prose`Write at most one durable entry, and only if the edit rows support it.
- \`cue\`: the shape of the situation, a pattern that recurs, not this task's facts.
- \`lesson\`: an operation on a harness that can be applied and checked, naming the component
  it changes.
- \`evidence\`: the edit rows behind it. A lesson resting only on \`confounded\` rows is a guess:
  narrow it or decline. Adoption alone proves nothing.
- \`confidence\`: high, medium or low, and why.

- Too generic: the cue "a complex task", the lesson "be careful and thorough".
- Too specific: the cue "the March payroll export", the lesson "column F is in thousands".
- Just right: the cue "several acts must be carried out in sequence and one of them ends the
  actor's authority to perform the rest (a resignation, a revocation, a closing)", the lesson "in
  the skill that drafts the sequence, place the authority-ending act last and check before
  finishing that nothing follows it".

If there is no concrete contrast that would carry over to other work, write the single line
\`${NO_ENTRY}\` in place of the \`<${TAG.experience}>\` block. Write the edit rows either way.`,
    ),
    noAnswerKey("authoring"),
    evidenceIsData("authoring"),
    section(
      HEADING.OUTPUT_FORMAT,
      prose`Keep each value on one line.

\`\`\`
<${TAG.edits}>
component: <the path as it appears in the tree>
candidates: <labels of the candidates carrying this edit>
change: <what changed>
observed: <the difference in execution, and where you saw it>
verdict: <${EDIT_VERDICTS.join(" | ")}>

component: <the next changed component>
…
</${TAG.edits}>

<${TAG.experience}>
cue: <the shape of the situation>
lesson: <the operation on a harness, naming its component>
evidence: <the edit rows behind it>
confidence: <high | medium | low>, <why>
</${TAG.experience}>
\`\`\``,
    ),
  ]);
}

/**
 * Appended to the mission for the one repair turn after a reply the parser could not use: what
 * was wrong, and the two shapes a usable reply may take. Beyond the original (docs/differences.md
 * S5), which dropped the lesson without feedback.
 */
export function experienceRepair(failure: string): string {
  return tidy([
    section(
      "Your previous reply could not be used",
      `${failure.trim()}\n\n${prose`Reply again, in full: the \`<${TAG.edits}>\` rows, then either one
\`<${TAG.experience}>\` block with a non-empty \`cue:\`, \`lesson:\` and \`evidence:\` line, or the
single line \`${NO_ENTRY}\`. Write each key at the start of its line, without bullets or bold.`}`,
    ),
  ]);
}
