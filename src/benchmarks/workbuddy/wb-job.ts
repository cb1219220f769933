// One WorkBuddy job (docs/benchmarks.md "WorkBuddy: jobs"): a job composition in the checkout's
// own format (configs/jobs/_template.job.yaml and _reference.yaml: model, harness, dataset, harness
// backend, model connection, task selection and overrides), written into its `configs/jobs/` for
// the length of one run of its own `scripts/run.sh`, which resolves the composition into a
// manifest, renders the Harbor configuration from it and runs the trials in containers. One job
// runs at a time in a process (the containers are the machine's scarce resource); a job out of
// time has its whole process group stopped (SIGTERM, then SIGKILL after a grace); job files a
// killed process left behind are swept once they are old.

import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { Harness2Error } from "../../core/lib/errors.ts";
import { type ExitRecord, NETWORK_ENV, pickEnv, runProcess } from "../../core/lib/process.ts";
import { dirExists, isRegularFile } from "../../core/lib/safe-fs.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";
import { INSTRUCTION_SLOT } from "../../core/seams/executor.ts";
import { subsetDir, type WbSubset } from "./wb-data.ts";
import type { Route } from "./wb-settings.ts";

/** The harness families harness2 installs (wb-agents.ts); a job names one at a version. */
export type WbHarness = { family: "harness2-opencode" | "harness2-codex"; version: string };

/** What the job hands our agent, per rollout (its `harness_params_override`). */
export type WbAgentParams = { harness_workspace?: string; prompt_template_path?: string };

/** Where job files live in the checkout, and the prefix that marks ours. */
export const JOBS_CONFIG_DIR = join("configs", "jobs");
export const JOB_FILE_PREFIX = "_h2-";

export type JobRequest = {
  subset: WbSubset;
  /** The folder Harbor writes this job's run into (one per job). */
  jobsDir: string;
  jobName: string;
  taskId: string;
  attempts: number;
  concurrency: number;
  harness: WbHarness;
  params: WbAgentParams;
  route: Route["slug"];
  /** The web verifier's judge route, when the subset's verifier asks a model. */
  judge: Route["slug"] | null;
  /** Scales every timeout of the task (set when the run gives a rollout timeout). */
  timeoutMultiplier?: number;
};

/**
 * The job composition. The web subset's in-container judge needs the checkout's job-private proxy
 * (runner/judge_routing.py refuses any other connection), so web jobs use `local_proxy`; office and
 * code jobs talk to the model directly.
 */
export function jobComposition(req: JobRequest): Record<string, unknown> {
  const web = req.subset === "web";
  return {
    model: req.route,
    harness: `${req.harness.family}/${req.harness.version}`,
    dataset: `datasets/${subsetDir(req.subset)}/tasks`,
    harness_backend: "local",
    model_connection: web ? "local_proxy" : "direct",
    jobs_dir: req.jobsDir,
    n_attempts: req.attempts,
    ...(req.timeoutMultiplier === undefined ? {} : { timeout_multiplier: req.timeoutMultiplier }),
    orchestrator_override: { n_concurrent_trials: req.concurrency },
    task_selection: { mode: "name", names: [req.taskId] },
    ...(Object.keys(req.params).length === 0 ? {} : { harness_params_override: req.params }),
    ...(web && req.judge !== null ? { llm_judge_override: { model: req.judge } } : {}),
  };
}

/** Writes the job file (whole, or not at all) and returns its slug (the runner's `--job`). */
export function writeJobFile(root: string, req: JobRequest): string {
  const dir = join(root, JOBS_CONFIG_DIR);
  mkdirSync(dir, { recursive: true });
  const slug = `${JOB_FILE_PREFIX}${req.jobName}`;
  const path = join(dir, `${slug}.yaml`);
  const head = "# written by harness2 for one job; removed when the job ends\n";
  writeFileAtomic(path, `${head}${Bun.YAML.stringify(jobComposition(req), null, 2)}\n`);
  return slug;
}

/** `<checkout>/.venv/bin/<name>` when `uv sync` put it there, else null. */
export function venvTool(root: string, name: string): string | null {
  const path = join(root, ".venv", "bin", name);
  return isRegularFile(path) ? path : null;
}

/** Removes our job files older than `maxAgeMs` (a process killed mid-job leaves its file); returns them. */
export function sweepStaleJobFiles(root: string, maxAgeMs: number, now = Date.now()): string[] {
  const dir = join(root, JOBS_CONFIG_DIR);
  if (!dirExists(dir)) return [];
  const swept: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(JOB_FILE_PREFIX)) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > maxAgeMs) {
        rmSync(path, { force: true });
        swept.push(path);
      }
    } catch {
      // gone meanwhile
    }
  }
  return swept;
}

// ── one job at a time ────────────────────────────────────────────────────────────────────────

let slot: Promise<void> = Promise.resolve();

/** Runs `fn` when no other job of this process runs. */
export async function withJobSlot<T>(fn: () => Promise<T>): Promise<T> {
  const before = slot;
  let release = () => {};
  slot = new Promise<void>((r) => {
    release = r;
  });
  await before;
  try {
    return await fn();
  } finally {
    release();
  }
}

/** The job's time budget: ⌈trials / concurrency⌉ trial budgets plus the slack for image builds. */
export function jobTimeoutS(
  trials: number,
  concurrency: number,
  trialTimeoutS: number,
  slackS: number,
): number {
  return Math.ceil(trials / Math.max(1, concurrency)) * trialTimeoutS + slackS;
}

/** The runner could not be started at all. */
export class JobRunError extends Harness2Error {
  constructor(message: string) {
    super(message);
  }
}

export type RunJobOptions = {
  root: string;
  /** The job's slug (its file under configs/jobs/ without `.yaml`). */
  slug: string;
  env: Record<string, string | undefined>;
  /** Variables the runner needs besides the basics (those the routes name), with their values. */
  pass: Record<string, string>;
  timeoutS: number;
  graceS: number;
  /** stdout and stderr of the runner go to `<logDir>/runner.{out,err}`. */
  logDir: string;
  signal?: AbortSignal;
};

/**
 * Runs the checkout's own runner on one job (`scripts/run.sh --job SLUG` in the checkout, as `uv
 * run` would: the checkout's .venv first on PATH), with NO_FORCE_BUILD=1 so task images are built
 * once, AUTO_BUILD_HARNESS_MOUNT=1 so our agents' split-mount image is built on first use, and
 * INSTANCE_ID set to the job's slug; removes the job file afterwards, whatever happened.
 */
export async function runJob(opts: RunJobOptions): Promise<ExitRecord> {
  mkdirSync(opts.logDir, { recursive: true });
  const file = join(opts.root, JOBS_CONFIG_DIR, `${opts.slug}.yaml`);
  const venv = join(opts.root, ".venv");
  try {
    return await runProcess({
      argv: ["bash", join(opts.root, "scripts", "run.sh"), "--job", opts.slug],
      cwd: opts.root,
      env: pickEnv(opts.env, ["HOME", "LANG", "LC_*", "TMPDIR", "DOCKER_*", ...NETWORK_ENV], {
        ...opts.pass,
        PATH: `${join(venv, "bin")}:${opts.env.PATH ?? "/usr/bin:/bin"}`,
        VIRTUAL_ENV: venv,
        NO_FORCE_BUILD: "1",
        AUTO_BUILD_HARNESS_MOUNT: "1",
        INSTANCE_ID: opts.slug,
      }),
      timeoutMs: opts.timeoutS * 1000,
      graceMs: opts.graceS * 1000,
      stdoutFile: join(opts.logDir, "runner.out"),
      stderrFile: join(opts.logDir, "runner.err"),
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof SpawnError) {
      throw new JobRunError(
        `the WorkBuddy runner cannot start (${err.message}): is bash installed, and is ${opts.root} the checkout harness2 set up?`,
      );
    }
    throw err;
  } finally {
    rmSync(file, { force: true });
  }
}

// ── the prompt template's rule ───────────────────────────────────────────────────────────────

/**
 * What is wrong with a prompt template for the runner's template engine, which treats every
 * unknown name as an error: the instruction slot must appear exactly once, at the very end, and
 * no other `{{`, `{%` or `{#` may remain (an unknown name kills the job before its first trial;
 * `{#` silently deletes the text up to the next `#}`). [] when it is safe.
 */
export function templateProblems(composed: string): string[] {
  const problems: string[] = [];
  const count = composed.split(INSTRUCTION_SLOT).length - 1;
  if (count !== 1) {
    problems.push(
      `the composed prompt must hold the instruction slot exactly once, at its end; it holds it ${count} times (remove '${INSTRUCTION_SLOT}' from the harness files)`,
    );
  }
  const rest = composed.replace(INSTRUCTION_SLOT, "");
  for (const open of ["{{", "{%", "{#"]) {
    const at = rest.indexOf(open);
    if (at < 0) continue;
    const around = rest
      .slice(Math.max(0, at - 30), at + 30)
      .replaceAll("\n", " ")
      .trim();
    problems.push(
      `the harness text holds '${open}' (near "${around}"), which the container's template engine reads as its own syntax: reword it`,
    );
  }
  if (count === 1 && !composed.trimEnd().endsWith(INSTRUCTION_SLOT)) {
    problems.push("the instruction slot must be the last thing in the composed prompt");
  }
  return problems;
}
