// The two recursion modes (docs/method.md §5): parallel ("agg": 2k i.i.d. proposals, then k
// independent composers) and sequential ("seq": k rounds of inv/dom + a chained composer). Both
// spend exactly R = 4k rollouts and P = 3k sessions and check it; neither ever reads a score.
// An interrupt starts no further phase and ends the mode with InterruptedError, never a result.

import { join } from "node:path";
import type { ModeToken } from "../events/registry.ts";
import { PhaseStarted } from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import { BASE_BASELINE, type PoolBaseline, type PoolEntry } from "../evidence/tree.ts";
import { diversity, type Tree, writeTree } from "../harness/tree.ts";
import { Harness2Error } from "../lib/errors.ts";
import {
  allOrInterrupted,
  InterruptedError,
  mapInterruptible,
  throwIfInterrupted,
} from "../lib/interrupt.ts";
import { aggregate, composeRound, propose } from "../proposer/prompts/index.ts";
import { type Rolled, type RolloutInputs, roll, rollMany } from "../rollout/rollouts.ts";
import type { BenchPrompts } from "../seams/bench-prompts.ts";
import { type RunView, resolvePrompts } from "../seams/benchmark.ts";
import { Ledger } from "./ledger.ts";
import {
  decisionsOf,
  type ModeInputs,
  type ModeResult,
  modeFields,
  recordRollout,
  recordSession,
  recursionStatus,
  type Stage,
} from "./records.ts";
import { runStage, type StageSpec } from "./stage.ts";

/** Only "agg" and "seq" exist. */
export class UnknownModeError extends Harness2Error {
  constructor(readonly mode: string) {
    super(
      `unknown mode ${JSON.stringify(mode)}: the method has exactly two, agg (parallel) and seq (sequential)`,
    );
  }
}

/** Starts a phase, unless the sweep was interrupted (then no phase starts). */
function phase(m: ModeInputs, name: "proposals" | "probes" | "compositions"): void {
  throwIfInterrupted(m.signal, `the ${name} of ${m.scope.mode}`);
  emit(m.scope.sink, PhaseStarted, { ...modeFields(m.scope), phase: name });
}

function rolloutInputs(m: ModeInputs): RolloutInputs {
  return {
    adapter: m.adapter,
    surface: m.surface,
    scope: m.scope,
    workDir: m.workDir,
    runIdOf: m.runIdOf,
    rolloutTimeoutS: m.limits.rolloutTimeoutS,
    ...(m.signal ? { signal: m.signal } : {}),
  };
}

function harnessDir(m: ModeInputs, label: string): string {
  return join(m.workDir, "harnesses", label);
}

/** Shared state of one mode while it runs. */
class ModeRun {
  readonly ledger: Ledger;
  readonly stages: Stage[] = [];
  readonly trees: Record<string, Tree> = {};
  readonly rollouts: Record<string, RunView> = {};

  constructor(
    readonly m: ModeInputs,
    mode: ModeToken,
  ) {
    this.ledger = new Ledger(mode, m.scope.task, m.scope.k);
    // Base rollouts count toward each mode's ledger, dead or not, in order.
    for (const rolled of m.base) {
      this.rollouts[rolled.view.label] = rolled.view;
      recordRollout(m.scope, this.ledger, rolled);
    }
  }

  /**
   * Runs stages with at most `width` at once; records their sessions in spec order after the
   * phase drains. An interrupted phase records none of them (allOrInterrupted).
   */
  async stagesPhase(specs: StageSpec[], width: number): Promise<Stage[]> {
    const settled = await mapInterruptible(specs, width, (spec) => runStage(this.m, spec));
    const done = allOrInterrupted(settled, (stage) => stage.usd);
    for (const stage of done) {
      recordSession(this.m.scope, this.ledger, stage);
      this.stages.push(stage);
      this.trees[stage.label] = stage.tree;
    }
    return done;
  }

  /** Rolls stages' trees with at most `width` at once; records the rollouts in the given order. */
  async rollPhase(stages: readonly Stage[], width: number): Promise<Rolled[]> {
    const items = stages.map((s) => ({ label: s.label, tree: s.tree }));
    const rolled = await rollMany(rolloutInputs(this.m), items, width);
    for (const r of rolled) this.record(r);
    return rolled;
  }

  record(r: Rolled): void {
    this.rollouts[r.view.label] = r.view;
    recordRollout(this.m.scope, this.ledger, r);
  }

  /** A pool entry for a stage, with the harness it was proposed from (`baseline`). */
  poolEntry(label: string, baseline: PoolBaseline): PoolEntry {
    return {
      label,
      harnessDir: harnessDir(this.m, label),
      rollout: this.rollouts[label] ?? null,
      baseline,
    };
  }

  finish(finals: string[]): ModeResult {
    const finalTrees: Record<string, Tree> = {};
    for (const f of finals) finalTrees[f] = this.trees[f] as Tree;
    const similarity = diversity(finalTrees);
    // Checked last, as the original did; by construction it can only fire if the base count ≠ k.
    this.ledger.assertIdentity();
    const status = recursionStatus(this.stages);
    const errors =
      status === "degraded"
        ? [
            `degraded: every stage fell back (${this.stages.map((s) => s.label).join(", ")}), so the mode adapted nothing`,
          ]
        : [];
    return {
      mode: this.ledger.mode,
      taskId: this.m.scope.task,
      k: this.m.scope.k,
      stages: this.stages,
      trees: this.trees,
      rollouts: this.rollouts,
      finals,
      ledger: this.ledger,
      similarity,
      errors,
      status,
    };
  }
}

/** Runs a mode's body; an interrupt leaves with the spend the mode's ledger had recorded added. */
async function interruptible(run: ModeRun, body: () => Promise<ModeResult>): Promise<ModeResult> {
  try {
    return await body();
  } catch (err) {
    throw err instanceof InterruptedError ? err.plus(run.ledger.usd) : err;
  }
}

/** Parallel mode (docs/method.md §5). Phases are barriers: proposals → candidate rollouts → composers → final rollouts. */
export async function runParallel(inputs: ModeInputs): Promise<ModeResult> {
  const m: ModeInputs = { ...inputs, scope: { ...inputs.scope, mode: "agg" } };
  const run = new ModeRun(m, "agg");
  return interruptible(run, () => parallel(m, run));
}

async function parallel(m: ModeInputs, run: ModeRun): Promise<ModeResult> {
  const k = m.scope.k;
  const width = m.limits.phaseWidth;
  const bp = await resolvePrompts(m.adapter, m.scope.task);
  const baseDir = writeTree(m.surface, m.baseTree, harnessDir(m, BASE_BASELINE));
  const baseline = { label: BASE_BASELINE, harnessDir: baseDir };

  phase(m, "proposals");
  const proposals: StageSpec[] = [];
  for (let i = 1; i <= k; i++) {
    for (const dim of ["INV", "DOM"] as const) {
      proposals.push({
        label: `${dim.toLowerCase()}${i}`,
        dim,
        job: propose(bp, dim, m.surface, { k, index: i }),
        fallback: m.baseTree,
        harnessDir: baseDir,
      });
    }
  }
  const candidates = await run.stagesPhase(proposals, width);

  // Phases wait for each other, as in the original (docs/differences.md R20 notes the wall-time
  // cost): a probe could start as soon as its own proposal is accepted, but the phase events, the
  // ledger order and resume all rely on whole phases, and model time dominates the wait.
  phase(m, "probes");
  await run.rollPhase(candidates, width);

  phase(m, "compositions");
  // Every candidate edited the base, which is also every composer's harness: diffs against it.
  const pool = candidates.map((s) => run.poolEntry(s.label, baseline));
  const decisions = decisionsOf(candidates);
  const composers: StageSpec[] = [];
  for (let i = 1; i <= k; i++) {
    composers.push({
      label: `agg${i}`,
      dim: "AGG",
      job: aggregate(bp, m.surface, { k, index: i }),
      // Every composer falls back to the base (docs/differences.md R10 kept: the budget
      // convention).
      fallback: m.baseTree,
      harnessDir: baseDir,
      pool,
      decisions,
    });
  }
  const finals = await run.stagesPhase(composers, width);

  phase(m, "probes");
  await run.rollPhase(finals, width);
  return run.finish(finals.map((s) => s.label));
}

function composerJob(bp: BenchPrompts, m: ModeInputs, t: number): string {
  const k = m.scope.k;
  // At k = 1 the single checkpoint is composed exactly as a parallel aggregator would be.
  return k === 1
    ? aggregate(bp, m.surface, { k: 1, index: 1 })
    : composeRound(bp, m.surface, { t, k });
}

/** Sequential mode (docs/method.md §5): k rounds, each checkpoint the next round's harness and fallback. */
export async function runSequential(inputs: ModeInputs): Promise<ModeResult> {
  const m: ModeInputs = { ...inputs, scope: { ...inputs.scope, mode: "seq" } };
  const run = new ModeRun(m, "seq");
  return interruptible(run, () => sequential(m, run));
}

async function sequential(m: ModeInputs, run: ModeRun): Promise<ModeResult> {
  const k = m.scope.k;
  const width = Math.min(2, m.limits.phaseWidth);
  const bp = await resolvePrompts(m.adapter, m.scope.task);
  let current: Tree = { ...m.baseTree };
  let currentLabel = BASE_BASELINE;
  const history: PoolEntry[] = [];

  for (let t = 1; t <= k; t++) {
    const currentDir = writeTree(m.surface, current, harnessDir(m, currentLabel));
    // Fix docs/differences.md R25: this round's candidates and composer edit `current`, so their
    // diffs stay against it in every later round, not against whatever checkpoint is current then.
    const baseline = { label: currentLabel, harnessDir: currentDir };

    phase(m, "proposals");
    const earlier = decisionsOf(run.stages);
    const proposals: StageSpec[] = (["INV", "DOM"] as const).map((dim) => ({
      label: `${dim.toLowerCase()}${t}`,
      dim,
      job: propose(bp, dim, m.surface, k > 1 ? { k, index: t, roundT: t } : { k, index: t }),
      fallback: current,
      harnessDir: currentDir,
      pool: [...history],
      decisions: earlier,
    }));
    const round = await run.stagesPhase(proposals, width);

    phase(m, "probes");
    await run.rollPhase(round, width);

    phase(m, "compositions");
    const roundPool = [...history, ...round.map((s) => run.poolEntry(s.label, baseline))];
    const [composed] = await run.stagesPhase(
      [
        {
          label: `c${t}`,
          dim: "COMPOSE",
          job: composerJob(bp, m, t),
          fallback: current,
          harnessDir: currentDir,
          pool: roundPool,
          decisions: decisionsOf(run.stages),
        },
      ],
      1,
    );
    const checkpoint = composed as Stage;

    phase(m, "probes");
    run.record(await roll(rolloutInputs(m), checkpoint.label, checkpoint.tree));

    history.splice(0, history.length, ...roundPool, run.poolEntry(checkpoint.label, baseline));
    current = checkpoint.tree;
    currentLabel = checkpoint.label;
  }
  return run.finish(Array.from({ length: k }, (_, i) => `c${i + 1}`));
}

/** Dispatches to the mode's recursion. */
export function runMode(mode: string, m: ModeInputs): Promise<ModeResult> {
  if (mode === "agg") return runParallel(m);
  if (mode === "seq") return runSequential(m);
  return Promise.reject(new UnknownModeError(mode));
}
