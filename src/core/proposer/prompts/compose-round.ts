// The sequential composer's job text (docs/method.md §4): fold round t into checkpoint t, or into
// the final harness when t = k. Must never suggest that KEEP_BASE resets to the original harness.
//
// Beyond the original: both packs (tts uses its own surface text, docs/differences.md E4), the
// yardstick section and a notes format like the parallel composer's (with `restored` for an earlier
// round's edit brought back), and no talk of earlier rounds or a previous checkpoint in round 1.

import type { BenchPrompts } from "../../seams/bench-prompts.ts";
import { KEEP_BASE, NOTE_DECISIONS } from "../reply.ts";
import { notesFormat } from "./aggregate.ts";
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
import { checkK, type PromptSurface, prose, section, surfaceName, tidy } from "./text.ts";

export type ComposeRoundOptions = {
  /** The round being composed, 1..k. */
  t: number;
  /** Rounds in the loop (and base rollouts per task). */
  k: number;
};

/** The job text of the composer of round `t` of `k` (the mission's `job`; no system text). */
export function composeRound(
  bp: BenchPrompts,
  surface: PromptSurface,
  opts: ComposeRoundOptions,
): string {
  const { t, k } = opts;
  checkK(k, { t });
  surfaceName(surface);
  const final = t >= k;
  const [inv, dom] = bp.promptPack === "tts" ? ["INVARIANT", "DOMAIN"] : ["INV", "DOM"];
  const have =
    t === 1
      ? prose`- the base rollouts, shared by every round and never changing;
- this round's ${inv} and ${dom} candidates (\`inv1\`, \`dom1\`) with their rollouts.

This is the FIRST round: the evidence is only the base rollouts and this round's two candidates.`
      : prose`- the base rollouts, shared by every round and never changing;
- this round's ${inv} and ${dom} candidates (\`inv${t}\`, \`dom${t}\`) with their rollouts;
- every earlier round's candidates, checkpoints and trajectories.

The previous checkpoint's own rollout (\`c${t - 1}\`) is this round's on-policy evidence: it shows
how the harness you start from actually behaves.`;
  const outcomes =
    t === 1
      ? prose`- MERGE this round's two candidates;
- ADOPT the better candidate;
- ${KEEP_BASE}.`
      : prose`- MERGE across rounds, including a candidate rejected earlier if a later rollout now
  supports it;
- REPRODUCE an earlier checkpoint verbatim if later rounds drifted;
- ADOPT this round's best candidate;
- ${KEEP_BASE}.`;
  const keepMeans =
    t === 1
      ? `Here \`${KEEP_BASE}\` means keeping the base harness in \`context/harness/\` unchanged.`
      : prose`Here \`${KEEP_BASE}\` means keeping the CURRENT checkpoint (c${t - 1}) in \`context/harness/\`
unchanged, not the original base harness.`;
  return tidy([
    prose`You compose checkpoint ${t} of ${k} in a sequential adaptation loop. Each round proposes one
edit per dimension starting from the current checkpoint, rolls the candidates out, and you fold
the round into the next checkpoint.`,
    workSection(bp),
    lensSection(bp),
    section(HEADING.WHAT_YOU_HAVE, `You have:\n${have}`),
    section(
      HEADING.YOUR_JOB,
      prose`${
        final
          ? "Compose THE FINAL harness of the loop from the WHOLE history."
          : `Compose checkpoint ${t}, the harness the next round builds on.`
      } The valid outcomes are:
${outcomes}

${KEEP_BASE_REMINDER} ${keepMeans} ${
        t === 1
          ? "In your notes, say which edits survive and which were dropped."
          : "In your notes, say which rounds' edits survive and which were dropped or restored."
      }`,
    ),
    goodProcessSection(bp),
    noAnswerKey("authoring"),
    evidenceIsData("authoring"),
    surfaceBlock(surface, bp.promptPack),
    notesFormat(k, t === 1 ? NOTE_DECISIONS.slice(0, 3) : NOTE_DECISIONS),
  ]);
}
