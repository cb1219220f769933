// The JobBench cell (`--bench jb`, docs/benchmarks.md "JobBench"): one task is a profession's
// `taskN` folder; the agent works in a clean copy of its task_folder/ through whichever executor
// the CLI hands in (OpenCode: workspace_agents_md; Codex: codex_root). RUBRICS.json, the task card
// and any search references never leave the dataset: only the judge (jb-scorer.ts) reads them.

import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Harness2Error } from "../../core/lib/errors.ts";
import { copyTreeSafe, isRegularFile } from "../../core/lib/safe-fs.ts";
import { outputDirOf } from "../../core/rollout/layout.ts";
import { clearRunMark, isOutputIntact, readRunMark } from "../../core/rollout/runmark.ts";
import { leakFilter } from "../../core/safety/leak-globs.ts";
import type { BenchPrompts } from "../../core/seams/bench-prompts.ts";
import type { BenchmarkAdapter, BenchSpec, ExecuteOptions } from "../../core/seams/benchmark.ts";
import type { Executor } from "../../core/seams/executor.ts";
import { BenchDataError, type Manifest } from "../common/install.ts";
import { TableCell, TaskTable } from "../common/task-table.ts";
import {
  discoverSplit,
  INSTRUCTIONS_FILE,
  installedJobBench,
  JB_BENCH,
  type JbSplit,
  type JbTask,
} from "./jb-data.ts";
import { JB_PROMPTS, promptsForProfession, rolloutPrompt } from "./jb-prompts.ts";
import { type JbSettings, jbSettings } from "./jb-settings.ts";

/**
 * Never shown to the agent or the improver: the answer key, the judge's reports, reference answers,
 * the human task card and the main split's withheld search references.
 */
export const JB_LEAK_GLOBS = [
  "RUBRICS.json",
  "eval_result/**",
  "expected/**",
  "reference/**",
  "task_card.md",
  "files_required_to_search/**",
] as const;

/** Characters of one deliverable file's text the improver is shown (the JobBench judge's cap). */
export const JB_FILE_TEXT_MAX = 200_000;

/** The original's whole-trajectory cap; in practice nothing is cut. */
export const JB_TRAJECTORY_MAX = 8_000_000;

/** Every attempt of a rollout ended normally with nothing in output/. Carries what they spent. */
export class NoOutputError extends Harness2Error {
  constructor(
    readonly runId: string,
    readonly attempts: number,
    /** USD the attempts spent (the method books it as the dead rollout's spend). */
    readonly usd: number,
  ) {
    super(
      `rollout ${runId} wrote nothing to output/ in ${attempts} attempt(s); left unmarked, so a resume rolls it again`,
    );
  }
}

export type JbAdapterOptions = {
  /** The dependencies folder holding the checkout's manifest. */
  deps: string;
  split: JbSplit;
  runsDir: string;
  executor: Executor;
  env?: Record<string, string | undefined>;
  steps?: number;
};

export class JobBenchAdapter extends TableCell<JbTask> implements BenchmarkAdapter {
  readonly spec: BenchSpec;
  readonly manifest: Manifest;
  readonly split: JbSplit;
  protected readonly table: TaskTable<JbTask>;
  readonly #settings: JbSettings;
  /** Each task's instructions, read once. */
  readonly #instructionsOf = new Map<string, string>();

  constructor(opts: JbAdapterOptions) {
    super(opts.executor, opts.env ?? process.env, {
      fileTextMax: JB_FILE_TEXT_MAX,
      trajectoryMax: JB_TRAJECTORY_MAX,
      steps: opts.steps,
    });
    this.manifest = installedJobBench(opts.deps);
    this.split = opts.split;
    const found = discoverSplit(this.manifest.root, opts.split);
    if (found.tasks.length === 0) {
      throw new BenchDataError(
        `JobBench's ${opts.split} split in ${this.manifest.root} has no task (dataset/${opts.split}/<profession>/taskN/task_folder/${INSTRUCTIONS_FILE})`,
      );
    }
    this.table = new TaskTable(found.tasks, (t) => t.profession, `JobBench's ${opts.split} split`);
    this.#settings = jbSettings(this.env);
    this.spec = this.specOf(opts.runsDir, {
      name: JB_BENCH,
      installMode: opts.executor.installMode,
      prompts: JB_PROMPTS,
      leakGlobs: [...JB_LEAK_GLOBS],
      // Sub-agents on OpenCode only, as the original: Codex loads none.
      allowSubagents: opts.executor.allowSubagents,
    });
  }

  async taskPrompt(taskId: string): Promise<string> {
    return rolloutPrompt(this.#instructions(this.#task(taskId)));
  }

  promptsFor(taskId: string): BenchPrompts {
    return promptsForProfession(this.#task(taskId).profession);
  }

  /** The clean copy of the task folder: what the agent got, nothing the leak globs name. */
  async taskFiles(taskId: string): Promise<string | null> {
    return this.cleanInputs(this.#task(taskId));
  }

  /** `<runsRoot>/dataset/<split>/<profession>/taskN`: the rollout store of one task. */
  protected taskStoreDir(taskId: string): string {
    return this.storeDir(this.#task(taskId));
  }

  storeDir(task: JbTask): string {
    return join(this.spec.runsRoot, "dataset", this.split, task.profession, basename(task.dir));
  }

  /**
   * The task folder copied once into the store without what a leak glob names; a copy that was
   * interrupted is never used (it is built beside and renamed into place).
   */
  cleanInputs(task: JbTask): string {
    const clean = join(this.storeDir(task), "task_folder");
    if (existsSync(clean)) return clean;
    const partial = `${clean}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(dirname(clean), { recursive: true });
    copyTreeSafe(task.taskFolder, partial, { filter: leakFilter(JB_LEAK_GLOBS) });
    renameSync(partial, clean);
    return clean;
  }

  /**
   * One rollout, reused when its mark matches. A run that ends normally with nothing in output/
   * is tried again, up to HARNESS2_JB_ATTEMPTS times in all (each attempt's stream is kept beside
   * the run); when every attempt delivered nothing the run is left unmarked and fails, so a resume
   * rolls it again and the judge never reads it as a zero.
   */
  async execute(
    taskId: string,
    harnessDir: string | null,
    runId: string,
    opts: ExecuteOptions = {},
  ): Promise<string> {
    const task = this.#task(taskId);
    const runDir = this.rolloutDir(runId);
    const { model, harness, fingerprint, finished } = await this.rolloutStart(harnessDir, runDir);
    if (finished) return runDir;
    const inputsDir = this.cleanInputs(task);
    const attemptsDir = `${runDir}.attempts`;
    rmSync(attemptsDir, { recursive: true, force: true });
    let spent = 0;
    for (let attempt = 1; attempt <= this.#settings.attempts; attempt++) {
      const result = await this.substrate.execute({
        runId,
        runDir,
        harnessDir: harness,
        harnessFingerprint: fingerprint,
        inputsDir,
        prompt: rolloutPrompt(this.#instructions(task)),
        model,
        steps: this.steps,
        timeoutS: opts.timeoutS ?? this.config.rolloutTimeoutS ?? this.#settings.timeoutS,
        template: { domainFocus: task.profession },
        signal: opts.signal,
      });
      spent += result.usd;
      if (result.delivered) return runDir;
      const stream = this.substrate.streamPath(runDir);
      if (isRegularFile(stream)) {
        mkdirSync(attemptsDir, { recursive: true });
        cpSync(stream, join(attemptsDir, `attempt-${attempt}.jsonl`));
      }
    }
    await clearRunMark(runDir);
    throw new NoOutputError(runId, this.#settings.attempts, spent);
  }

  /** A reused run is intact when its output still has the fingerprint its mark recorded. */
  async artifactsIntact(runDir: string): Promise<boolean> {
    const mark = await readRunMark(runDir);
    if (mark === null || mark.outputFingerprint === null) return false;
    return isOutputIntact(runDir, outputDirOf(runDir));
  }

  #instructions(task: JbTask): string {
    let text = this.#instructionsOf.get(task.id);
    if (text === undefined) {
      text = readFileSync(join(task.taskFolder, INSTRUCTIONS_FILE), "utf8");
      this.#instructionsOf.set(task.id, text);
    }
    return text;
  }

  #task(taskId: string): JbTask {
    return this.table.get(taskId);
  }
}
