// The proposer's dimension blocks (INV: how the agent works; DOM: what a practitioner knows), the
// two GENERALIZE blocks and tts's HOW-TO-READ (docs/method.md §4). Filled from BenchPrompts only.
//
// The packs disagree on purpose about task facts (docs/differences.md E5), because their harnesses
// serve different ends. adapt: the harness runs on THIS task and enters the library as an example
// that a later task copies and re-verifies, so verified workspace facts are encoded, labelled
// "In this workspace", inside the component that uses them, and never phrased as durable memory
// (which is what adapt DOM forbids). tts: the harness is carried to other tasks as it stands, so
// task specifics stay in the notes. Each pack's own text is consistent with itself.

import type { BenchPrompts } from "../../seams/bench-prompts.ts";
import { generalizeAdaptTitle, HEADING } from "./blocks.ts";
import { loopLever, triggerSentence } from "./surface-blocks.ts";
import { type PromptSurface, prose, section } from "./text.ts";

export type Dim = "INV" | "DOM";
export const DIMS: readonly Dim[] = ["INV", "DOM"];

/** The benchmark's levers for this dimension, stripped; "" when none. */
function levers(bp: BenchPrompts, dim: Dim): string {
  return (dim === "INV" ? bp.invLevers : bp.domLevers).trim();
}

/** adapt `[DIM-INV]` or `[DIM-DOM]`, with the surface's lever and trigger phrases. */
export function adaptDimension(bp: BenchPrompts, dim: Dim, surface: PromptSurface): string {
  const deliverable = bp.deliverableWord;
  if (dim === "INV") {
    return section(
      HEADING.DIM_INV,
      prose`You own procedure, tool use and completion, not subject matter. Trace the workflow, fix the
earliest divergence you can observe, and map each failure to the cheapest component that fixes it:
- TOOL ERROR: make the agent tell bad input apart from a timeout, a missing capability, a
  permission problem and output it never read. Give one bounded fallback with a stop condition;
  never blind repetition.
- MECHANICAL REPETITION: a \`scripts/<name>.py\` with clear inputs, clear outputs and a stated
  behaviour on failure.
- TRIGGERED WORKFLOW: an on-demand skill whose trigger is named in always-on text and whose
  helpers travel with it.
- IGNORED INVARIANT: only repeated evidence that clear prose gets skipped justifies the defensive
  loop lever: ${loopLever(surface, deliverable)}. It must never block a valid completion.
- ORDINARY SEQUENCING: short always-on guidance. No code for a one-off mistake, and no
  automating of what needs professional discretion.

Define what "enough evidence" means before the agent stops gathering, reserve room for every
artifact, and have the agent re-open or mechanically check the ${deliverable}: a successful write
call does not prove the file is usable.

${levers(bp, "INV")}

Stay inside your dimension: do not add professional rules, required domain sections or facts of
the matter. The other dimension's candidate owns those.`,
    );
  }
  return section(
    HEADING.DIM_DOM,
    prose`You own the practitioner's model of the work: the ${deliverable}, its audience and the
decision it serves, the sources that control it, its required structure, the relationships that
must hold inside it, and what an expert would leave out. Turn these into rules the agent can
check:
- ANALYTIC MOVE: name the operation (compare, reconcile, calculate, classify, trace, draft,
  explain), its inputs and its result.
- ARTIFACT CONTRACT: the required parts, how they depend on each other, the consistency checks
  between them.
- DECISION RULE: the trigger, the evidence that supports it, the conflicts to resolve, and the
  uncertainty to keep explicit.
- ENCODING: choose the form on purpose. A skill is the default home for triggered domain
  knowledge (what an instrument or document type requires, its expected anatomy, the checks for
  each kind of work): it costs nothing until used, and the next task in the ${bp.domainWord} can
  reuse it. ${triggerSentence(surface)} Always-on memory is only for short universal facts (add
  one, cut one). Never store this matter's facts as durable memory.

${levers(bp, "DOM")}

Two hard rules. Never invent an authority, identifier, standard or citation: point to a source
the agent may use. And state knowledge the agent can apply and check ("before finishing, confirm
that X covers A, B and C"), not background reading.

The facts of this matter live in the supplied material: say where to find and reconcile them.
Write one down only once it is verified, anchored to this workspace as described below; never
presume it.

Stay inside your dimension: do not diagnose commands, retries, reading order, output paths,
budgeting, scripts or hooks. The other dimension's candidate owns procedure.`,
  );
}

/** tts `[DIM-INVARIANT]` or `[DIM-DOMAIN]`. */
export function ttsDimension(bp: BenchPrompts, dim: Dim): string {
  const domain = bp.domainWord;
  const deliverable = bp.deliverableWord;
  if (dim === "INV") {
    return section(
      HEADING.DIM_INVARIANT,
      prose`You own the machinery: tool guidance, \`scripts/*.py\`, \`sub_agents/*/AGENT.md\`, the
tool-loop lever, and SHORT imperative always-on rules that hold for essentially every task in the
${domain} (output discipline, the order of verification, format mechanics, budget, finishing).

Do not write domain facts, situation knowledge or domain skills. The test: if an edit stops
making sense when the subject changes, it belongs to the other proposer.

Map each failure to the cheapest mechanism:
- repeated fumbles with a format or a library: a note in the tool guidance, or a small script;
- a step skipped under pressure: ONE imperative always-on line (it competes with the
  ${deliverable}, so add one and cut one);
- a bounded sub-task that flooded the context for a small result: a standalone subagent;
- a check skipped even when the agent was told, or a deterministic transform of tool output: the
  tool-loop lever (see the surface table).

${levers(bp, "INV")}`,
    );
  }
  return section(
    HEADING.DIM_DOMAIN,
    prose`You own knowledge: durable always-on facts that hold for essentially every task in the
${domain}, and skills. Every skill needs a trigger line in always-on text that names its
situation precisely and narrowly.

Do not add generic procedure, tool guidance, scripts, subagents or hooks. The test: if an edit
would help just as much on a task from a completely different profession, it belongs to the
other proposer.

A skill earns its place when it:
- encodes mechanics: how to parse this kind of source, how to reconcile records that disagree,
  what a complete ${deliverable} contains, what to verify;
- is grounded: only what trajectories or workspace documents establish, never a formula,
  standard, rate or format rule recalled from memory;
- never presumes the ${deliverable}, the scope or the question;
- has a trigger that is a situation, not a topic: "when two sources give different figures for
  the same period", not "finance".

${levers(bp, "DOM")}`,
  );
}

/** adapt `[GENERALIZE-ADAPT]`: encode verified workspace facts; shape procedure for the domain. */
export function generalizeAdapt(bp: BenchPrompts): string {
  const domain = bp.domainWord;
  return section(
    generalizeAdaptTitle(domain),
    prose`The harness runs on THIS task. Verified facts about this workspace are the most valuable thing
you can encode: the exact join between two files' key columns, which entries have no
counterpart, the units of a field, which of two look-alike values satisfies a requirement. Write
the fact itself, anchored as "In this workspace, …", not a procedure for rediscovering it. A
guessed fact is worse than none. Put each fact in the component that uses it (the skill, the
script, the procedure step), labelled as a fact of this workspace; never phrase it as a durable
truth in long-term memory, which holds only what is true across the ${domain}.

Structure and procedure, by contrast, are written for the ${domain}: the adopted harness goes
into this ${domain}'s library as an example for later work. A procedure that would be wrong for
another task in the ${domain} is too narrow.

| kind | example |
|---|---|
| workspace fact | In this workspace, \`roles.csv\` maps each role to a position code; the role "field lead" has none. |
| procedure | Reconcile names across files before joining them, and list whatever is left unmatched. |
| too generic | Be thorough. |

\`context/library/\` holds finished harnesses from earlier tasks. They are examples: not part of
the harness you edit, and not on disk when the agent runs. To reuse a component, copy it into
\`context/harness/\` and re-verify every workspace fact it states. A skill that calls a library
path without copying the file fails validation.

A named component (skill, script, subagent) beats prose.`,
  );
}

/** tts `[GENERALIZE-TTS]`: the harness travels to other tasks; task specifics stay in the notes. */
export function generalizeTts(bp: BenchPrompts): string {
  const domain = bp.domainWord;
  return section(
    HEADING.GENERALIZE_TTS,
    prose`This harness is carried to OTHER tasks in the ${domain}. Encode procedure that will be reused,
not the specifics of this task. Findings specific to this task belong in your notes, not in the
harness: an edit that helps only this task is paid for on every other one.

\`context/library/\` holds, for every earlier task in this ${domain.toUpperCase()}, the full
adopted harness and a note on why it was adopted. Browse \`INDEX.md\` first. Reuse what fits,
but never presume this task's question. To reuse a component, copy it into \`context/harness/\`,
bring each skill's scripts along (otherwise validation throws the harness away), and re-verify
every claim it makes about a workspace.`,
  );
}

/** tts `[HOW-TO-READ]`; with a single base rollout there are no replicates to compare. */
export function howToRead(bp: BenchPrompts, k: number): string {
  const opening =
    k > 1
      ? prose`Variance between replicates is the signal. Where every run behaved the same, the harness
already determines that behaviour. Where they diverged (one run wrote a file the others did not,
one burned its budget on retries, one stopped before writing its ${bp.deliverableWord}), a
decision was left to chance: fix those.`
      : prose`There is a single base rollout, so there are no replicates to compare. Read it step by step
against the harness: every point where the agent had to settle something the harness left open
(which file to write, whether to retry, when to stop) is a decision left to chance: fix the ones
that mattered.`;
  return section(
    HEADING.HOW_TO_READ,
    prose`${opening}

Ask: was a required step left implicit? Was a procedure missing for a recurring mechanical
operation? Did tool errors repeat? Did a run exhaust its budget before writing?

Every change must trace to a rollout moment or a workspace document that you cite in the notes;
anything else is speculation.`,
  );
}
