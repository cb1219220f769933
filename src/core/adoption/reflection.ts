// Reflection after an ok selection (docs/method.md §8): the complete record of the round is laid
// out for one session that writes what each edit did and at most one transferable lesson. It never
// shows the library or any verdict, and it never turns a failure or NO_ENTRY into a lesson.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { ReflectionFinished } from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import type { ContextTree } from "../evidence/context-tree.ts";
import { mission } from "../evidence/mission.ts";
import { readCheckedTree } from "../evidence/pool.ts";
import { buildEvidenceTree, type PoolEntry } from "../evidence/tree.ts";
import { treeDiff } from "../harness/diff.ts";
import type { Tree } from "../harness/surface.ts";
import { readTree, writeTree } from "../harness/tree.ts";
import { describeError } from "../lib/errors.ts";
import { asInterruption, InterruptedError, throwIfInterrupted } from "../lib/interrupt.ts";
import { roundUsd } from "../lib/money.ts";
import { dirExists, writeFileSafe } from "../lib/safe-fs.ts";
import { Experience } from "../library/values.ts";
import { experience as experiencePrompt, experienceRepair } from "../proposer/prompts/index.ts";
import { type ExperienceParse, parseExperience } from "../proposer/reply.ts";
import type { TripwireContext } from "../safety/tripwire.ts";
import {
  assertContextClean,
  assertMissionClean,
  assertTreeHasNoGraderVerdicts,
} from "../safety/tripwires.ts";
import { type BenchmarkAdapter, type RunView, resolvePrompts } from "../seams/benchmark.ts";
import type { ProposerLike } from "../seams/channel.ts";
import { ProposerError } from "../seams/channel.ts";
import { persistSelection, Selection, type SelectionScope, selectionDir } from "./selection.ts";

export type ReflectInput = {
  taskId: string;
  /** The mode's selection; reflection runs only when it is ok. */
  sel: Selection;
  /** Every rollout of the mode: bases, stage rollouts and finals. */
  rollouts: readonly RunView[];
  adapter: BenchmarkAdapter;
  /** The selector proposer (reflection runs on the selector channel, outside the ledger). */
  prop: ProposerLike;
  /** The mode's task directory; harnesses are read from `<workDir>/harnesses/<label>/`. */
  workDir: string;
  /** Stage label → its notes, or its error when it wrote none. */
  decisions: Readonly<Record<string, string>>;
  scope: SelectionScope;
  /**
   * Extra reflection turns after a reply the parser cannot use (default 1; 0 = none). Beyond the
   * original (docs/differences.md S5), which lost the lesson on any malformed reply without
   * feedback.
   */
  repairTurns?: number;
  /**
   * The sweep's interrupt: once aborted no reflection turn starts, a running one is killed, and
   * reflectAdoption throws InterruptedError (with the spend so far): no lesson, nothing persisted.
   */
  signal?: AbortSignal;
};

export type ReflectionResult = {
  /** The selection with the lesson and the reflection's spend added (persisted when it ran). */
  selection: Selection;
  /** The lesson for the library, or null (no entry, failure, or reflection did not run). */
  experience: Experience | null;
  /** False when reflection did not run because the selection was not ok. */
  ran: boolean;
  ok: boolean;
  noEntry: boolean;
  usd: number;
  error: string;
};

/** `<workDir>/reflection/<mode><k>/` */
export function reflectionDir(workDir: string, sel: Pick<Selection, "mode" | "k">): string {
  return join(workDir, "reflection", `${sel.mode}${sel.k}`);
}

/** The "what happened" part of the mission: the adoption, decoded, and where to look first. */
function whatHappened(sel: Selection): string {
  const why = sel.why.trim() === "" ? "(no reasoning was given)" : sel.why.trim();
  const quoted = why
    .split("\n")
    .map((l) => `> ${l}`)
    .join("\n");
  return [
    "# What happened",
    "",
    `Harness \`${sel.chosenLabel}\` was adopted. The selector's reasoning, verbatim:`,
    "",
    quoted,
    "",
    "That reasoning names candidates by anonymous ids; `context/adoption.json` decodes them " +
      "(`candidateIds`: id → label).",
    "",
    "Compare `context/harness/` (the adopted harness) with `context/base_harness/` (where every " +
      "candidate started) and with the candidates in `context/pool/`. Each " +
      "`context/pool/<label>/harness.diff` is that candidate against `context/base_harness/`. " +
      "Read `context/decisions/` and the execution contrasts in `context/rollouts/` first.",
  ].join("\n");
}

/** What was wrong with the last reply, for the repair turn. */
function failureOf(parsed: ExperienceParse | null): string {
  return parsed !== null && parsed.kind === "error" ? `Problem: ${parsed.error}.` : "";
}

/**
 * Rewrites each pool candidate's harness.diff against the BASE harness. Fix docs/differences.md
 * S10: the shared builder diffs against `context/harness/`, which here is the adopted tree, while
 * the prompt asks for diffs against `context/base_harness/`.
 */
function diffPoolAgainstBase(
  folder: string,
  tree: ContextTree,
  pool: readonly PoolEntry[],
  baseTree: Tree,
  adapter: BenchmarkAdapter,
): void {
  const surface = adapter.substrate.surface();
  pool.forEach((entry, i) => {
    const name = tree.pool[i];
    if (name === undefined || entry.harnessDir === null || !dirExists(entry.harnessDir)) return;
    const cand = readTree(surface, entry.harnessDir);
    writeFileSafe(
      folder,
      `pool/${name}/harness.diff`,
      treeDiff(baseTree, cand, "base_harness", name),
    );
  });
}

/**
 * Lays out the round's record and runs the reflection session (`experience.<mode><k>`). Returns
 * the lesson, or null for NO_ENTRY, an unusable reply, a failed call or a tripwire. Fix of
 * docs/differences.md S6: every failure here is contained — recorded in `error` and
 * `reflection.finished` (a tripwire also emits `tripwire.fired`) — so it never wipes the mode's
 * good selection record. The one thing it throws is an interrupt (InterruptedError): then nothing
 * is recorded.
 */
export async function reflectAdoption(input: ReflectInput): Promise<ReflectionResult> {
  const { sel, adapter, scope, taskId, signal } = input;
  throwIfInterrupted(signal, `the reflection of ${sel.mode}${sel.k}`);
  const chosen = input.rollouts.find((r) => r.label === sel.chosenLabel);
  if (!sel.ok || chosen === undefined) {
    const why = sel.ok ? `chosen label '${sel.chosenLabel}' is not a rollout` : "selection not ok";
    return {
      selection: sel,
      experience: null,
      ran: false,
      ok: false,
      noEntry: false,
      usd: 0,
      error: `reflection skipped: ${why}`,
    };
  }

  const folder = reflectionDir(input.workDir, sel);
  const stale = `${folder}.experience`;
  const ctx: TripwireContext = {
    ...scope,
    task: taskId,
    mode: sel.mode,
    k: sel.k,
    stage: "reflection",
  };
  let usd = 0;
  let lesson: Experience | null = null;
  let noEntry = false;
  let error = "";
  /** The edit rows the reflector wrote (a repair reply without rows keeps the first reply's). */
  let edits: string | null = null;
  try {
    const surface = adapter.substrate.surface();
    const leakGlobs = adapter.spec.leakGlobs;
    const harnessOf = (label: string) => join(input.workDir, "harnesses", label);
    const pool: PoolEntry[] = input.rollouts
      .filter((r) => !r.label.startsWith("base"))
      .map((r) => ({ label: r.label, harnessDir: harnessOf(r.label), rollout: r }));
    const tree = await buildEvidenceTree(folder, adapter, taskId, input.rollouts, {
      ...ctx,
      surface,
      harnessDir: harnessOf(sel.chosenLabel),
      libraryDir: null, // reflection never sees the library
      pool,
      decisions: input.decisions,
    });
    const baseTree = readCheckedTree(surface, await adapter.baseHarness(), leakGlobs, ctx) ?? {};
    writeTree(surface, baseTree, join(folder, "base_harness"), { stubs: false });
    diffPoolAgainstBase(folder, tree, pool, baseTree, adapter);
    const adoption = { chosenLabel: sel.chosenLabel, candidateIds: sel.idMap, reason: sel.why };
    writeFileSafe(folder, "adoption.json", `${JSON.stringify(adoption, null, 2)}\n`);
    assertContextClean(folder, leakGlobs, ctx);

    // The session reads the folder itself: nothing is written into it until the session's last
    // turn (edits.md comes after). A `.experience` copy of an older version is removed.
    rmSync(stale, { recursive: true, force: true });

    const bp = await resolvePrompts(adapter, taskId);
    const job = `${experiencePrompt(bp)}\n${whatHappened(sel)}`;
    const first = mission(tree, { job });
    assertMissionClean(first, ctx);
    const label = `experience.${sel.mode}${sel.k}`;
    const turns = 1 + Math.max(0, input.repairTurns ?? 1);
    let parsed: ExperienceParse | null = null;
    for (let turn = 0; turn < turns; turn++) {
      if (signal?.aborted) throw new InterruptedError(`interrupted before ${label}`);
      const text = turn === 0 ? first : `${first}\n${experienceRepair(failureOf(parsed))}`;
      const reply = await input.prop.call(
        text,
        folder,
        turn === 0 ? label : `${label}.repair${turn}`,
        {
          purpose: "reflection",
          where: { domain: scope.domain, task: taskId, mode: sel.mode, k: sel.k },
          ...(signal ? { signal } : {}),
        },
      );
      usd += reply.usd; // counted before parsing: an unusable reply still cost money
      parsed = parseExperience(reply.text);
      // A repair reply without rows keeps the rows the first reply wrote.
      if (parsed.edits !== null) edits = parsed.edits.text;
      if (parsed.kind !== "error") break;
    }
    if (parsed === null) throw new Error("reflection made no call");
    if (edits !== null) writeFileSafe(folder, "edits.md", `${edits}\n`);
    if (parsed.kind === "entry") {
      const candidate = Experience.parse({ ...parsed.entry, edits: edits ?? "" });
      // Scanned as plain text: a JSON serialisation escapes the quotes the `"pass_rate"`-style
      // markers carry, so a check of the serialised JSON could never see them (docs/differences.md X10).
      const text = Object.entries(candidate)
        .map(([key, value]) => `${key}: ${value}`)
        .join("\n");
      assertTreeHasNoGraderVerdicts({ "EXPERIENCE.md": text }, ctx);
      lesson = candidate;
    } else if (parsed.kind === "no_entry") {
      noEntry = true;
    } else {
      error = `reflection reply unusable: ${parsed.error}`;
    }
  } catch (err) {
    // Interrupted: not a failed reflection. Nothing is persisted or emitted; the spend goes up.
    // Only the call's failure is read as the interrupt's doing: a tripwire stays a tripwire.
    const interrupted = err instanceof ProposerError ? asInterruption(err, signal) : null;
    if (err instanceof InterruptedError) throw err.plus(usd);
    if (interrupted !== null) throw interrupted.plus(usd);
    if (err instanceof ProposerError) {
      usd += err.usd;
      // A repair call that failed keeps the rows the first reply wrote, on disk as before (a
      // folder that cannot take them changes nothing of the outcome).
      try {
        if (edits !== null) writeFileSafe(folder, "edits.md", `${edits}\n`);
      } catch {}
    }
    error = `reflection failed: ${describeError(err)}`;
    if (!(err instanceof ProposerError)) {
      // What failed here may be a leak: nothing of it stays on disk for a later session to find.
      rmSync(folder, { recursive: true, force: true });
    }
  }

  const ok = error === "";
  usd = roundUsd(usd); // several turns' spends, summed: no float residue in records
  const selection = persistSelection(
    selectionDir(input.workDir, sel.mode, sel.k),
    Selection.parse({
      ...sel,
      usd: roundUsd(sel.usd + usd),
      experience: lesson,
    }),
    input.rollouts,
  );
  emit(scope.sink, ReflectionFinished, {
    ts: scope.clock.now(),
    sweep: scope.sweep,
    domain: scope.domain,
    task: taskId,
    mode: sel.mode,
    k: sel.k,
    ok,
    noEntry,
    usd,
    error,
  });
  // A selection.json that cannot be written unmakes the selection, and with it the lesson.
  return { selection, experience: selection.experience, ran: true, ok, noEntry, usd, error };
}
