// One improvement stage (docs/method.md §5): build the evidence, ask the proposer to edit
// `context/harness/`, read the edit back and accept it, retrying once with the rejection fed back
// verbatim, else fall back to the inherited tree. A stage never sees a score, and an invalid,
// verdict-carrying or leaking tree is never accepted; an interrupted stage never falls back: it
// throws InterruptedError and records nothing.

import { join } from "node:path";
import { Note, type StageDim, StageFinished, StageStarted } from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import type { ContextTree } from "../evidence/context-tree.ts";
import { mission } from "../evidence/mission.ts";
import { buildEvidenceTree, type PoolEntry } from "../evidence/tree.ts";
import {
  autotrigger,
  diffSummary,
  readTree,
  type Tree,
  TreeSymlinkError,
  TreeValidationError,
  validate,
} from "../harness/tree.ts";
import { describeError } from "../lib/errors.ts";
import { asInterruption, InterruptedError, throwIfInterrupted } from "../lib/interrupt.ts";
import { sortPaths } from "../lib/safe-fs.ts";
import { extractNotes } from "../proposer/reply.ts";
import { assertTreeHasNoLeakPaths } from "../safety/leak-globs.ts";
import { type TripwireContext, TripwireError } from "../safety/tripwire.ts";
import { assertMissionClean, assertTreeHasNoGraderVerdicts } from "../safety/tripwires.ts";
import { ProposerError, type Reply } from "../seams/channel.ts";
import { type ModeInputs, modeFields, Stage, truncate } from "./records.ts";
import { claimEvidence, contextDir, retryEvidence } from "./stage-evidence.ts";

/** What one stage is asked to do. */
export type StageSpec = {
  label: string;
  dim: StageDim;
  /** The stage's prompt (the mission's `job`). */
  job: string;
  /** The tree inherited on failure (base in parallel mode, the current checkpoint in seq). */
  fallback: Tree;
  /** The harness the session edits (copied into `context/harness/`). */
  harnessDir: string;
  pool?: readonly PoolEntry[];
  decisions?: Readonly<Record<string, string>>;
};

/** The harvested sub-path: the session edits its copy of the harness in place. */
export const HARVEST = "context/harness";

/** Off-surface files named in the rejection, at most. */
const REJECTED_SHOWN = 6;

/** The section appended to the mission of a retry; `error` is repeated verbatim. */
export function rejectedBlock(error: string): string {
  return [
    "# YOUR PREVIOUS ATTEMPT WAS REJECTED",
    "",
    error,
    "",
    "Fix this in `context/harness/` (it holds what the rejected attempt left there) and reply again.",
  ].join("\n");
}

function tripwireContext(m: ModeInputs, label: string): TripwireContext {
  const s = m.scope;
  return {
    sink: s.sink,
    clock: s.clock,
    sweep: s.sweep,
    domain: s.domain,
    task: s.task,
    mode: s.mode,
    k: s.k,
    stage: label,
  };
}

export type Acceptance = {
  /** The proposal equals the fallback tree (after autotrigger). */
  kept: boolean;
  /** "" when accepted; else the problems, fed back verbatim. */
  error: string;
  /** Skills autotrigger added trigger lines for. */
  autotriggered: string[];
};

/**
 * Accepts or rejects a proposed tree (docs/method.md §5): autotrigger (MUTATES `tree`), kept-base
 * against `fallback`, surface validation, the adapter's own rules, then the authored-tree
 * tripwires. Invalid trees come back as an error string; anything else thrown (an adapter bug, a
 * missing python3, a syntax checker killed twice) propagates and ends the mode — it is never
 * mistaken for a bad proposal. A check stopped by the interrupt throws InterruptedError.
 */
export async function acceptTree(
  m: ModeInputs,
  label: string,
  tree: Tree,
  fallback: Tree,
): Promise<Acceptance> {
  const autotriggered = autotrigger(m.surface, tree);
  if (autotriggered.length > 0) {
    emit(m.scope.sink, Note, {
      ts: m.scope.clock.now(),
      sweep: m.scope.sweep,
      task: m.scope.task,
      level: "info",
      message: `${m.scope.mode} ${label}: auto-triggered skill(s): ${autotriggered.join(", ")}`,
    });
  }
  const d = diffSummary(m.surface, fallback, tree);
  const kept = d.added.length + d.removed.length + d.modified.length === 0;
  const spec = m.adapter.spec;
  try {
    await validate(m.surface, tree, {
      allowSubagents: spec.allowSubagents,
      reservedScripts: spec.reservedScripts,
      ...(m.python ? { python: m.python } : {}),
      ...(m.signal ? { signal: m.signal } : {}),
    });
  } catch (err) {
    if (err instanceof TreeValidationError) return { kept, error: err.message, autotriggered };
    // A Python check killed by the interrupt is no verdict on the proposal nor a failed mode.
    throw asInterruption(err, m.signal) ?? err;
  }
  const problems = await m.adapter.validateTree(tree);
  if (problems.length > 0) return { kept, error: problems.join(" | "), autotriggered };
  try {
    const ctx = tripwireContext(m, label);
    assertTreeHasNoLeakPaths(tree, spec.leakGlobs, ctx);
    assertTreeHasNoGraderVerdicts(tree, ctx);
  } catch (err) {
    if (err instanceof TripwireError) return { kept, error: err.message, autotriggered };
    throw err;
  }
  return { kept, error: "", autotriggered };
}

function offSurfaceError(m: ModeInputs, rejected: readonly string[]): string {
  const shown = sortPaths(rejected).slice(0, REJECTED_SHOWN);
  const more = rejected.length > shown.length ? ` (+${rejected.length - shown.length} more)` : "";
  return (
    `these files are not on the editable surface and were not kept: ${shown.join(", ")}${more}. ` +
    "Component names must be lowercase letters, digits, `_` or `-`; legal paths look like " +
    `\`${m.surface.skillDir}/doc_review/SKILL.md\` (a skill) or \`scripts/check_totals.py\` (a script). ` +
    "Move each file to a legal path or drop it."
  );
}

type Tally = { usd: number; attempts: number; cached: boolean };

function fellBack(spec: StageSpec, error: string, tally: Tally): Stage {
  return Stage.parse({
    label: spec.label,
    dim: spec.dim,
    tree: { ...spec.fallback },
    keptBase: false,
    fellBack: true,
    error: truncate(error),
    usd: tally.usd,
    attempts: tally.attempts,
    cached: tally.cached,
    notes: "",
    autotriggered: [],
  });
}

/**
 * Runs one stage to a Stage record. Degrades (falls back) on an evidence failure, a transport
 * failure or `stageAttempts` invalid proposals; throws only for what must end the mode. An
 * interrupt (`m.signal`) throws InterruptedError carrying the stage's spend, and no
 * `stage.finished` is emitted: the stage stays unfinished (interrupted) in the record.
 */
export async function runStage(m: ModeInputs, spec: StageSpec): Promise<Stage> {
  throwIfInterrupted(m.signal, `stage ${spec.label}`);
  const claim = claimEvidence(m, spec);
  let evidence: { dir: string; tree: ContextTree | null } = {
    dir: contextDir(m, spec.label),
    tree: null,
  };
  if ("earlier" in claim) {
    const tree = await claim.earlier.built;
    if (tree !== null) evidence = { dir: claim.earlier.dir, tree };
  }
  emit(m.scope.sink, StageStarted, {
    ...modeFields(m.scope),
    label: spec.label,
    dim: spec.dim,
    evidenceDir: evidence.dir,
  });
  const settle = "settle" in claim ? claim.settle : undefined;
  const stage = await proposeAndAccept(m, spec, evidence, settle);
  emit(m.scope.sink, StageFinished, {
    ...modeFields(m.scope),
    label: stage.label,
    dim: stage.dim,
    fellBack: stage.fellBack,
    keptBase: stage.keptBase,
    attempts: stage.attempts,
    usd: stage.usd,
    cached: stage.cached,
    error: stage.error,
    notes: stage.notes,
    harnessDir: join(m.workDir, "harnesses", stage.label),
  });
  return stage;
}

/**
 * The evidence the attempt after `a` reads: a folder of its own whose harness is `proposed` (the
 * attempt it edits), or `ctxDir` as it is when no attempt follows.
 */
function nextEvidence(
  m: ModeInputs,
  spec: StageSpec,
  a: number,
  ctxDir: string,
  proposed: Tree,
): string {
  if (a >= m.limits.stageAttempts) return ctxDir;
  return retryEvidence(m, ctxDir, `${spec.label}.a${a + 1}`, proposed);
}

async function proposeAndAccept(
  m: ModeInputs,
  spec: StageSpec,
  evidence: { dir: string; tree: ContextTree | null },
  settle: ((tree: ContextTree | null) => void) | undefined,
): Promise<Stage> {
  let ctxDir = evidence.dir;
  let base: string;
  try {
    let tree = evidence.tree;
    if (tree === null) {
      try {
        tree = await buildEvidenceTree(
          ctxDir,
          m.adapter,
          m.scope.task,
          m.base.map((b) => b.view),
          {
            ...tripwireContext(m, spec.label),
            surface: m.surface,
            harnessDir: spec.harnessDir,
            library: m.library,
            pool: spec.pool ?? [],
            decisions: spec.decisions ?? {},
          },
        );
      } finally {
        settle?.(tree);
      }
    }
    base = mission(tree, { job: spec.job });
    assertMissionClean(base, tripwireContext(m, spec.label));
  } catch (err) {
    return fellBack(spec, `could not build evidence: ${describeError(err)}`, {
      usd: 0,
      attempts: 0,
      cached: false,
    });
  }

  const tally: Tally = { usd: 0, attempts: 0, cached: true };
  let error = "";
  for (let a = 1; a <= m.limits.stageAttempts; a++) {
    if (m.signal?.aborted) {
      throw new InterruptedError(`interrupted before ${spec.label}.a${a}`).plus(tally.usd);
    }
    const text = error === "" ? base : `${base}\n\n${rejectedBlock(error)}`;
    let reply: Reply;
    try {
      reply = await m.proposer.call(text, ctxDir, `${spec.label}.a${a}`, {
        harvest: HARVEST,
        maxAttempts: m.limits.transportAttempts,
        timeoutS: m.limits.proposerTimeoutS,
        purpose: "stage",
        where: { domain: m.scope.domain, task: m.scope.task, mode: m.scope.mode, k: m.scope.k },
        ...(m.signal ? { signal: m.signal } : {}),
      });
    } catch (err) {
      // An interrupted call is not a transport failure: the stage does not fall back.
      const interrupted = asInterruption(err, m.signal);
      if (interrupted !== null) throw interrupted.plus(tally.usd);
      if (!(err instanceof ProposerError)) throw err;
      // No stage retry after a transport failure: the proposer already retried (docs/method.md §5).
      tally.usd += err.usd;
      tally.attempts += err.attempts > 0 ? err.attempts : m.limits.transportAttempts;
      tally.cached = false;
      error = err.message;
      break;
    }
    tally.usd += reply.usd;
    tally.attempts += reply.cached ? 0 : Math.max(1, reply.attempts);
    tally.cached &&= reply.cached;

    if (reply.workspace === null) {
      error =
        "the harness directory did not come back from the session: edit the files in " +
        "`context/harness/` in place (do not move, rename or delete that directory)";
      continue;
    }
    const links = reply.skippedLinks ?? [];
    if (links.length > 0) {
      // A link is never copied out of the session, so its file would read as deleted: the edit
      // is refused with feedback instead (docs/differences.md X9).
      error =
        `the edit holds ${links.length === 1 ? "a symlink" : "symlinks"} (${links.slice(0, 5).join(", ")}): ` +
        "a harness must hold real files only; write each file itself in `context/harness/`";
      continue;
    }
    const rejected: string[] = [];
    let proposed: Tree;
    try {
      proposed = readTree(m.surface, reply.workspace, rejected);
    } catch (err) {
      if (!(err instanceof TreeSymlinkError)) throw err;
      // A symlinked edit is the model's mistake, fed back like any other (docs/differences.md X9).
      error = err.message;
      continue;
    }
    if (Object.keys(proposed).length === 0) {
      error =
        "the harness came back empty: edit the files in `context/harness/`, do not delete them all";
      continue;
    }
    if (rejected.length > 0) {
      error = offSurfaceError(m, rejected);
      // Fix docs/differences.md R8: the retry edits its own attempt (minus the off-surface files)
      // instead of starting again from the original harness.
      ctxDir = nextEvidence(m, spec, a, ctxDir, proposed);
      continue;
    }
    let verdict: Acceptance;
    try {
      verdict = await acceptTree(m, spec.label, proposed, spec.fallback);
    } catch (err) {
      if (err instanceof InterruptedError) throw err.plus(tally.usd);
      throw err;
    }
    if (verdict.error !== "") {
      error = verdict.error;
      // The retry starts from its own (autotrigger-repaired) invalid tree.
      ctxDir = nextEvidence(m, spec, a, ctxDir, proposed);
      continue;
    }
    return Stage.parse({
      label: spec.label,
      dim: spec.dim,
      tree: proposed,
      keptBase: verdict.kept,
      fellBack: false,
      error: "",
      usd: tally.usd,
      attempts: tally.attempts,
      cached: tally.cached,
      notes: extractNotes(reply.text).notes,
      autotriggered: verdict.autotriggered,
    });
  }
  return fellBack(spec, error, tally);
}
