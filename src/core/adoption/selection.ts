// Blind selection among a mode's k finals (docs/method.md §7): the pool, anonymisation, the
// selector session, the never-ok fallback, the k=1 trivial pick and selection.json. The selector
// must never see a label, a score, a base rollout or anything a run directory holds that the
// adapter did not name.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ModeToken, SelectionMade } from "../events/registry.ts";
import type { Clock, EventSink } from "../events/sink.ts";
import { emit } from "../events/sink.ts";
import { copySource } from "../evidence/tree.ts";
import { writeFileAtomic } from "../lib/atomic-write.ts";
import { asInterruption, InterruptedError, throwIfInterrupted } from "../lib/interrupt.ts";
import { writeFileSafe } from "../lib/safe-fs.ts";
import { Experience } from "../library/values.ts";
import { select } from "../proposer/prompts/index.ts";
import { CHOICE_INFO, parseSelection, TAG, WHY_MAX } from "../proposer/reply.ts";
import { assignIds, compareAnonIds, idOfLabel } from "../safety/anon-ids.ts";
import type { TripwireContext } from "../safety/tripwire.ts";
import { assertContextClean, assertMissionClean } from "../safety/tripwires.ts";
import { type BenchmarkAdapter, type RunView, resolvePrompts } from "../seams/benchmark.ts";
import { ProposerError, type ProposerLike, type Reply } from "../seams/channel.ts";
import { compareLabels, POOL_POLICY, SelectionInputError } from "./pool.ts";
import {
  assetsNoteLine,
  droppedText,
  renderPool,
  type SelectionAdapter,
  selectionEvidence,
  writeCandidates,
} from "./selection-render.ts";

const ERROR_MAX = 400;

/** The outcome of one mode's selection, as the summary, the judge and reflection read it. */
export const Selection = z
  .object({
    taskId: z.string().min(1),
    mode: ModeToken,
    k: z.number().int().positive(),
    /** The anonymous id picked (or the fallback's id); "" when nothing was chosen. */
    chosenId: z.string().default(""),
    chosenLabel: z.string().default(""),
    chosenRunId: z.string().default(""),
    chosenIsBase: z.boolean().default(false),
    /** The selector's reasoning; it names anonymous ids, decoded by `idMap`. */
    why: z.string().max(WHY_MAX).default(""),
    /** Anonymous id → label of every candidate that survived the drop rules. */
    idMap: z.record(z.string(), z.string()).default({}),
    /** Candidates removed before anonymisation: `label` or `label (cause)`. */
    dropped: z.array(z.string()).default([]),
    /** Surviving candidates (the pool after drops), not the number offered. */
    nCandidates: z.number().int().nonnegative().default(0),
    /** A selector reply was parsed into a valid id, or the pick was trivial (k = 1). */
    ok: z.boolean().default(false),
    /** The selector failed and a stand-in was recorded for provenance; never judged or stored. */
    fallback: z.boolean().default(false),
    error: z.string().default(""),
    /** Improver spend of selection plus reflection. */
    usd: z.number().nonnegative().default(0),
    /** The lesson reflection distilled; null when there is none. */
    experience: Experience.nullable().default(null),
    trivial: z.boolean().default(false),
    evidence: z.enum(["deliverable", "trajectory"]).default("deliverable"),
  })
  .superRefine((s, ctx) => {
    const fail = (path: string, message: string) =>
      ctx.addIssue({ code: "custom", path: [path], message });
    if (s.ok && s.fallback) fail("fallback", "a fallback selection is never ok");
    if (s.trivial && !s.ok) fail("trivial", "a trivial selection is always ok");
    if ((s.ok || s.fallback) && s.chosenLabel === "") {
      fail("chosenLabel", "an ok or fallback selection must name the chosen label");
    }
    if (s.chosenIsBase !== s.chosenLabel.startsWith("base")) {
      fail("chosenIsBase", `chosenIsBase must say whether '${s.chosenLabel}' is a base rollout`);
    }
    if (s.chosenId !== "" && s.idMap[s.chosenId] !== s.chosenLabel) {
      fail(
        "chosenId",
        `id '${s.chosenId}' maps to '${s.idMap[s.chosenId]}', not '${s.chosenLabel}'`,
      );
    }
    if (s.experience !== null && !s.ok) fail("experience", "only an ok selection has a lesson");
  });
export type Selection = z.infer<typeof Selection>;

/** selection.json: the record plus the chosen run's directory. */
export const SelectionFile = Selection.and(z.object({ chosenRunDir: z.string() }));
export type SelectionFile = z.infer<typeof SelectionFile>;

/** Where the run emits and whom its events are about. */
export type SelectionScope = {
  sweep: string;
  domain: string;
  sink: EventSink;
  clock: Clock;
};

/** `<workDir>/selection/<mode><k>/` */
export function selectionDir(workDir: string, mode: ModeToken, k: number): string {
  return join(workDir, "selection", `${mode}${k}`);
}

function cut(text: string, max = ERROR_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Writes selection.json atomically (temp file + rename), so a crash never leaves a torn record;
 * reflection rewrites it with the lesson and the added spend (docs/differences.md S20). A failed
 * write makes the selection not ok and says so in `error`.
 */
export function persistSelection(
  folder: string,
  sel: Selection,
  pool: readonly RunView[],
): Selection {
  const chosenRunDir = pool.find((r) => r.label === sel.chosenLabel)?.runDir ?? "";
  const path = join(folder, "selection.json");
  try {
    writeFileAtomic(path, `${JSON.stringify({ ...sel, chosenRunDir }, null, 2)}\n`, {
      mkdir: true,
    });
    return sel;
  } catch (err) {
    return Selection.parse({
      ...sel,
      ok: false,
      trivial: false,
      experience: null,
      error: cut(
        `${sel.error}${sel.error ? " | " : ""}could not persist selection: ${(err as Error).message}`,
      ),
    });
  }
}

/** Reads a selection.json back (for resume, the judge, `harness2 show`). */
export function readSelectionFile(text: string): SelectionFile {
  return SelectionFile.parse(JSON.parse(text));
}

function emitSelection(scope: SelectionScope, sel: Selection, chosen?: RunView): void {
  emit(scope.sink, SelectionMade, {
    ts: scope.clock.now(),
    sweep: scope.sweep,
    domain: scope.domain,
    task: sel.taskId,
    mode: sel.mode,
    k: sel.k,
    chosenLabel: sel.chosenLabel,
    anonId: sel.chosenId,
    idMap: sel.idMap,
    why: sel.why,
    ok: sel.ok,
    fallback: sel.fallback,
    trivial: sel.trivial,
    dropped: sel.dropped,
    usd: sel.usd,
    error: sel.error,
    // Which run was adopted, so the store (and the judge) need not guess it from the label.
    chosenRunId: chosen?.runId,
    chosenRunDir: chosen?.runDir,
  });
}

/** Persists, emits and returns the final record. */
function finish(
  folder: string,
  scope: SelectionScope,
  sel: Selection,
  pool: readonly RunView[],
): Selection {
  const chosen = pool.find((r) => r.label === sel.chosenLabel);
  const done = persistSelection(
    folder,
    Selection.parse({
      ...sel,
      chosenRunId: chosen?.runId ?? "",
      chosenIsBase: sel.chosenLabel.startsWith("base"),
    }),
    pool,
  );
  emitSelection(scope, done, chosen);
  return done;
}

export type SelectionInput = {
  taskId: string;
  k: number;
  mode: ModeToken;
  /** The pool offered: selectionPool(...) of the mode. */
  candidates: readonly RunView[];
  workDir: string;
  scope: SelectionScope;
};

const TRIVIAL_WHY = "Trivial pool: a single final at k=1, delivered without a selector session.";

/**
 * k = 1: the single final is delivered without a selector session (no proposer call, usd 0),
 * after the usual drop rules. The selection folder is wiped and holds only selection.json.
 */
export async function trivialSelection(
  input: SelectionInput & { adapter: SelectionAdapter },
): Promise<Selection> {
  if (input.candidates.length > 1) {
    throw new SelectionInputError(
      "candidates",
      `a trivial selection takes at most one candidate, got ${input.candidates.length}`,
    );
  }
  const folder = selectionDir(input.workDir, input.mode, input.k);
  rmSync(folder, { recursive: true, force: true });
  const rendered = await renderPool(input.candidates, input.adapter);
  const base = {
    taskId: input.taskId,
    mode: input.mode,
    k: input.k,
    dropped: rendered.dropped.map(droppedText),
    nCandidates: rendered.pool.length,
    evidence: rendered.evidence,
  };
  const only = rendered.pool[0];
  if (only === undefined) {
    const error = "no candidate produced an artifact (finals-only pool has no base fallback)";
    return finish(folder, input.scope, Selection.parse({ ...base, error }), rendered.pool);
  }
  const sel = Selection.parse({
    ...base,
    chosenId: "A",
    chosenLabel: only.label,
    idMap: { A: only.label },
    why: TRIVIAL_WHY,
    ok: true,
    trivial: true,
  });
  return finish(folder, input.scope, sel, rendered.pool);
}

export type RunSelectionInput = SelectionInput & {
  adapter: BenchmarkAdapter;
  /** The selector proposer. */
  prop: ProposerLike;
  /** Extra selector turns after an unusable reply (default 1; 0 = none). */
  repairTurns?: number;
  /**
   * The sweep's interrupt: once aborted no selector turn starts, a running one is killed, and
   * runSelection throws InterruptedError (with the spend so far) instead of recording anything.
   */
  signal?: AbortSignal;
};

/**
 * Runs the blind selector over the pool. Never throws because of the selector: an unusable
 * reply (after the repair turn) or a ProposerError records the fallback, which is NEVER ok.
 * Throws for caller misuse, for adapter bugs, and for a tripwire on anything shown to the
 * selector (TripwireError, after `tripwire.fired`; the folder is then removed). An interrupt
 * throws InterruptedError: no selection is recorded (no selection.json, no `selection.made`).
 */
export async function runSelection(input: RunSelectionInput): Promise<Selection> {
  const { taskId, k, mode, adapter, scope, signal } = input;
  throwIfInterrupted(signal, `the selection of ${mode}${k}`);
  const folder = selectionDir(input.workDir, mode, k);
  // Fix docs/differences.md S3: wiped first, so a stale selection.json never outlives this attempt.
  rmSync(folder, { recursive: true, force: true });
  const bp = await resolvePrompts(adapter, taskId);
  const rendered = await renderPool(input.candidates, adapter);
  const base = {
    taskId,
    mode,
    k,
    dropped: rendered.dropped.map(droppedText),
    nCandidates: rendered.pool.length,
    evidence: rendered.evidence,
  };
  if (rendered.pool.length === 0) {
    const error = "no candidate produced an artifact";
    return finish(folder, scope, Selection.parse({ ...base, error }), rendered.pool);
  }

  const idMap = assignIds(
    rendered.pool.map((r) => r.label),
    taskId,
    k,
    mode,
  );
  const ids = Object.keys(idMap).sort(compareAnonIds);
  const ctx: TripwireContext = { ...scope, task: taskId, mode, k, stage: "selection" };
  let mission: string;
  try {
    writeFileSafe(folder, "task.md", await adapter.taskPrompt(taskId));
    const source = await copySource(adapter, taskId, folder, adapter.spec.leakGlobs, ctx);
    const poolByLabel = new Map(rendered.pool.map((r) => [r.label, r]));
    const written = await writeCandidates(folder, idMap, poolByLabel, rendered.artifacts, adapter);
    const job = select(bp, ids.length, {
      poolKind: POOL_POLICY,
      assetsNote: assetsNoteLine(adapter, written.assetNames),
    });
    mission = `${job}\n${selectionEvidence({
      ids,
      sourceFiles: source.files,
      assetNames: written.assetNames,
      referenceOnly: adapter.deliverableAssetsReferenceOnly === true,
    })}\n`;
    // Everything the selector is shown: the folder (symlinks, leak paths, verdicts) and the
    // mission.
    assertContextClean(folder, adapter.spec.leakGlobs, ctx);
    assertMissionClean(mission, ctx);
  } catch (err) {
    rmSync(folder, { recursive: true, force: true });
    throw err;
  }

  let usd = 0;
  const label = `select.${mode}${k}`;
  const turns = 1 + Math.max(0, input.repairTurns ?? 1);
  let failure = "";
  for (let turn = 0; turn < turns; turn++) {
    if (signal?.aborted) throw new InterruptedError(`interrupted before ${label}`).plus(usd);
    const text = turn === 0 ? mission : repairMission(mission, failure, ids);
    let reply: Reply;
    try {
      reply = await input.prop.call(text, folder, turn === 0 ? label : `${label}.repair${turn}`, {
        purpose: "selection",
        where: { domain: scope.domain, task: taskId, mode, k },
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      // An interrupted selector is no failed selector: nothing falls back, nothing is recorded.
      const interrupted = asInterruption(err, signal);
      if (interrupted !== null) throw interrupted.plus(usd);
      if (!(err instanceof ProposerError)) throw err;
      usd += err.usd;
      failure = `selector call failed: ${err.message}`;
      break; // the proposer already spent its own retries on transport failures
    }
    usd += reply.usd; // counted before parsing: an unusable reply still cost money
    const parsed = parseSelection(reply.text, ids);
    if (parsed.ok) {
      const sel = Selection.parse({
        ...base,
        idMap,
        usd,
        chosenId: parsed.id,
        chosenLabel: idMap[parsed.id],
        why: parsed.why,
        ok: true,
      });
      return finish(folder, scope, sel, rendered.pool);
    }
    failure = parsed.error;
  }

  // Fix docs/differences.md S2: the stand-in is the first final in natural order (agg2 before
  // agg10).
  const standIn = rendered.pool.map((r) => r.label).sort(compareLabels)[0] as string;
  const sel = Selection.parse({
    ...base,
    idMap,
    usd,
    chosenId: idOfLabel(idMap, standIn),
    chosenLabel: standIn,
    fallback: true,
    ok: false,
    error: cut(failure),
  });
  return finish(folder, scope, sel, rendered.pool);
}

/** The mission again, with what was wrong with the last reply (a repair turn, docs/differences.md S1). */
function repairMission(mission: string, failure: string, ids: readonly string[]): string {
  return `${mission}
# YOUR PREVIOUS REPLY COULD NOT BE USED

${failure}

Reply again. Give the <${TAG.why}> block, then, as the very last thing, a fenced code block whose
info string is \`${CHOICE_INFO}\` holding exactly one of: ${ids.join(", ")}.
`;
}
