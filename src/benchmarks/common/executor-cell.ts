// What a benchmark cell that runs on an executor (OpenCode or Codex) does the same way whatever the
// benchmark (docs/benchmarks.md): the rollout's output lies in its workspace's output/, the
// trajectory is the executor's own rendering under the cell's cap, deliverables are shown as text
// at the cell's per-file cap with their images, and readiness is the executor's. Cells extend it
// with what is theirs: tasks, prompts, inputs and how a rollout runs.

import { join } from "node:path";
import type { z } from "zod";
import type { Tree } from "../../core/harness/tree.ts";
import { hasDeliverable, outputDirOf } from "../../core/rollout/layout.ts";
import { isRunComplete } from "../../core/rollout/runmark.ts";
import { loadRunConfig } from "../../core/run/config.ts";
import { parseRunId } from "../../core/run/naming.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import { BenchSpec } from "../../core/seams/benchmark.ts";
import { DEFAULT_SOLVER_STEPS, type Executor } from "../../core/seams/executor.ts";
import { baselineHarnessDir, executorReady, improverChannel, joinDeliverable } from "./cell.ts";
import { deliverableImagePaths, deliverableTexts } from "./deliverables.ts";

export type CellCaps = {
  /** Characters of one deliverable file's text the improver is shown. */
  fileTextMax: number;
  /** Characters of a whole trajectory. */
  trajectoryMax: number;
  /** Agent step cap per rollout (default DEFAULT_SOLVER_STEPS). */
  steps?: number;
};

/** What a cell says of itself in its BenchSpec; the runs root and the channels are the cell's. */
export type CellSpecFields = Omit<z.input<typeof BenchSpec>, "runsRoot" | "channels">;

export abstract class ExecutorCell {
  abstract readonly spec: BenchSpec;
  readonly substrate: Executor;
  protected readonly env: Record<string, string | undefined>;
  protected readonly config: RunConfig;
  /** Agent step cap of every rollout. */
  protected readonly steps: number;
  readonly #caps: CellCaps;
  #baseDir: string | null = null;

  constructor(executor: Executor, env: Record<string, string | undefined>, caps: CellCaps) {
    this.substrate = executor;
    this.env = env;
    this.config = loadRunConfig(env);
    this.steps = caps.steps ?? DEFAULT_SOLVER_STEPS;
    this.#caps = caps;
  }

  /** The cell's BenchSpec: its own fields, `<runsDir>/<name>`, and the run's improver channel. */
  protected specOf(runsDir: string, fields: CellSpecFields): BenchSpec {
    const channel = improverChannel(this.config);
    return BenchSpec.parse({
      ...fields,
      runsRoot: join(runsDir, fields.name),
      channels: { proposer: channel, selector: channel },
    });
  }

  /** The folder holding one task's rollouts and inputs under the cell's runs root. */
  protected abstract taskStoreDir(taskId: string): string;

  /** `<task store>/rollouts/<namespace>/<label>` for a run id of this sweep. */
  rolloutDir(runId: string): string {
    const parsed = parseRunId(runId);
    if (parsed === null) throw new Error(`not a run id: ${runId}`);
    const namespace = runId.slice(0, runId.indexOf("/"));
    return join(this.taskStoreDir(parsed.taskId), "rollouts", namespace, parsed.label);
  }

  /** The starting harness tree: the executor's baseline unless the cell has its own. */
  protected baseTree(): Tree {
    return this.substrate.baselineTree();
  }

  /** The starting harness, written once under the cell's runs root. */
  async baseHarness(): Promise<string> {
    this.#baseDir ??= baselineHarnessDir(this.spec.runsRoot, this.substrate, this.baseTree());
    return this.#baseDir;
  }

  async delivered(runDir: string): Promise<boolean> {
    return hasDeliverable(outputDirOf(runDir));
  }

  async trajectory(runDir: string, opts: { obsTrunc: number }): Promise<string> {
    return this.substrate.trajectory(runDir, {
      obsTrunc: opts.obsTrunc,
      maxChars: this.#caps.trajectoryMax,
    });
  }

  async deliverableFiles(runDir: string): Promise<Record<string, string>> {
    return deliverableTexts(outputDirOf(runDir), this.env, this.#caps.fileTextMax);
  }

  async deliverableText(runDir: string): Promise<string> {
    return joinDeliverable(await this.deliverableFiles(runDir));
  }

  async deliverableImages(runDir: string): Promise<string[]> {
    return deliverableImagePaths(outputDirOf(runDir));
  }

  /**
   * What every rollout starts from: the executor ready for its model, the harness to install (the
   * cell's base for null) and its fingerprint, and whether the run at `runDir` already finished
   * with that harness (then it is reused as it is).
   */
  protected async rolloutStart(
    harnessDir: string | null,
    runDir: string,
  ): Promise<{ model: string; harness: string; fingerprint: string; finished: boolean }> {
    const model = this.substrate.modelOf(this.config);
    this.substrate.preflight(model);
    const harness = harnessDir ?? (await this.baseHarness());
    const fingerprint = await this.substrate.rolloutFingerprint(harness);
    return { model, harness, fingerprint, finished: await isRunComplete(runDir, fingerprint) };
  }

  /** No rule of the benchmark's own beyond the surface's (a cell with one overrides it). */
  async validateTree(_tree: Tree): Promise<string[]> {
    return [];
  }

  /** The executor's offline readiness, then whether its endpoint can be reached at all. */
  async preflight(): Promise<void> {
    await executorReady(this.substrate, this.config);
  }
}
