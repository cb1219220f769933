// One WorkBuddy job of a cell, start to finish (docs/benchmarks.md "WorkBuddy-Bench: a rollout"
// and "Trial folders and failed trials"): its composition written when its turn comes, the
// checkout's runner run on it within its time budget, and each trial it wrote either moved to its
// rollout folder and marked (a rollout that ran) or moved aside as a failed rollout.

import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeRunMark } from "../../core/rollout/runmark.ts";
import { parseRunId } from "../../core/run/naming.ts";
import type { ExecuteOptions } from "../../core/seams/benchmark.ts";
import type { WbSubset, WbTask } from "./wb-data.ts";
import {
  jobTimeoutS,
  runJob,
  sweepStaleJobFiles,
  type WbAgentParams,
  type WbHarness,
  withJobSlot,
  writeJobFile,
} from "./wb-job.ts";
import { type Routes, routeVariables, type WbSettings } from "./wb-settings.ts";
import { trialFailure, trialsOf, verified } from "./wb-trials.ts";

/** What a job of this sweep runs with; a trial made with anything else is never reused. */
export type Identity = { executor: string; agent: string; model: string; route: string };

/** What a job needs of its cell. */
export type JobCell = {
  root: string;
  runsRoot: string;
  namespace: string;
  subset: WbSubset;
  executor: string;
  settings: WbSettings;
  rolloutTimeoutS: number | null;
  /** The settings the routes read (Codex's endpoint resolved). */
  routeEnv: Record<string, string | undefined>;
  env: Record<string, string | undefined>;
  rolloutDir: (runId: string) => string;
  /** Drops what the cell remembers of a run folder that is about to be replaced. */
  forget: (runDir: string) => void;
};

export type RolloutJob = {
  cell: JobCell;
  task: WbTask;
  runIds: readonly string[];
  agent: { harness: WbHarness; params: WbAgentParams; routes: Routes };
  mark: { fingerprint: string; identity: Identity };
  opts: ExecuteOptions;
};

/** Jobs started by this process: part of each job's name, so two never share a folder. */
let jobSerial = 0;

/**
 * One job for `runIds` of one task. A trial that ran is moved to its run folder and marked; one
 * that did not (its environment or agent failed, docs/benchmarks.md "WorkBuddy: failed trials")
 * is moved under `failed/` and its rollout is an error, so it is never evidence and a resume runs
 * it again.
 */
export async function runRolloutJob(req: RolloutJob): Promise<Map<string, string | Error>> {
  const { cell, task, runIds, agent, mark, opts } = req;
  const s = cell.settings;
  const root = cell.root;
  sweepStaleJobFiles(root, s.staleJobHours * 3_600_000);
  const first = parseRunId(runIds[0] as string);
  const namespace = (runIds[0] as string).split("/")[0] ?? cell.namespace;
  const label = runIds.length > 1 ? "base" : (first?.label ?? "run");
  jobSerial++;
  const jobName =
    `${namespace}-${task.id}-${label}-${Date.now().toString(36)}-${process.pid}-${jobSerial}`
      .replaceAll(/[^A-Za-z0-9._-]+/g, "-")
      .slice(0, 160);
  // Each job has its own Harbor jobs folder; the runner's own output goes beside it.
  const jobDir = join(cell.runsRoot, "jobs", jobName);
  const logDir = join(cell.runsRoot, "jobs", "logs", jobName);
  // A rollout timeout the run gives scales the task's own timeouts to it.
  const given = opts.timeoutS ?? cell.rolloutTimeoutS;
  const trialS = given ?? s.trialTimeoutS;
  const timeoutS = jobTimeoutS(runIds.length, s.concurrency, trialS, s.jobSlackS);
  const routeEnv = cell.routeEnv;
  const pass: Record<string, string> = {};
  for (const name of routeVariables(agent.routes)) {
    const value = routeEnv[name];
    if (value !== undefined && value !== "") pass[name] = value;
  }
  const exit = await withJobSlot(() => {
    // Written only once the job's turn came, and removed when its runner exits.
    const slug = writeJobFile(root, {
      subset: cell.subset,
      jobsDir: jobDir,
      jobName,
      taskId: task.id,
      attempts: runIds.length,
      concurrency: s.concurrency,
      harness: agent.harness,
      params: agent.params,
      route: agent.routes.agent.slug,
      judge: agent.routes.judge?.slug ?? null,
      timeoutMultiplier:
        given !== null && task.agentTimeoutS !== null ? given / task.agentTimeoutS : undefined,
    });
    return runJob({
      root,
      slug,
      env: cell.env,
      pass,
      timeoutS,
      graceS: s.killGraceS,
      logDir,
      signal: opts.signal,
    });
  });
  const trials = trialsOf(jobDir, [task.id]);
  const lastLine = (exit.stdoutTail + exit.stderrTail)
    .trim()
    .split("\n")
    .filter((l) => /ERROR|error:|refused/i.test(l))
    .pop();
  const why = exit.timedOut
    ? `the job ran out of its ${timeoutS} s and was stopped`
    : exit.aborted
      ? "the job was interrupted"
      : exit.code !== 0
        ? `the runner exited ${exit.code ?? exit.signal}${lastLine ? `: ${lastLine.trim()}` : ""}`
        : "the runner wrote no trial for it";
  const see = `job ${jobName}; see ${join(logDir, "runner.out")} and runner.err`;
  const out = new Map<string, string | Error>();
  for (const [i, runId] of runIds.entries()) {
    const trial = trials[i];
    if (trial === undefined) {
      out.set(runId, new Error(`rollout ${runId}: ${why} (${see}); a resume runs it again`));
      continue;
    }
    const failed = trialFailure(trial.dir, cell.executor);
    if (failed !== null) {
      const aside = join(cell.runsRoot, "failed", jobName, trial.name);
      mkdirSync(dirname(aside), { recursive: true });
      renameSync(trial.dir, aside);
      out.set(
        runId,
        new Error(
          `rollout ${runId}: ${failed} (${see}; the trial is kept in ${aside}); a resume runs it again`,
        ),
      );
      continue;
    }
    const runDir = cell.rolloutDir(runId);
    cell.forget(runDir);
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(dirname(runDir), { recursive: true });
    renameSync(trial.dir, runDir);
    // Only a trial whose verifier finished in a job that ended is marked: else it runs again.
    if (verified(runDir) && !exit.timedOut && !exit.aborted) {
      await writeRunMark(runDir, {
        runId,
        harnessFingerprint: mark.fingerprint,
        outputDir: join(runDir, "verifier"),
        extras: { identity: mark.identity, job: jobName, trial: trial.name },
      });
    }
    out.set(runId, runDir);
  }
  return out;
}
