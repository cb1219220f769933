// Executor rollouts (docs/method.md §5, §10 step 5): materialise a harness, run it through the
// adapter, and describe the result as a RunView. A rollout never raises for a failed execution: it
// is a dead rollout, still counted in the ledger. Only writing the harness directory and an
// interrupt (InterruptedError: the rollout stays unfinished, never dead, never counted) throw.

import { join } from "node:path";
import { RolloutFinished, RolloutStarted } from "../events/registry.ts";
import type { Clock, EventSink } from "../events/sink.ts";
import { emit } from "../events/sink.ts";
import { type SurfaceSpec, type Tree, writeTree } from "../harness/tree.ts";
import { describeError } from "../lib/errors.ts";
import {
  allOrInterrupted,
  asInterruption,
  InterruptedError,
  isSoftStop,
  mapInterruptible,
  runningSignal,
  throwIfInterrupted,
} from "../lib/interrupt.ts";
import { dirExists } from "../lib/safe-fs.ts";
import type { BenchmarkAdapter, ExecuteOptions } from "../seams/benchmark.ts";
import { RunView } from "../seams/benchmark.ts";
import { readRunMark } from "./runmark.ts";

/** A rollout and whether a finished, intact run mark let the adapter reuse it without executing. */
export type Rolled = { view: RunView; reused: boolean };

/** Who a rollout's events are about (base rollouts belong to the task, not to one mode). */
export type RolloutScope = {
  sink: EventSink;
  clock: Clock;
  sweep: string;
  domain: string;
  task: string;
  k: number;
};

/** What rolling needs: the adapter, where harnesses and the dead-run placeholder go, run ids. */
export type RolloutInputs = {
  adapter: Pick<BenchmarkAdapter, "execute" | "delivered" | "executeMany">;
  surface: SurfaceSpec;
  scope: RolloutScope;
  /** The task dir of the rollouts' namespace: harnesses/<label>/ and the `missing` placeholder. */
  workDir: string;
  runIdOf: (label: string) => string;
  /** Executor limit in seconds; null = the adapter's own default. */
  rolloutTimeoutS: number | null;
  /**
   * The sweep's interrupt: running executions get it (the adapter kills its executor), no rollout
   * starts once it is aborted, and a rollout it caught ends as interrupted, not dead.
   */
  signal?: AbortSignal;
};

/** `<workDir>/missing`: the run dir of a dead rollout. Never created. */
export function missingDir(workDir: string): string {
  return join(workDir, "missing");
}

/** The adapter's options; `signal` is the running one (a soft stop lets the execution finish). */
function executeOptions(inputs: RolloutInputs, signal: AbortSignal | undefined): ExecuteOptions {
  return {
    ...(inputs.rolloutTimeoutS === null ? {} : { timeoutS: inputs.rolloutTimeoutS }),
    ...(signal ? { signal } : {}),
  };
}

/** When a rollout started: on the run's clock (for wall time) and on the system clock (marks). */
type Started = { ts: number; wallMs: number };

/**
 * Facts the adapter's run mark (in the run dir) adds about a rollout. A mark written before this
 * rollout started means the adapter reused a finished run, which costs nothing now: it was paid
 * for by the run that produced it, as a cached reply is. Marks are stamped on the system clock,
 * so that is what they are compared with. `extras.usd` is the executor cost the adapter reported
 * (fix docs/differences.md R18: the original recorded every rollout at zero cost). An adapter that
 * keeps its marks elsewhere reports neither: cost 0, not reused.
 */
async function markFacts(
  runDir: string,
  started: Started,
): Promise<{ usd: number; reused: boolean; priced: boolean; tokens: number }> {
  const mark = await readRunMark(runDir);
  if (mark === null) return { usd: 0, reused: false, priced: true, tokens: 0 };
  if (mark.at < started.wallMs) return { usd: 0, reused: true, priced: true, tokens: 0 };
  const usd = mark.extras.usd;
  const tokens = tokenCount(mark.extras.tokens);
  // `usd: null` is an executor saying the cost is unknown (a Codex model with no price), not 0.
  if (usd === null) return { usd: 0, reused: false, priced: false, tokens };
  const valid = typeof usd === "number" && Number.isFinite(usd) && usd >= 0;
  return { usd: valid ? usd : 0, reused: false, priced: true, tokens };
}

/** Input + output tokens of an executor's usage record (`{input, output, …}`), 0 when none. */
export function tokenCount(usage: unknown): number {
  if (usage === null || typeof usage !== "object") return 0;
  const u = usage as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
  return Math.round(n(u.input) + n(u.output));
}

async function describeRun(
  inputs: RolloutInputs,
  label: string,
  runId: string,
  runDir: string,
  started: Started,
): Promise<Rolled> {
  const wallS = Math.max(0, (inputs.scope.clock.now() - started.ts) / 1000);
  // Fix docs/differences.md R3: every path checks that the returned run directory exists.
  if (!dirExists(runDir)) {
    return {
      view: RunView.parse({
        label,
        runId,
        runDir,
        ok: false,
        delivered: false,
        wallS,
        error: `the adapter returned a missing run directory: ${runDir}`,
      }),
      reused: false,
    };
  }
  const delivered = await inputs.adapter.delivered(runDir);
  const facts = await markFacts(runDir, started);
  return {
    view: RunView.parse({
      label,
      runId,
      runDir,
      ok: true,
      delivered,
      usd: facts.usd,
      priced: facts.priced,
      tokens: facts.tokens,
      wallS,
    }),
    reused: facts.reused,
  };
}

/** What a failed execution reports it spent: an error carrying a finite `usd` ≥ 0 (e.g. RolloutError). */
function spentBy(err: unknown): number {
  const usd = (err as { usd?: unknown } | null)?.usd;
  return typeof usd === "number" && Number.isFinite(usd) && usd >= 0 ? usd : 0;
}

/** Whether a failed execution's cost is known, and its tokens (RolloutError's `usage`). */
function usageOf(err: unknown): { priced: boolean; tokens: number } {
  const usage = (err as { usage?: { priced?: unknown; tokens?: unknown } } | null)?.usage;
  return { priced: usage?.priced !== false, tokens: tokenCount({ input: usage?.tokens }) };
}

function dead(inputs: RolloutInputs, label: string, runId: string, err: unknown): Rolled {
  return {
    view: RunView.parse({
      label,
      runId,
      runDir: missingDir(inputs.workDir),
      ok: false,
      delivered: false,
      // A dead rollout still cost what its session spent before it failed or timed out.
      usd: spentBy(err),
      ...usageOf(err),
      error: describeError(err),
    }),
    reused: false,
  };
}

function emitStarted(inputs: RolloutInputs, label: string, runId: string): Started {
  const s = inputs.scope;
  const ts = s.clock.now();
  const wallMs = Date.now();
  emit(s.sink, RolloutStarted, {
    ts,
    sweep: s.sweep,
    domain: s.domain,
    task: s.task,
    k: s.k,
    label,
    runId,
  });
  return { ts, wallMs };
}

function emitFinished(inputs: RolloutInputs, rolled: Rolled): void {
  const s = inputs.scope;
  const v = rolled.view;
  emit(s.sink, RolloutFinished, {
    ts: s.clock.now(),
    sweep: s.sweep,
    domain: s.domain,
    task: s.task,
    k: s.k,
    label: v.label,
    runId: v.runId,
    runDir: v.runDir,
    ok: v.ok,
    delivered: v.delivered,
    usd: v.usd,
    wallS: v.wallS,
    reused: rolled.reused,
    error: v.error,
    ...(v.priced ? {} : { priced: false }),
    ...(v.tokens > 0 ? { tokens: v.tokens } : {}),
  });
}

/**
 * An execution the interrupt caught, returned or not, is interrupted: it emits no
 * `rollout.finished` and enters no ledger. What it finished is not lost: an adapter reuses a run
 * whose mark is complete and intact on the next run.
 */
function interruptedRollout(label: string, usd: number): InterruptedError {
  return new InterruptedError(`interrupted during rollout ${label}`).plus(usd);
}

/**
 * One rollout of `tree` (null = the adapter's own base harness). The tree is materialised at
 * `<workDir>/harnesses/<label>/` first; a failure there, and an interrupt, are the only things
 * that throw.
 */
export async function roll(
  inputs: RolloutInputs,
  label: string,
  tree: Tree | null,
): Promise<Rolled> {
  throwIfInterrupted(inputs.signal, `rollout ${label}`);
  const harnessDir =
    tree === null
      ? null
      : writeTree(inputs.surface, tree, join(inputs.workDir, "harnesses", label));
  const runId = inputs.runIdOf(label);
  const started = emitStarted(inputs, label, runId);
  let rolled: Rolled;
  const running = runningSignal(inputs.signal);
  try {
    const runDir = await inputs.adapter.execute(
      inputs.scope.task,
      harnessDir,
      runId,
      executeOptions(inputs, running.signal),
    );
    rolled = await describeRun(inputs, label, runId, runDir, started);
  } catch (err) {
    const interrupted = asInterruption(err, running.signal);
    if (interrupted !== null) throw interruptedRollout(label, interrupted.usd);
    rolled = dead(inputs, label, runId, err);
  } finally {
    running.done();
  }
  if (inputs.signal?.aborted) {
    // Stopped softly, the rollout ran to its end: it is recorded (its spend with it), and what
    // follows it does not start.
    if (!isSoftStop(inputs.signal)) throw interruptedRollout(label, rolled.view.usd);
    emitFinished(inputs, rolled);
    throw interruptedRollout(label, 0);
  }
  emitFinished(inputs, rolled);
  return rolled;
}

/**
 * Rolls `items` with at most `width` at once and returns them in the caller's order, so the
 * caller records the ledger in that order after the phase drains (a concurrent run records the
 * same sequence as a serial one). An interrupt throws one InterruptedError after every rollout
 * settled, carrying the spend of them all; none of them is then recorded.
 */
export async function rollMany(
  inputs: RolloutInputs,
  items: readonly { label: string; tree: Tree | null }[],
  width: number,
): Promise<Rolled[]> {
  const settled = await mapInterruptible(items, width, (item) =>
    roll(inputs, item.label, item.tree),
  );
  return allOrInterrupted(settled, (r) => r.view.usd);
}

/**
 * The k base rollouts on the adapter's own base harness (labels base1..basek), shared by every
 * mode. With more than one base and an `executeMany` hook, one batch call; otherwise per base,
 * up to `width` at once. Never raises; not recorded in any ledger (each mode records them).
 *
 * In a batch, an Error in a run's place makes that base alone dead (fix docs/differences.md R4: the
 * original's batch was all-or-nothing), and a run dir is checked like any other
 * (docs/differences.md R3): one that does not exist is a dead base. Only a batch call that throws
 * fails every base.
 */
export async function rollBases(
  inputs: RolloutInputs,
  k: number,
  width: number,
): Promise<Rolled[]> {
  throwIfInterrupted(inputs.signal, "the base rollouts");
  const labels = Array.from({ length: k }, (_, i) => `base${i + 1}`);
  const executeMany = inputs.adapter.executeMany?.bind(inputs.adapter);
  if (labels.length < 2 || executeMany === undefined) {
    return rollMany(
      inputs,
      labels.map((label) => ({ label, tree: null })),
      width,
    );
  }
  const runIds = labels.map((l) => inputs.runIdOf(l));
  const started = labels.map((l, i) => emitStarted(inputs, l, runIds[i] as string));
  let dirs: (string | Error)[] | null = null;
  let failure: unknown = null;
  const running = runningSignal(inputs.signal);
  try {
    dirs = await executeMany(
      inputs.scope.task,
      null,
      runIds,
      executeOptions(inputs, running.signal),
    );
  } catch (err) {
    const interrupted = asInterruption(err, running.signal);
    if (interrupted !== null) throw interrupted;
    // One call: its failure is every base's failure (docs/differences.md R4, unavoidable for a
    // batch).
    failure = err;
  } finally {
    running.done();
  }
  if (inputs.signal?.aborted) {
    let usd = 0;
    for (const [i, dir] of (dirs ?? []).entries()) {
      const label = labels[i] as string;
      if (dir instanceof Error) {
        usd += spentBy(dir);
        continue;
      }
      try {
        usd += (await describeRun(inputs, label, runIds[i] as string, dir, started[i] as Started))
          .view.usd;
      } catch {
        // nothing readable there: no spend to report
      }
    }
    throw new InterruptedError("interrupted during the base rollouts").plus(usd);
  }
  const out: Rolled[] = [];
  for (const [i, label] of labels.entries()) {
    const runId = runIds[i] as string;
    const dir = dirs?.[i];
    let rolled: Rolled;
    if (failure !== null) rolled = dead(inputs, label, runId, failure);
    else if (dir instanceof Error) rolled = dead(inputs, label, runId, dir);
    else if (dir === undefined) {
      rolled = dead(
        inputs,
        label,
        runId,
        new Error(
          `the batch returned ${dirs?.length ?? 0} run directories for ${labels.length} bases`,
        ),
      );
    } else {
      try {
        rolled = await describeRun(inputs, label, runId, dir, started[i] as Started);
      } catch (err) {
        rolled = dead(inputs, label, runId, err);
      }
    }
    emitFinished(inputs, rolled);
    out.push(rolled);
  }
  return out;
}
