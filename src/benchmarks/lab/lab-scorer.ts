// LAB's judge, outside the method (only `harness2 judge` loads this): the checkout's evaluation run
// as an external process over a copy of the run directory (docs/benchmarks.md "The LAB judge
// contract"):
//
//   <runs>/lab/judging/<area>/<task>/<namespace>/<label>/
//     output/…  metrics.json  transcript.jsonl  config.json     (copied from the run; harness2)
//     scores.json                                                (written by the evaluation)
//     judge.log  judge.stderr.log                                (its output)
//
//   cd <checkout> && python -m evaluation.run_eval --run-dir <that folder> --task <area>/<task>
//     --model <judge model>        with OPENAI_BASE_URL / OPENAI_API_KEY set to the judge endpoint
//
// A complete scores.json already there is served again; a run without metrics.json is a failed
// run, never judged; a timeout, a non-zero exit or a torn or missing scores.json leaves the row
// ungraded, naming the log to read.

import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { NETWORK_ENV, pickEnv, runProcess } from "../../core/lib/process.ts";
import { pythonEnv, resolvePython } from "../../core/lib/python.ts";
import { copyTreeSafe, isRegularFile } from "../../core/lib/safe-fs.ts";
import { outputDirOf } from "../../core/rollout/layout.ts";
import type { Scorer } from "../../core/seams/benchmark.ts";
import { judgePythonOf } from "../common/install.ts";
import { discoverLab, type LabTask } from "./lab-data.ts";
import { hasMetrics, METRICS_FILE } from "./lab-metrics.ts";
import { labSettings } from "./lab-settings.ts";

const Scores = z.looseObject({
  criteria: z.number().int().positive(),
  passed: z.number().int().nonnegative(),
  all_pass: z.boolean().optional(),
});

export type LabJudgeConfig = {
  root: string;
  /** `<runsDir>/lab`. */
  runsRoot: string;
  model: string;
  baseUrl: string;
  apiKey: string;
  env: Record<string, string | undefined>;
};

export function evaluationModule(root: string): string {
  return join(root, "evaluation", "run_eval.py");
}

export class LabScorer implements Scorer {
  readonly #cfg: LabJudgeConfig;
  readonly #tasks: Map<string, LabTask>;

  constructor(cfg: LabJudgeConfig) {
    this.#cfg = cfg;
    this.#tasks = new Map(discoverLab(cfg.root).tasks.map((t) => [t.id, t]));
  }

  async score(runDir: string, taskId: string): Promise<Record<string, unknown> | null> {
    if (!this.#tasks.has(taskId))
      throw new Error(`task ${taskId} is not in LAB at ${this.#cfg.root}`);
    if (!hasMetrics(runDir)) {
      throw new Error(
        `the run has no ${METRICS_FILE}: a LAB run without it failed and is never judged`,
      );
    }
    // <store>/rollouts/<namespace>/<label> → judging/<area>/<task>/<namespace>/<label>
    const label = basename(runDir);
    const namespace = basename(dirname(runDir));
    const judged = join(this.#cfg.runsRoot, "judging", taskId, namespace, label);
    const scores = join(judged, "scores.json");
    const cached = readScores(scores);
    if (cached !== null) return resultOf(cached, scores, true);

    rmSync(judged, { recursive: true, force: true });
    mkdirSync(judged, { recursive: true });
    copyTreeSafe(outputDirOf(runDir), join(judged, "output"));
    copyFileSync(join(runDir, METRICS_FILE), join(judged, METRICS_FILE));
    const stream = readdirSync(runDir).find((n) => n.endsWith(".jsonl"));
    if (stream !== undefined) copyFileSync(join(runDir, stream), join(judged, "transcript.jsonl"));
    writeFileSync(
      join(judged, "config.json"),
      `${JSON.stringify({ task: taskId, run: `${namespace}/${label}` }, null, 2)}\n`,
    );

    const s = labSettings(this.#cfg.env);
    const python =
      judgePythonOf(this.#cfg.root, this.#cfg.env, "HARNESS2_LAB_JUDGE_PYTHON") ??
      (await resolvePython(this.#cfg.env));
    if (python === null) throw new Error("no python3 on PATH to run LAB's evaluation");
    const log = join(judged, "judge.log");
    const exit = await runProcess({
      argv: [
        python,
        "-m",
        "evaluation.run_eval",
        "--run-dir",
        judged,
        "--task",
        taskId,
        "--model",
        this.#cfg.model,
      ],
      cwd: this.#cfg.root,
      env: pythonEnv(this.#cfg.env, {
        ...pickEnv(this.#cfg.env, [...NETWORK_ENV, "REQUESTS_CA_BUNDLE", "LAB_*"]),
        OPENAI_BASE_URL: this.#cfg.baseUrl,
        OPENAI_API_KEY: this.#cfg.apiKey,
      }),
      timeoutMs: s.judgeTimeoutS * 1000,
      stdoutFile: log,
      stderrFile: join(judged, "judge.stderr.log"),
    });
    if (exit.timedOut)
      throw new Error(`LAB's evaluation timed out after ${s.judgeTimeoutS}s; see ${log}`);
    if (exit.code !== 0) {
      const last = exit.stderrTail.trim().split("\n").pop() ?? "";
      const quota = /RESOURCE_EXHAUSTED|429/.test(exit.stderrTail)
        ? " (a quota limit: judge again later)"
        : "";
      throw new Error(
        `LAB's evaluation exited with ${exit.code ?? exit.signal}: ${last}${quota}; see ${join(judged, "judge.stderr.log")}`,
      );
    }
    const got = readScores(scores);
    if (got === null) throw new Error(`LAB's evaluation left no readable ${scores}; see ${log}`);
    return resultOf(got, scores, false);
  }
}

function readScores(path: string): z.infer<typeof Scores> | null {
  if (!isRegularFile(path)) return null;
  try {
    const parsed = Scores.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success && parsed.data.passed <= parsed.data.criteria ? parsed.data : null;
  } catch {
    return null;
  }
}

function resultOf(
  s: z.infer<typeof Scores>,
  details: string,
  cached: boolean,
): Record<string, unknown> {
  return {
    score: s.passed / s.criteria,
    passed: s.passed,
    total: s.criteria,
    all_pass: s.all_pass ?? s.passed === s.criteria,
    details,
    cached,
  };
}
