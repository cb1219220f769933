// The `tasks` benchmark: a user's own task folder, run by whichever executor the CLI hands it
// (OpenCode, install mode workspace_agents_md; or Codex, codex_root). The method sees instructions, inputs,
// trajectories and output files; the answer key (tests/) reaches only the judge, through
// TasksScorer.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tree } from "../../core/harness/tree.ts";
import { Harness2Error } from "../../core/lib/errors.ts";
import { isRegularFile, walkFiles } from "../../core/lib/safe-fs.ts";
import { hasDeliverable, outputDirOf } from "../../core/rollout/layout.ts";
import { isOutputIntact, isRunComplete, readRunMark } from "../../core/rollout/runmark.ts";
import { loadRunConfig } from "../../core/run/config.ts";
import { parseRunId, taskSlug } from "../../core/run/naming.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { BenchPrompts } from "../../core/seams/bench-prompts.ts";
import {
  type BenchmarkAdapter,
  BenchSpec,
  type ExecuteOptions,
} from "../../core/seams/benchmark.ts";
import { DEFAULT_SOLVER_STEPS, type Executor } from "../../core/seams/executor.ts";
import {
  baselineHarnessDir,
  executorReady,
  improverChannel,
  joinDeliverable,
} from "../common/cell.ts";
import { reservedStringProblems } from "./reserved-strings.ts";
import {
  answerKeyGlobs,
  formatProblem,
  readTaskFolder,
  type TaskEntry,
  type TaskFolder,
  type TaskProblem,
} from "./task-folder.ts";
import { composeTaskPrompt, promptsForDomain } from "./tasks-prompts.ts";

export const TASKS_BENCH = "tasks";
/** Rollout limit when neither HARNESS2_ROLLOUT_TIMEOUT nor task.toml sets one. */
export const DEFAULT_TASK_TIMEOUT_S = 1800;
/**
 * Whole-trajectory cap. As large as the original JobBench adapter's, so in practice no trajectory
 * is cut; when one is, its middle goes and a marker says so (render.ts).
 */
export const TRAJECTORY_MAX_CHARS = 8_000_000;
/** Largest part of one output file shown as text (the rest is cut with a note). */
const DELIVERABLE_TEXT_MAX = 2_000_000;

/** Problems quoted in a TasksFormatError message; `harness2 check` prints every one. */
export const TASK_PROBLEMS_SHOWN = 3;

/** The task folder has problems and strict mode refuses to skip the malformed tasks. */
export class TasksFormatError extends Harness2Error {
  constructor(
    readonly root: string,
    readonly problems: readonly TaskProblem[],
  ) {
    // The first few problems name what to fix; a long list would bury them in one line.
    const shown = problems.slice(0, TASK_PROBLEMS_SHOWN).map(formatProblem).join(" | ");
    const more =
      problems.length > TASK_PROBLEMS_SHOWN
        ? ` | … and ${problems.length - TASK_PROBLEMS_SHOWN} more (harness2 check --tasks '${root}' lists them all)`
        : "";
    super(
      `task folder '${root}' has ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${shown}${more}`,
    );
  }

  /** The folder's only problem is that it holds no task at all (the wrong folder, not a bad one). */
  get empty(): boolean {
    const only = this.problems.length === 1 ? this.problems[0] : undefined;
    return only?.path === this.root && only.problem === "holds no tasks";
  }
}

/** A task id (or split) this folder does not have. */
export class UnknownTaskError extends Harness2Error {
  constructor(
    readonly root: string,
    readonly what: string,
    readonly known: readonly string[],
  ) {
    super(`${what} is not in ${root} (known: ${known.join(", ") || "none"})`);
  }
}

export type TasksAdapterOptions = {
  tasksDir: string;
  /** Root of all run state; this benchmark writes under `<runsDir>/tasks`. */
  runsDir: string;
  env?: Record<string, string | undefined>;
  /** The executor that runs every rollout (the CLI chooses it from --substrate). */
  executor: Executor;
  /** Refuse a folder with any problem (TasksFormatError) instead of skipping malformed tasks. */
  strict?: boolean;
  /** Agent step cap per rollout (default DEFAULT_SOLVER_STEPS). */
  steps?: number;
};

export class TasksAdapter implements BenchmarkAdapter {
  readonly spec: BenchSpec;
  readonly substrate: Executor;
  readonly folder: TaskFolder;
  readonly #byId: Map<string, TaskEntry>;
  readonly #config: RunConfig;
  readonly #steps: number;
  #baseDir: string | null = null;

  constructor(folder: TaskFolder, opts: TasksAdapterOptions) {
    const env = opts.env ?? process.env;
    this.folder = folder;
    this.#byId = new Map(folder.tasks.map((t) => [t.id, t]));
    this.#config = loadRunConfig(env);
    this.#steps = opts.steps ?? DEFAULT_SOLVER_STEPS;
    const channel = improverChannel(this.#config);
    this.spec = BenchSpec.parse({
      name: TASKS_BENCH,
      runsRoot: join(opts.runsDir, TASKS_BENCH),
      installMode: opts.executor.installMode,
      prompts: folder.prompts.prompts,
      channels: { proposer: channel, selector: channel },
      leakGlobs: answerKeyGlobs(folder.tasks),
      // OpenCode installs sub-agents as .opencode/agent/<n>.md; Codex cannot load any.
      allowSubagents: opts.executor.allowSubagents,
    });
    this.substrate = opts.executor;
  }

  async tasks(split = "all"): Promise<string[]> {
    if (split === "all") return [...this.#byId.keys()];
    const domains = [...new Set(this.folder.tasks.map((t) => t.domain))].sort();
    if (!domains.includes(split)) {
      throw new UnknownTaskError(this.folder.root, `split '${split}'`, ["all", ...domains]);
    }
    return this.folder.tasks.filter((t) => t.domain === split).map((t) => t.id);
  }

  domainOf(taskId: string): string {
    return this.#task(taskId).domain;
  }

  async taskPrompt(taskId: string): Promise<string> {
    return composeTaskPrompt(this.#promptInput(this.#task(taskId)));
  }

  promptsFor(taskId: string): BenchPrompts {
    return promptsForDomain(this.folder.prompts, this.#task(taskId).domain);
  }

  /** The task's inputs/ only: task.md, task.toml and tests/ never reach the improver as source. */
  async taskFiles(taskId: string): Promise<string | null> {
    return this.#task(taskId).inputsDir;
  }

  /**
   * The folder's own starting harness for the executor (`harness/`, `harness-codex/`) when it has
   * one; otherwise the executor's baseline tree, written once to `<runsRoot>/base-harness` (for
   * OpenCode) or `<runsRoot>/base-harness-<substrate>`, so two executors never share one.
   */
  async baseHarness(): Promise<string> {
    if (this.folder.baseHarness !== null) return this.folder.baseHarness;
    this.#baseDir ??= baselineHarnessDir(this.spec.runsRoot, this.substrate);
    return this.#baseDir;
  }

  /** `<runsRoot>/rollouts/<namespace>/<task slug>/<label>` (a slug of the whole id otherwise). */
  rolloutDir(runId: string): string {
    const parsed = parseRunId(runId);
    const root = join(this.spec.runsRoot, "rollouts");
    if (parsed === null) return join(root, "_other", taskSlug(runId));
    const namespace = runId.slice(0, runId.indexOf("/"));
    return join(root, namespace, taskSlug(parsed.taskId), parsed.label);
  }

  /**
   * One rollout (see executeRollout), reused when its run mark matches the harness and the
   * materialiser version. A null harness is the base, fingerprinted by its directory so an
   * edited base re-rolls.
   */
  async execute(
    taskId: string,
    harnessDir: string | null,
    runId: string,
    opts: ExecuteOptions = {},
  ): Promise<string> {
    const task = this.#task(taskId);
    const model = this.substrate.modelOf(this.#config);
    this.substrate.preflight(model);
    const harness = harnessDir ?? (await this.baseHarness());
    // Source tree + materialiser version (docs/differences.md H12): a changed rendering re-rolls.
    const fingerprint = await this.substrate.rolloutFingerprint(harness);
    const runDir = this.rolloutDir(runId);
    if (await isRunComplete(runDir, fingerprint)) return runDir;
    await this.substrate.execute({
      runId,
      runDir,
      harnessDir: harness,
      harnessFingerprint: fingerprint,
      inputsDir: task.inputsDir,
      prompt: composeTaskPrompt(this.#promptInput(task)),
      model,
      steps: this.#steps,
      timeoutS: opts.timeoutS ?? task.timeoutS ?? DEFAULT_TASK_TIMEOUT_S,
      template: { domainFocus: task.domain },
      signal: opts.signal,
    });
    return runDir;
  }

  async delivered(runDir: string): Promise<boolean> {
    return hasDeliverable(outputDirOf(runDir));
  }

  async trajectory(runDir: string, opts: { obsTrunc: number }): Promise<string> {
    return this.substrate.trajectory(runDir, {
      obsTrunc: opts.obsTrunc,
      maxChars: TRAJECTORY_MAX_CHARS,
    });
  }

  /** Output file (relative to output/) → its text; binary files are named, not decoded. */
  async deliverableFiles(runDir: string): Promise<Record<string, string>> {
    const out = outputDirOf(runDir);
    const files: Record<string, string> = {};
    for (const rel of walkFiles(out)) files[rel] = readDeliverable(join(out, rel));
    return files;
  }

  async deliverableText(runDir: string): Promise<string> {
    return joinDeliverable(await this.deliverableFiles(runDir));
  }

  /**
   * A reused run is intact when its output still has the fingerprint its mark recorded, or — for
   * a run that delivered nothing — when it still delivers nothing and its stream is still there.
   */
  async artifactsIntact(runDir: string): Promise<boolean> {
    const mark = await readRunMark(runDir);
    if (mark === null) return false;
    const output = outputDirOf(runDir);
    if (mark.outputFingerprint === null) {
      return !hasDeliverable(output) && isRegularFile(this.substrate.streamPath(runDir));
    }
    return isOutputIntact(runDir, output);
  }

  async validateTree(_tree: Tree): Promise<string[]> {
    return [];
  }

  /** The executor's offline readiness, then whether its endpoint can be reached at all. */
  async preflight(): Promise<void> {
    await executorReady(this.substrate, this.#config);
  }

  #promptInput(task: TaskEntry) {
    return {
      instructions: task.instructions,
      deliverables: task.deliverables,
      hasInputs: task.inputsDir !== null,
    };
  }

  #task(taskId: string): TaskEntry {
    const task = this.#byId.get(taskId);
    if (task === undefined) {
      throw new UnknownTaskError(this.folder.root, `task '${taskId}'`, [...this.#byId.keys()]);
    }
    return task;
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function readDeliverable(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    return `(unreadable: ${(err as Error).message})`;
  }
  const head = bytes.subarray(0, DELIVERABLE_TEXT_MAX);
  let text: string;
  try {
    text = UTF8.decode(head);
  } catch {
    if (bytes.length <= DELIVERABLE_TEXT_MAX) return `(binary file, ${bytes.length} bytes)`;
    text = new TextDecoder("utf-8").decode(head);
  }
  return bytes.length > DELIVERABLE_TEXT_MAX
    ? `${text}\n…(file cut at ${DELIVERABLE_TEXT_MAX} of ${bytes.length} bytes)`
    : text;
}

export type CreatedTasksBench = {
  adapter: TasksAdapter;
  /** Malformed tasks (skipped); empty in strict mode, which throws instead. */
  problems: readonly TaskProblem[];
};

/**
 * Builds the `tasks` benchmark from a folder: the adapter and the problems found. With `strict`,
 * any problem throws TasksFormatError; otherwise malformed tasks are skipped. A folder that yields
 * no task at all always throws. The judge builds its scorer separately (createTasksScorer), so the
 * method's run path never loads the code that runs an answer key.
 */
export function createTasksAdapter(opts: TasksAdapterOptions): CreatedTasksBench {
  const folder = readTaskFolder(
    opts.tasksDir,
    opts.executor.surface(),
    opts.executor.baseHarnessFolder,
  );
  // A task file holding a reserved string refuses the folder before anything is spent.
  const problems = [...folder.problems, ...reservedStringProblems(folder.tasks)];
  // A problem that could leak an answer key or escape the workspace refuses the folder, strict
  // or not: skipping such a task is not enough when the same input sits in another one.
  const refused = problems.some((p) => p.refuses === true);
  if ((opts.strict && problems.length > 0) || folder.tasks.length === 0 || refused) {
    throw new TasksFormatError(opts.tasksDir, problems);
  }
  return { adapter: new TasksAdapter(folder, opts), problems };
}
