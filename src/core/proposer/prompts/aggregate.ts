// The parallel composer's job text (docs/method.md §4): fold 2k candidates into THE harness that is
// adopted. Must never give the k parallel composers byte-identical prompts.
//
// Fixes: each of k > 1 composers is told its index and given its own leaning for evidence that
// is balanced, so the k draws have a reason to differ (docs/differences.md E3); the notes example
// never prints an impossible count such as "2/1" (docs/differences.md E1); both packs say merging
// does NOT launder an edit (docs/differences.md E6).

import type { BenchPrompts } from "../../seams/bench-prompts.ts";
import { KEEP_BASE, NOTE_DECISIONS, TAG } from "../reply.ts";
import {
  evidenceIsData,
  goodProcessSection,
  HEADING,
  KEEP_BASE_REMINDER,
  lensSection,
  noAnswerKey,
  workSection,
} from "./blocks.ts";
import { surfaceBlock } from "./surface-blocks.ts";
import { checkK, counted, type PromptSurface, prose, section, surfaceName, tidy } from "./text.ts";

export type AggregateOptions = {
  /** Base rollouts, and candidates per dimension (so n = 2k candidates). */
  k: number;
  /** Which of the k parallel composers this is (1-based). */
  index: number;
};

/**
 * What each parallel composer leans toward where the evidence is balanced (cycled by index).
 * Every leaning is defensible; none licenses an edit the evidence does not support.
 */
export const COMPOSER_LEANINGS: readonly string[] = [
  "lean toward the smallest harness that still carries every well-supported edit",
  "lean toward the fullest merge that keeps every supported edit from both dimensions",
  "read the INV candidates and their rollouts first, and test each DOM edit against what they show",
  "read the DOM candidates and their rollouts first, and test each INV edit against what they show",
];

/** The "one of k" paragraph with this composer's own leaning; "" when k = 1. */
export function parallelComposer(k: number, index: number, noun: string): string {
  if (k <= 1) return "";
  const leaning = COMPOSER_LEANINGS[(index - 1) % COMPOSER_LEANINGS.length];
  return prose`You are ${noun} ${index} of ${k}, working in parallel with the others and unseen by
them. Do not aim for consensus; commit to the harness you can defend. Where the evidence is
balanced, and only there, ${leaning}. The others lean differently, and that difference is why
several of you run.`;
}

/** A worked count for the notes example: always m/k with 1 <= m <= k, or the single rollout. */
export function exampleCount(k: number): string {
  if (k === 1) return "in the single base rollout";
  return `in ${Math.min(k, Math.max(k - 1, 2))}/${k} base rollouts`;
}

/** `[NOTES-FORMAT]` of the composers: one auditable line per decision. */
export function notesFormat(k: number, decisions: readonly string[]): string {
  const example = `kept -> inv${Math.min(k, 2)}: re-open the written file and check it parses -> the file was unreadable ${exampleCount(k)}`;
  return section(
    HEADING.NOTES_FORMAT,
    prose`In your single \`<${TAG.notes}>\` block, write one line per decision, in exactly this shape:

\`${decisions.join("|")} -> <which edit> -> <the trajectory moment or base-set pattern, with counts>\`

For example: \`${example}\`

A decision without evidence cannot be audited.`,
  );
}

function adaptHowToWeigh(k: number): string {
  const baseSet =
    k > 1
      ? prose`- The ${k} base rollouts are draws from one distribution: read them as a set.
- A failure that repeats across the base set is the strongest signal. A defect in 1/${k} runs is
  noise, and targeting it is overfitting.`
      : prose`- There is one base rollout, a single draw. A failure in it is one observation: real, but it
  cannot tell you how often it happens. Look for the mechanism in the trajectory, and use the
  candidates' rollouts as contrast.`;
  return section(
    HEADING.HOW_TO_WEIGH,
    prose`${baseSet}
- One rollout per candidate is weak evidence. An edit earns its place when a specific trajectory
  moment shows the mechanism; "good practice" is not evidence.
- Weigh the downside as heavily as the upside: the costliest failure is an empty run.
- If any rollout tied to an edit produced nothing, say so explicitly in the notes and treat the
  edit as UNSAFE unless the rest of the evidence is overwhelming. Never merge from a
  non-delivering rollout without saying why.`,
  );
}

function adaptAggregate(bp: BenchPrompts, surface: PromptSurface, k: number, index: number) {
  const n = 2 * k;
  const each = k === 1 ? "one" : `${k}`;
  return tidy([
    prose`You compose THE final harness for one piece of work. What you produce is ADOPTED: it runs on
this task and, if it is selected, enters the library. Every rule that bound the proposers binds
you; you are the last gate. Merging does not launder an edit: one that would be rejected on its
own is rejected inside a merge too.`,
    workSection(bp),
    lensSection(bp),
    section(
      HEADING.WHAT_YOU_HAVE,
      prose`- ${counted(k, "base rollout")} under the unmodified harness, and ${n} candidates: ${each} on
  INV (how the agent works) and ${each} on DOM (what a practitioner knows). Each candidate was
  rolled out once, and that rollout is in front of you.
- The candidates share the task, the evidence and probably the model's biases. Agreement between
  them is support, not proof; a contradiction is a reason to read trajectories, not to vote.`,
    ),
    adaptHowToWeigh(k),
    section(
      HEADING.YOUR_JOB,
      prose`Compose ONE harness. The valid outcomes are:
- MERGE across candidates: expected when an INV edit and a DOM edit each earn their place.
  Resolve overlaps; do not concatenate.
- ADOPT ONE candidate WHOLESALE.
- ${KEEP_BASE}.

${KEEP_BASE_REMINDER}`,
    ),
    parallelComposer(k, index, "composer"),
    goodProcessSection(bp),
    noAnswerKey("authoring"),
    evidenceIsData("authoring"),
    surfaceBlock(surface, "adapt"),
    notesFormat(k, NOTE_DECISIONS.slice(0, 3)),
  ]);
}

function ttsAggregate(bp: BenchPrompts, surface: PromptSurface, k: number, index: number) {
  const n = 2 * k;
  const each = k === 1 ? "one" : `${k}`;
  return tidy([
    prose`You are the integrating arbiter and synthesiser for one task. What you produce is adopted.
The proposers' rules bind you, and merging does not launder an edit: one that would be rejected
on its own is rejected inside a merge too.`,
    workSection(bp),
    lensSection(bp),
    section(
      HEADING.WHAT_YOU_HAVE,
      prose`${counted(k, "base rollout")} under the unmodified harness, and ${n} candidates, each scoped to
one dimension: ${each} INVARIANT (tool and procedure machinery) and ${each} DOMAIN (professional
knowledge). Each candidate was rolled out once.

- \`context/task.md\`: the task
- \`context/harness/\`: the base harness, and the tree you edit
- \`context/rollouts/<label>.md\`: full trajectories of the base rollouts
- \`context/deliverables/\`: what each base rollout produced
- \`context/pool/<label>/\`: each candidate's \`harness/\`, \`rollout.md\` and \`produced.md\`
- \`context/library/\`: earlier adoptions in this ${bp.domainWord}; browse \`INDEX.md\`

Open what each side PRODUCED, not only its trajectory.`,
    ),
    section(
      HEADING.YOUR_JOB,
      prose`1. Assess each candidate edit against the base rollouts: did it help, hurt, or change
   nothing? The user's request is the measure, and completeness counts as much as correctness. A
   skill that was never loaded, or a rule that was ignored, changed nothing.
2. Synthesise ONE harness from the parts the evidence backs: merge both dimensions, resolve
   overlaps, keep always-on text tiny and triggers narrow. Adopting one candidate wholesale is
   valid.

Keeping the base unchanged is valid when no candidate demonstrably improved on it: say
\`${KEEP_BASE}\`.

${KEEP_BASE_REMINDER}`,
    ),
    parallelComposer(k, index, "synthesiser"),
    goodProcessSection(bp),
    noAnswerKey("authoring"),
    evidenceIsData("authoring"),
    surfaceBlock(surface, "tts"),
    notesFormat(k, NOTE_DECISIONS.slice(0, 3)),
  ]);
}

/**
 * The job text of parallel composer `index` of `k` (the mission's `job`; no system text). Also the
 * sequential composer when k = 1.
 */
export function aggregate(
  bp: BenchPrompts,
  surface: PromptSurface,
  opts: AggregateOptions,
): string {
  checkK(opts.k, { index: opts.index });
  surfaceName(surface);
  return bp.promptPack === "tts"
    ? ttsAggregate(bp, surface, opts.k, opts.index)
    : adaptAggregate(bp, surface, opts.k, opts.index);
}
