// The trials a WorkBuddy job wrote (docs/benchmarks.md "WorkBuddy: trial folders"). Harbor writes
// each trial as `<jobs_dir>/<run>/<task>__<random>/` (the checkout's runner/sharded_eval.py reads
// them either directly under the job folder or one level deeper), with `result.json` (its
// `verifier_result.rewards.reward`, `exception_info`), `agent/` (the agent's logs) and `verifier/`
// (reward.json, score.json). This module finds a job's trials, maps them back to their task, and
// says whether a trial is a rollout that ran — its environment started, its agent ran and its
// verifier finished — or a failed one (kept out of the evidence, run again on resume).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dirExists, isRegularFile, subdirectories } from "../../core/lib/safe-fs.ts";

/** Where a trial's verifier writes its verdict (read only by the judge, wb-scorer.ts). */
export const SCORE_FILE = join("verifier", "score.json");
export const RESULT_FILE = "result.json";

/** How much of a task's name Harbor may keep in a trial's name. */
export const TRIAL_NAME_KEEP = 32;

/** The agent's event stream in a trial, per executor (what our agents tee to /logs/agent). */
export const AGENT_STREAM: Record<string, string> = {
  oc: join("agent", "opencode-output.jsonl"),
  cx: join("agent", "codex-output.jsonl"),
};

export type Trial = { name: string; dir: string; taskId: string };

/** The task of a trial name among `taskIds`, or null when none (or more than one) fits. */
export function taskOfTrial(name: string, taskIds: readonly string[]): string | null {
  const cut = name.lastIndexOf("__");
  if (cut <= 0) return null;
  const prefix = name.slice(0, cut);
  const fits = taskIds.filter((t) => t === prefix || t.slice(0, TRIAL_NAME_KEEP) === prefix);
  return fits.length === 1 ? (fits[0] as string) : null;
}

/** The trials under a job's folder (at most two levels down) that belong to `taskIds`, in name order. */
export function trialsOf(jobDir: string, taskIds: readonly string[]): Trial[] {
  if (!dirExists(jobDir)) return [];
  const out: Trial[] = [];
  const visit = (dir: string, depth: number) => {
    for (const name of subdirectories(dir).sort()) {
      if (name.startsWith(".")) continue;
      const taskId = taskOfTrial(name, taskIds);
      if (taskId !== null) out.push({ name, dir: join(dir, name), taskId });
      else if (depth < 2) visit(join(dir, name), depth + 1);
    }
  };
  visit(jobDir, 1);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Whether the trial's verifier finished (wrote its score file). */
export function verified(trialDir: string): boolean {
  return existsSync(join(trialDir, SCORE_FILE));
}

/** Why a trial is not a rollout that ran, or null when it is one. */
export function trialFailure(trialDir: string, executor: string): string | null {
  const resultPath = join(trialDir, RESULT_FILE);
  if (!isRegularFile(resultPath))
    return "Harbor wrote no result.json for the trial (it stopped before the trial ended)";
  let result: Record<string, unknown>;
  try {
    const parsed = JSON.parse(readFileSync(resultPath, "utf8")) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
    result = parsed as Record<string, unknown>;
  } catch {
    return "the trial's result.json is not a JSON object";
  }
  const verifier = result.verifier_result;
  if (verifier === null || verifier === undefined) {
    const exc = result.exception_info as Record<string, unknown> | null | undefined;
    const what =
      exc && typeof exc === "object"
        ? `${String(exc.exception_type ?? "an error")}: ${String(exc.exception_message ?? "").split("\n")[0]}`
        : "no error was recorded";
    return `the trial's environment or agent failed before its verifier ran (${what})`;
  }
  const stream = AGENT_STREAM[executor] ?? (AGENT_STREAM.oc as string);
  if (!isRegularFile(join(trialDir, stream)))
    return `the agent never ran (the trial has no ${stream})`;
  if (!verified(trialDir)) return "the verifier wrote no score.json";
  return null;
}
