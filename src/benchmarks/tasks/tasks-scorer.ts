// The `tasks` benchmark's scorer, for the judge only (src/judge, after selection): runs a task's
// own `tests/check` on a COPY of the rollout's output and reads `{"passed": n, "total": m}` from
// its stdout. Never imported by the method's run path; never writes into a run directory.

import { rmSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { pickEnv, runProcess } from "../../core/lib/process.ts";
import { copyTreeSafe } from "../../core/lib/safe-fs.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";
import { ownedTempDir } from "../../core/lib/temp-dirs.ts";
import { outputDirOf } from "../../core/rollout/layout.ts";
import type { Scorer } from "../../core/seams/benchmark.ts";
import { readTaskFolder, type TaskEntry } from "./task-folder.ts";
import { TasksFormatError } from "./tasks-adapter.ts";

const CheckVerdict = z
  .object({ passed: z.number().int().min(0), total: z.number().int().min(1) })
  .refine((v) => v.passed <= v.total, { error: "passed exceeds total" });

/**
 * The verdict a check printed: the LAST stdout line that is a JSON object with integer `passed`
 * (0 ≤ passed ≤ total) and `total` ≥ 1. Other lines (test runner chatter) are ignored.
 */
export function parseCheckOutput(stdout: string): { passed: number; total: number } | null {
  const lines = stdout.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (!line.startsWith("{")) continue;
    try {
      const v = CheckVerdict.safeParse(JSON.parse(line));
      if (v.success) return { passed: v.data.passed, total: v.data.total };
    } catch {
      // not JSON: keep looking
    }
  }
  return null;
}

export type ScoreOutcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: string };

export type TasksScorerOptions = {
  /** The task entries by id (what createTasksScorer read). */
  lookup: (taskId: string) => TaskEntry | undefined;
  env?: Record<string, string | undefined>;
};

/**
 * The judge's scorer for a task folder: every task that parses is judgeable by id. A folder that
 * yields no task at all throws TasksFormatError, as the adapter does.
 */
export function createTasksScorer(opts: {
  tasksDir: string;
  env?: Record<string, string | undefined>;
}): TasksScorer {
  const folder = readTaskFolder(opts.tasksDir, null);
  if (folder.tasks.length === 0) throw new TasksFormatError(opts.tasksDir, folder.problems);
  const byId = new Map(folder.tasks.map((t) => [t.id, t]));
  return new TasksScorer({ lookup: (id) => byId.get(id), env: opts.env });
}

export class TasksScorer implements Scorer {
  readonly #lookup: (taskId: string) => TaskEntry | undefined;
  readonly #env: Record<string, string | undefined>;

  constructor(opts: TasksScorerOptions) {
    this.#lookup = opts.lookup;
    this.#env = opts.env ?? process.env;
  }

  /** null when the task cannot be judged (no check, check failed): ungraded, never a zero. */
  async score(runDir: string, taskId: string): Promise<Record<string, unknown> | null> {
    const outcome = await this.scoreDetailed(runDir, taskId);
    return outcome.ok ? outcome.result : null;
  }

  /**
   * Runs `tests/check <copy of output dir>` with the task's tests/ folder as cwd, a minimal
   * environment and the task's check timeout. The check sees a throwaway copy, so nothing it does
   * can change the rollout (or its output fingerprint).
   */
  async scoreDetailed(runDir: string, taskId: string): Promise<ScoreOutcome> {
    const task = this.#lookup(taskId);
    if (task === undefined) return { ok: false, error: `unknown task ${JSON.stringify(taskId)}` };
    if (task.checkPath === null) {
      return { ok: false, error: `task ${taskId} has no tests/check` };
    }
    const scratch = ownedTempDir("check");
    try {
      const output = join(scratch, "output");
      copyTreeSafe(outputDirOf(runDir), output);
      const exit = await runProcess({
        argv: [task.checkPath, output],
        cwd: join(task.dir, "tests"),
        env: pickEnv(this.#env, ["PATH", "LANG", "LC_*", "TZ", "PYENV_*"], {
          HOME: scratch,
          TMPDIR: scratch,
          PYTHONDONTWRITEBYTECODE: "1",
        }),
        timeoutMs: task.checkTimeoutS * 1000,
        maxCaptureBytes: 1 << 20,
      });
      if (exit.timedOut) {
        return { ok: false, error: `tests/check timed out after ${task.checkTimeoutS}s` };
      }
      const verdict = parseCheckOutput(exit.stdout);
      if (verdict === null) {
        return {
          ok: false,
          error: `tests/check printed no {"passed": n, "total": m} line (exit ${exit.code ?? exit.signal}): ${exit.stderrTail.trim().slice(-300)}`,
        };
      }
      return {
        ok: true,
        result: {
          score: verdict.passed / verdict.total,
          passed: verdict.passed,
          total: verdict.total,
          check: relative(task.dir, task.checkPath),
          exitCode: exit.code,
        },
      };
    } catch (err) {
      if (err instanceof SpawnError) return { ok: false, error: err.message };
      throw err;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}
