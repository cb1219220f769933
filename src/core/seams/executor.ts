// The executor seam: what a benchmark adapter asks of an executor framework (OpenCode, Codex)
// to run one rollout of a harness, and what it gets back. Only src/cli picks a concrete one and
// hands it to the adapter, so running a benchmark on another executor is wiring, not a rewrite.

import type { SurfaceSpec, Tree } from "../harness/surface.ts";
import { Harness2Error } from "../lib/errors.ts";
import type { RunConfig } from "../run/run-config.ts";

/** How a substrate's staged harness becomes a runnable configuration (docs/method.md §2). */
export const INSTALL_MODES = [
  "workspace_agents_md",
  "home_dir_jinja",
  "workspace_config",
  "codex_root",
] as const;
export type InstallMode = (typeof INSTALL_MODES)[number];

/** Agent step cap of a rollout unless the benchmark sets one (the original's LAB turn cap). */
export const DEFAULT_SOLVER_STEPS = 200;

/** Values for the `{{ token }}` slots of a harness's always-on files. */
export type RolloutTemplate = {
  /** What the environment is, in one sentence. */
  envDescription?: string;
  /** The task's domain. */
  domainFocus?: string;
  /** Today's UTC date, YYYY-MM-DD (default: now). */
  date?: string;
  /** The workspace path (default: the destination directory). */
  workingDirectory?: string;
};

/**
 * What a benchmark's runtime adds to a rollout's workspace beyond the harness (LAB's
 * `workspace_config`, docs/benchmarks.md): never part of the editable surface.
 */
export type RolloutInstall = {
  /** Files written after the harness (e.g. `scripts/read_doc.py`); they replace one of the same path. */
  runtimeFiles?: Readonly<Record<string, string>>;
  /** Text appended last to the workspace's AGENTS.md (created when the harness renders none). */
  agentsNote?: string;
  /** OpenCode: only the base tools in opencode.json (no web, no sub-agents; skills if any). */
  toolGate?: boolean;
};

/** Follow-up messages when a rollout's agent stops early (an executor that cannot continue a session ignores them). */
export type RolloutNudges = {
  /** At most this many follow-ups. */
  max: number;
  /** The follow-up for the workspace's output folder as it is now, or null when none is needed. */
  next(outputDir: string): string | null;
};

export type RolloutRequest = {
  runId: string;
  /** The rollout's own directory; wiped and recreated. */
  runDir: string;
  harnessDir: string;
  /** Recorded in the run mark; the caller decides how a base harness is fingerprinted. */
  harnessFingerprint: string;
  /** Copied into the workspace root; null when the task has no inputs. */
  inputsDir: string | null;
  prompt: string;
  model: string;
  steps: number;
  timeoutS: number;
  template?: RolloutTemplate;
  install?: RolloutInstall;
  nudges?: RolloutNudges;
  signal?: AbortSignal;
};

export type RolloutResult = {
  runDir: string;
  usd: number;
  wallS: number;
  /** At least one non-empty file under the output dir. */
  delivered: boolean;
  /** Follow-up messages sent (RolloutRequest.nudges); absent when none could be. */
  nudges?: number;
};

/**
 * A harness as a container agent installs it (install modes `home_dir_jinja` and `codex_root`,
 * docs/benchmarks.md "WorkBuddy"): the files to hand the container, the prompt template the
 * agent's instruction is placed into (null when the framework reads its instructions from files).
 */
export type ContainerInstall = {
  files: Tree;
  promptTemplate: string | null;
};

/** The one slot of a container prompt template: the task's instruction, placed at its end. */
export const INSTRUCTION_SLOT = "{{ instruction }}";

/**
 * An executor cannot run at all (no binary, no model, no endpoint, a bad setting): retrying cannot
 * help. The reason and the remedy are kept apart, so `check` prints them as its FAIL line and fix.
 */
export class ExecutorSetupError extends Harness2Error {
  constructor(
    executor: string,
    readonly reason: string,
    readonly hint: string,
  ) {
    super(`${executor} executor: ${reason}. ${hint}`);
  }
}

/** A substrate as the method sees it: its name (part of every namespace) and editable surface. */
export interface SubstrateLike {
  /** "oc" or "cx". */
  readonly name: string;
  surface(): SurfaceSpec;
}

/** A substrate that can run rollouts. */
export interface Executor extends SubstrateLike {
  /** How a staged harness becomes this framework's configuration (docs/method.md §2). */
  readonly installMode: InstallMode;
  /** Whether the framework can load the tree's `sub_agents/`. */
  readonly allowSubagents: boolean;
  /** The folder of a task folder's root that holds its starting harness for this framework. */
  readonly baseHarnessFolder: string;
  /** The framework's starting harness, for tasks that bring none. */
  baselineTree(): Tree;
  /** The executor model id this framework is given, from the run configuration. */
  modelOf(config: RunConfig): string;
  /** Names the harness as it will be rendered: a changed renderer re-rolls instead of reusing. */
  rolloutFingerprint(harnessDir: string): Promise<string>;
  /** Offline readiness for running `model`; throws with the fix, starts nothing. */
  preflight(model: string): void;
  /** Whether the model endpoint can be reached at all (before anything is spent); sends no request. */
  reachable?(model: string): Promise<void>;
  /** One rollout; a run mark is written only after a normal finish. */
  execute(req: RolloutRequest): Promise<RolloutResult>;
  /** The rollout in the shared trajectory grammar; `maxChars` caps the whole text. */
  trajectory(runDir: string, opts: { obsTrunc: number; maxChars: number }): Promise<string>;
  /** The raw record of what the rollout did (its event stream), which a finished run keeps. */
  streamPath(runDir: string): string;
  /** An event stream of this framework at `streamFile` in the shared trajectory grammar. */
  renderStream(streamFile: string, opts: { obsTrunc: number; maxChars: number }): Promise<string>;
  /** A harness tree as this framework's agent in a container installs it (reads no file). */
  containerInstall(tree: Tree, template: RolloutTemplate): ContainerInstall;
}
