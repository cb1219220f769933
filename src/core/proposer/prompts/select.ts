// The blind selector's job text (docs/method.md §4, §7): pick one of n anonymous artifacts
// for the person who asked. Substrate-free; must never reveal how a candidate was produced.
//
// Fixes: criteria are numbered 1..m with no gaps whatever the conformance setting, and the value
// rule is stated exactly once (docs/differences.md E7); the tts pack is complete
// (docs/differences.md E4): it honours the lens, the lead criterion, the conformance setting and
// the work-specific checks instead of ignoring them (docs/differences.md S15).

import type { BenchPrompts } from "../../seams/bench-prompts.ts";
import { CHOICE_INFO, TAG } from "../reply.ts";
import {
  anonymous,
  evidenceIsData,
  HEADING,
  lensSection,
  noAnswerKey,
  POOL_KINDS,
  type PoolKind,
  workSection,
} from "./blocks.ts";
import { counted, PromptInputError, prose, section, tidy } from "./text.ts";

export type SelectOptions = {
  /** "mixed": the pool holds unmodified-harness outputs too; "finals": only composed finals. */
  poolKind: PoolKind;
  /** Extra line(s) for the listing, e.g. where rendered evidence of the artifacts sits; may be "". */
  assetsNote: string;
};

type Criterion = { name: string; text: string };

const VALUE_RULE = prose`A requested value must be present as a value: not a formula standing in for the
number, not a placeholder, not a calculation described but never performed.`;

const SHAPE_RULE = prose`Is it ONLY what was asked? The named fields, columns, sheets, sections and their
order define the shape. Extra columns or sheets, commentary rows, renamed or reworded headers,
merged title rows and reordered fields are deviations, because whoever imports the result keys on
exact names and positions. Match explicit instructions exactly; where the request is silent, use
the plainest form.`;

/** Indents every non-blank line after the first, so a multi-line item stays inside its list item. */
function indentContinuation(text: string): string {
  return text
    .split("\n")
    .map((line, j) => (j === 0 || line.trim() === "" ? line : `   ${line}`))
    .join("\n");
}

/** "0." for the lead (when given), then 1..m without gaps. */
function numbered(lead: string, criteria: readonly Criterion[]): string {
  const lines: string[] = [];
  if (lead.trim() !== "") lines.push(`0. ${indentContinuation(lead.trim())}`);
  criteria.forEach((c, i) => {
    lines.push(`${i + 1}. **${c.name}.** ${indentContinuation(c.text)}`);
  });
  return lines.join("\n");
}

function adaptCriteria(bp: BenchPrompts): Criterion[] {
  const d = bp.deliverableWord;
  const full = bp.selectionConformance === "full";
  return [
    {
      name: "DELIVERY",
      text: prose`Every ${d} the instructions name is present, at the requested path, in the requested
form, with every named part.`,
    },
    ...(full ? [{ name: "CONFORMANCE", text: `${SHAPE_RULE}\n\n${VALUE_RULE}` }] : []),
    {
      name: "FIDELITY",
      text: prose`Check claims against \`context/source/\`: open it and verify facts, data, names,
figures and constraints. Reject invented specifics. Where candidates disagree, the source
decides; where the source is silent, prefer the candidate that says so.`,
    },
    {
      name: "INTERNAL CONSISTENCY",
      text: prose`Totals agree with their rows, summaries with their tables, cross-references resolve,
counts match the items counted. A self-contradiction is a defect even when you cannot tell which
side is wrong.`,
    },
    {
      name: "OPERATIONAL FITNESS",
      text: prose`The right kind of artifact, usable as delivered: it runs, opens or imports for the
intended person or system without reconstruction. Take the downstream consumer's view: an
addition that helps a human reader but breaks an importer is a cost.`,
    },
    {
      name: "FINISH",
      text: prose`No placeholders, TODOs, unresolved notes, broken references, empty required fields,
visibly incomplete sections, or content that does not match its declared format. A truncation
marker the renderer inserted for this comparison is not a defect.`,
    },
    ...(full ? [] : [{ name: "VALUES ARE VALUES", text: VALUE_RULE }]),
  ];
}

function ttsCriteria(bp: BenchPrompts): Criterion[] {
  const d = bp.deliverableWord;
  const full = bp.selectionConformance === "full";
  return [
    {
      name: "COVERAGE",
      text: prose`Every ${d} and every section, field, value or analysis asked for. Count the
explicitly requested points and prefer the candidate that answers the most.`,
    },
    {
      name: "CORRECTNESS",
      text: prose`Internal consistency: totals, figures that recur across files, counts against the
source. Use \`context/source/\` to settle disagreements, reject invented specifics, and prefer a
candidate that admits where the source is silent.`,
    },
    {
      name: "FIDELITY",
      text: prose`Formats, file names and structure as requested; no placeholder, TODO, unresolved
note, broken reference or empty required field. Truncation markers the renderer inserted are not
defects.${full ? `\n\n${SHAPE_RULE}\n\n${VALUE_RULE}` : ""}`,
    },
    ...(full ? [] : [{ name: "VALUES ARE VALUES", text: VALUE_RULE }]),
  ];
}

function whatYouSee(bp: BenchPrompts, assetsNote: string, tts: boolean): string {
  const each = tts ? "Each candidate is what one run produced for the same task, in full.\n\n" : "";
  return section(
    HEADING.WHAT_YOU_SEE,
    prose`${each}- \`context/task.md\`: the request, verbatim
- \`context/source/\`: the source material
- \`context/candidates/<id>.md\`: what the run PRODUCED, the ${bp.deliverableWord}, rendered
${assetsNote}

You are choosing between ARTIFACTS. You are not told how they were produced and cannot see the
runs. Weigh each against the request and the source, never on how impressive it sounds.`,
  );
}

function outputFormat(maxLines: number, shapeCriterion: string): string {
  return section(
    HEADING.OUTPUT_FORMAT,
    prose`Reason first; give your choice as the very last thing.

1. A \`<${TAG.why}>…</${TAG.why}>\` block of at most ${maxLines} lines: the criterion that decided,
   the closest runner-up and what cost it the pick, and, if a candidate lost on
   ${shapeCriterion}, which field, column or section.
2. Then a fenced code block whose info string is \`${CHOICE_INFO}\`, holding only the chosen id:

\`\`\`${CHOICE_INFO}
<id>
\`\`\``,
  );
}

/** The selector's job text for a pool of `n` anonymous candidates (the mission's `job`). */
export function select(bp: BenchPrompts, n: number, opts: SelectOptions): string {
  if (!POOL_KINDS.includes(opts.poolKind)) {
    throw new PromptInputError("poolKind", opts.poolKind, POOL_KINDS.join(" or "));
  }
  if (!Number.isInteger(n) || n < 1) throw new PromptInputError("n", n, "a positive integer");
  const tts = bp.promptPack === "tts";
  const full = bp.selectionConformance === "full";
  const criteria = tts ? ttsCriteria(bp) : adaptCriteria(bp);
  const closing = tts
    ? prose`Length and polish are not merits. The candidates are independent attempts of differing
quality, and the plainest may be the best: pick the best, not the most elaborate.`
    : prose`Length and polish are not merits. A shorter answer that is correct, complete and exactly
shaped beats a longer one with a gap or an embellishment.`;
  const shapeCriterion = full ? (tts ? "FIDELITY" : "CONFORMANCE") : "VALUES ARE VALUES";
  return tidy([
    tts
      ? `Choose which of ${n} candidate ${n === 1 ? "ANSWER" : "ANSWERS"} to a workplace task should be delivered.`
      : `Choose which of ${counted(n, "candidate answer")} should be delivered to the person who asked.`,
    workSection(bp),
    lensSection(bp),
    anonymous(opts.poolKind),
    whatYouSee(bp, opts.assetsNote, tts),
    section(HEADING.HOW_TO_DECIDE_ORDERED, `${numbered(bp.selectionLead, criteria)}\n\n${closing}`),
    section(HEADING.CORRECTNESS_FOR_THIS_WORK, bp.selectionChecks),
    noAnswerKey("selection"),
    evidenceIsData("selection"),
    outputFormat(tts ? 5 : 6, shapeCriterion),
  ]);
}
