// The proposer's job text, one per dimension (docs/method.md §4): INV edits how the agent works,
// DOM what a practitioner knows. Must never tell a sequential round it is an independent draw.
//
// Fixes: a sequential round (roundT set) is told it is round t of a sequential loop building on
// the previous checkpoint, never "candidate t of k drawn independently" (docs/differences.md E2);
// round 1 is told it edits the base harness. The tts pack keeps its own text in rounds too
// (docs/differences.md E4).

import type { BenchPrompts } from "../../seams/bench-prompts.ts";
import { KEEP_BASE } from "../reply.ts";
import {
  evidenceIsData,
  goodProcessSection,
  HEADING,
  lensSection,
  noAnswerKey,
  workSection,
} from "./blocks.ts";
import {
  adaptDimension,
  DIMS,
  type Dim,
  generalizeAdapt,
  generalizeTts,
  howToRead,
  ttsDimension,
} from "./dimension-blocks.ts";
import { surfaceBlock } from "./surface-blocks.ts";
import {
  checkK,
  PromptInputError,
  type PromptSurface,
  prose,
  section,
  surfaceName,
  tidy,
} from "./text.ts";

export type ProposeOptions = {
  /** Base rollouts per task, and candidates per dimension (parallel) or rounds (sequential). */
  k: number;
  /** Which of the k parallel candidates on this dimension (1-based). */
  index: number;
  /** Set in sequential mode with k > 1: the round, 1..k. */
  roundT?: number;
};

/** Where a sequential round stands: what it edits, what it sees, what comes after it. */
function roundParagraph(t: number, k: number): string {
  const after =
    t >= k
      ? `checkpoint ${t}, the loop's final harness`
      : `checkpoint ${t}, which the next round builds on`;
  const keep = `\`${KEEP_BASE}\` here means leaving the CURRENT harness in \`context/harness/\` unchanged`;
  if (t === 1) {
    return prose`This is round 1 of ${k} of a sequential loop, not one of several independent
candidates. You edit the base harness; no earlier round exists yet. You are this round's only
candidate on your dimension; the other dimension's candidate works alongside you, and a composer
then folds the two into ${after}. ${keep} (in round 1 that is the base harness).`;
  }
  const prev = t - 1;
  return prose`This is round ${t} of ${k} of a sequential loop, not one of several independent
candidates. You edit checkpoint ${prev}, the harness the previous round composed, which is what
\`context/harness/\` holds: not the original base harness. The evidence includes every earlier
round's candidates, checkpoints and rollouts; checkpoint ${prev}'s own rollout
(\`context/pool/c${prev}/rollout.md\`) shows how the current harness behaves. Build on what
earlier rounds established instead of starting over, and fix what the latest checkpoint still gets
wrong. You are this round's only candidate on your dimension; the other dimension's candidate
works alongside you, and a composer then folds the round into ${after}. ${keep}; never reset it to
the original base harness.`;
}

/** The sentence that places this proposer among its peers ("" for a lone parallel candidate). */
function whereText(opts: ProposeOptions): string {
  if (opts.roundT !== undefined) return roundParagraph(opts.roundT, opts.k);
  if (opts.k > 1) {
    return prose`You are candidate ${opts.index} of ${opts.k} on this dimension, drawn independently
from the same evidence and never shown the others.`;
  }
  return "";
}

function adaptHowToDecide(opts: ProposeOptions): string {
  return section(
    HEADING.HOW_TO_DECIDE,
    [
      prose`Every edit must trace to a trajectory moment: which run did what, and would your text have
changed it? No moment, no edit: anything else is speculation.`,
      prose`Prefer, in this order: (1) a DIVERGENCE between runs, the cheapest win, because the agent can
already do it and only needs telling; (2) a concrete failure repeated in every run; (3) a risk
that is visible but has not happened yet.`,
      "Do not fix what the runs got right, and do not restate what the harness already says clearly.",
      whereText(opts),
      prose`Do not hedge toward an average: commit to the most defensible version of your dimension. A
later stage compares and merges.`,
    ].join("\n\n"),
  );
}

function ttsWhere(opts: ProposeOptions): string {
  return [
    whereText(opts),
    prose`Commit to the single most defensible version of your dimension: a later stage compares and
merges.`,
  ].join("\n\n");
}

/**
 * The job text of one proposer session on `dim` (the mission's `job`; no system text). `index`
 * places a parallel candidate among k; `roundT` makes it round t of a sequential loop instead.
 */
export function propose(
  bp: BenchPrompts,
  dim: Dim,
  surface: PromptSurface,
  opts: ProposeOptions,
): string {
  if (!DIMS.includes(dim)) throw new PromptInputError("dim", dim, DIMS.join(" or "));
  checkK(opts.k, { index: opts.index, roundT: opts.roundT });
  surfaceName(surface);
  if (bp.promptPack === "tts") {
    const role = dim === "INV" ? "INVARIANT" : "DOMAIN";
    return tidy([
      prose`You are the ${role} harness editor for one task in this ${bp.domainWord}. You have the
current real task, the FULL rollouts of the agent under the current harness, the current harness
files, and this ${bp.domainWord}'s library of earlier adoptions.`,
      workSection(bp),
      lensSection(bp),
      ttsDimension(bp, dim),
      generalizeTts(bp),
      howToRead(bp, opts.k),
      ttsWhere(opts),
      goodProcessSection(bp),
      noAnswerKey("authoring"),
      evidenceIsData("authoring"),
      surfaceBlock(surface, "tts"),
    ]);
  }
  return tidy([
    prose`You are adapting the harness of an autonomous agent: the files that shape how it works. You
read what the agent actually did on the task below and change its harness so that it works
better.`,
    workSection(bp),
    lensSection(bp),
    adaptDimension(bp, dim, surface),
    generalizeAdapt(bp),
    adaptHowToDecide(opts),
    goodProcessSection(bp),
    noAnswerKey("authoring"),
    evidenceIsData("authoring"),
    surfaceBlock(surface, "adapt"),
  ]);
}
