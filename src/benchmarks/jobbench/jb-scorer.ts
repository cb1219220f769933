// JobBench's judge, outside the method (only `harness2 judge` loads this): the benchmark's own
// `eval/judge.py` run as an external process on the layout it expects, following its public file
// contract (docs/benchmarks.md "The JobBench judge contract"):
//
//   <judging>/<split>/<profession>/taskN/RUBRICS.json                 (copied from the dataset)
//   <judging>/<split>/<profession>/taskN/model_output/<label>/…       (a copy of the run's output/)
//   <judging>/<split>/<profession>/taskN/eval_result/eval_<label>/<judge>_judge.json   (it writes)
//
// A complete report is served again without a call; one that shows a judge failure is renamed
// aside (quarantined) and judged afresh; a run that delivered nothing is a real zero built from
// the rubric weights, never a judge call. Any other failure is null (ungraded) with its log named.

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { hashFile } from "../../core/lib/fingerprint.ts";
import { pickEnv, runProcess } from "../../core/lib/process.ts";
import { pythonEnv, resolvePython } from "../../core/lib/python.ts";
import { copyTreeSafe, isRegularFile, walkFiles } from "../../core/lib/safe-fs.ts";
import { outputDirOf } from "../../core/rollout/layout.ts";
import type { Scorer } from "../../core/seams/benchmark.ts";
import { judgePythonOf } from "../common/install.ts";
import {
  discoverSplit,
  JB_BENCH,
  type JbSplit,
  type JbTask,
  jbLabel,
  RUBRICS_FILE,
} from "./jb-data.ts";
import { jbSettings } from "./jb-settings.ts";

export const JB_DEFAULT_JUDGE_MODEL = "grok-4.3";

const Rubric = z.looseObject({ weight: z.number().nonnegative().optional() });
const RubricsFile = z.union([
  z.looseObject({ rubrics: z.array(Rubric) }).transform((f) => f.rubrics),
  z.looseObject({ evaluation_rubrics: z.array(Rubric) }).transform((f) => f.evaluation_rubrics),
]);

const Report = z.looseObject({
  total_score: z.number(),
  max_score: z.number().positive(),
  passed_count: z.number().int().nonnegative(),
  total_count: z.number().int().positive(),
  pass_rate: z.string().optional(),
  judge_model: z.string().optional(),
  rubrics: z.array(z.looseObject({ result: z.unknown().optional() })),
});
type Report = z.infer<typeof Report>;

/** The judge's report filename stem: the model without a provider prefix, `.` → `-` (upstream). */
export function safeJudgeName(model: string): string {
  return (model.split("/").pop() ?? model).replaceAll(".", "-");
}

/** The rubrics of a task and their weights (1 each when unweighted). */
export function readRubrics(taskDir: string): { count: number; maxScore: number } {
  const path = join(taskDir, RUBRICS_FILE);
  const parsed = RubricsFile.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success || parsed.data.length === 0) {
    throw new Error(`${path} has no rubrics (a 'rubrics' or 'evaluation_rubrics' list)`);
  }
  const maxScore = parsed.data.reduce((n, r) => n + (r.weight ?? 1), 0);
  return { count: parsed.data.length, maxScore };
}

/**
 * Why the judge itself failed on a rubric ("" when it gave no verdict at all), or null when the
 * rubric holds a verdict. Besides a
 * result without a pass/fail verdict, the real judge (eval/judge.py `judge_rubric`) writes an
 * ordinary-looking failed rubric when it never got an answer — `Failed after N attempts: …` (a
 * missing `openai` package, an unreachable endpoint) or `Judge raised an exception: …` — which is
 * the judge's failure, not the deliverable's.
 */
export function judgeFailure(rubric: { result?: unknown }): string | null {
  const result = rubric.result as Record<string, unknown> | undefined;
  if (typeof result !== "object" || result === null || typeof result.passed !== "boolean") {
    return "";
  }
  const why = typeof result.overall_reasoning === "string" ? result.overall_reasoning : "";
  const m = /^(?:Failed after \d+ attempts: |Judge raised an exception: )([\s\S]*)$/.exec(why);
  return m ? (m[1] as string).split("\n")[0]?.trim() || "no answer" : null;
}

/** Rubrics of a report the judge failed on (see judgeFailure), and the first reason. */
function failedRubrics(report: Report): { count: number; reason: string } {
  const reasons = report.rubrics.map(judgeFailure).filter((r): r is string => r !== null);
  return { count: reasons.length, reason: reasons.find((r) => r !== "") ?? "" };
}

export type JbJudgeConfig = {
  /** The checkout (manifest root): holds `eval/judge.py` and the dataset. */
  root: string;
  split: JbSplit;
  /** `<runsDir>/jb`; the judging layout goes under its `judging/`. */
  runsRoot: string;
  model: string;
  baseUrl: string;
  apiKey: string;
  env: Record<string, string | undefined>;
};

export function judgeScript(root: string): string {
  return join(root, "eval", "judge.py");
}

/** The judge's identity: the script's own fingerprint and the judge model. */
export async function jbJudgeIdentity(cfg: JbJudgeConfig): Promise<Record<string, string>> {
  const script = judgeScript(cfg.root);
  const sha = isRegularFile(script) ? (await hashFile(script)).slice(0, 16) : "missing";
  return { scorer: "jobbench-judge", version: "1", script: sha, model: cfg.model };
}

export class JobBenchScorer implements Scorer {
  readonly #cfg: JbJudgeConfig;
  readonly #tasks: Map<string, JbTask>;

  constructor(cfg: JbJudgeConfig) {
    this.#cfg = cfg;
    this.#tasks = new Map(discoverSplit(cfg.root, cfg.split).tasks.map((t) => [t.id, t]));
  }

  async score(runDir: string, taskId: string): Promise<Record<string, unknown> | null> {
    const task = this.#tasks.get(taskId);
    if (task === undefined)
      throw new Error(`task ${taskId} is not in JobBench's ${this.#cfg.split} split`);
    const { count, maxScore } = readRubrics(task.dir);
    // rollouts/<namespace>/<label> under the task's store: the run id, hence the judge's label.
    const label = jbLabel(`${basename(dirname(runDir))}/${taskId}/${basename(runDir)}`);
    const output = outputDirOf(runDir);
    if (walkFiles(output).length === 0) {
      return {
        score: 0,
        passed: 0,
        total: count,
        total_score: 0,
        max_score: maxScore,
        no_output: true,
      };
    }
    const judging = join(
      this.#cfg.runsRoot,
      "judging",
      this.#cfg.split,
      task.profession,
      basename(task.dir),
    );
    const details = join(
      judging,
      "eval_result",
      `eval_${label}`,
      `${safeJudgeName(this.#cfg.model)}_judge.json`,
    );
    const served = this.#served(details, count);
    if (served !== null) return resultOf(served, details, true);

    mkdirSync(judging, { recursive: true });
    writeFileSync(join(judging, RUBRICS_FILE), readFileSync(join(task.dir, RUBRICS_FILE)));
    const modelOutput = join(judging, "model_output", label);
    rmSync(modelOutput, { recursive: true, force: true });
    copyTreeSafe(output, modelOutput);
    mkdirSync(dirname(details), { recursive: true });
    const log = join(judging, "eval_result", `eval_${label}`, "judge.log");
    const report = await this.#run(judging, modelOutput, details, label, log, count);
    return resultOf(report, details, false);
  }

  /** A complete, failure-free report already on disk; a failed one is renamed aside. */
  #served(details: string, count: number): Report | null {
    if (!isRegularFile(details)) return null;
    const parsed = Report.safeParse(safeJson(details));
    if (!parsed.success) {
      quarantine(details);
      return null;
    }
    // A partial report (fewer rubrics than the task has) is judged again, as upstream does.
    if (parsed.data.rubrics.length < count) return null;
    if (failedRubrics(parsed.data).count > 0) {
      quarantine(details);
      return null;
    }
    return parsed.data;
  }

  async #run(
    judging: string,
    outputDir: string,
    details: string,
    label: string,
    log: string,
    count: number,
  ): Promise<Report> {
    const cfg = this.#cfg;
    const s = jbSettings(cfg.env);
    const python = await judgePython(cfg.root, cfg.env);
    const script = judgeScript(cfg.root);
    const argv = [
      python,
      script,
      ...["--output-dir", outputDir, "--rubrics-file", join(judging, RUBRICS_FILE)],
      ...["--details-file", details, "--judge-model", cfg.model],
      ...["--api-base", cfg.baseUrl, "--api-key", cfg.apiKey],
      ...["--max-workers", String(s.judgeWorkers), "--max-retries", String(s.judgeRetries)],
      ...["--timeout-per-rubric", String(s.judgeRubricTimeoutS), "--evaluated-model", label],
      ...["--lock-file", join(dirname(details), `.${basename(details, ".json")}.lock`)],
      ...["--detail-log-dir", join(dirname(details), "detail"), "--detail-log-prefix", label],
    ];
    // Every rubric may use all its retries, a batch of `workers` at a time, plus start-up.
    const batches = Math.ceil(count / s.judgeWorkers);
    const limitS = batches * s.judgeRubricTimeoutS * (s.judgeRetries + 1) + 120;
    const exit = await runProcess({
      argv,
      cwd: dirname(script),
      env: judgeEnv(cfg.env),
      timeoutMs: limitS * 1000,
      stdoutFile: log,
      stderrFile: `${log}.stderr`,
    });
    if (exit.timedOut) throw new Error(`the JobBench judge timed out after ${limitS}s; see ${log}`);
    const refused = extractionError(details);
    if (refused !== null) {
      // eval/judge.py: evidence preparation failed (exit 2); "this is not a score of zero".
      const aside = quarantine(details);
      const fix = /Excel|calculation|setup_judge/i.test(refused)
        ? `: build its spreadsheet runtime with (cd ${cfg.root} && ./eval/setup_judge.sh), see check --bench jb`
        : "";
      throw new Error(
        `the JobBench judge refused the deliverable (${refused}); ungraded, not a zero${fix}; its report is kept as ${aside}`,
      );
    }
    if (exit.code !== 0) {
      throw new Error(
        `the JobBench judge exited with ${exit.code ?? exit.signal}: ${exit.stderrTail.trim().split("\n").pop() ?? ""}; see ${log}.stderr`,
      );
    }
    const parsed = Report.safeParse(safeJson(details));
    if (!parsed.success) {
      throw new Error(`the JobBench judge wrote no readable report at ${details}; see ${log}`);
    }
    const failed = failedRubrics(parsed.data);
    if (failed.count > 0 || parsed.data.rubrics.length < count) {
      const aside = quarantine(details);
      const env = /No module named|ModuleNotFoundError|ImportError/.test(failed.reason)
        ? "; the judge's python lacks a package: see check --bench jb"
        : "";
      throw new Error(
        `the JobBench judge failed on ${failed.count || count - parsed.data.rubrics.length} of ${count} rubrics${failed.reason ? ` (${failed.reason})` : ""}; ungraded, not a zero${env}; its report is kept as ${aside}`,
      );
    }
    return parsed.data;
  }
}

function resultOf(r: Report, details: string, cached: boolean): Record<string, unknown> {
  return {
    score: Math.min(1, Math.max(0, r.total_score / r.max_score)),
    passed: r.passed_count,
    total: r.total_count,
    total_score: r.total_score,
    max_score: r.max_score,
    all_pass: r.passed_count === r.total_count,
    ...(r.pass_rate === undefined ? {} : { pass_rate: r.pass_rate }),
    details,
    cached,
  };
}

/** The judge's own extraction error in a report it wrote instead of scores, or null. */
function extractionError(details: string): string | null {
  const report = safeJson(details) as Record<string, unknown> | null;
  if (report === null || typeof report !== "object" || report.error_type !== "extraction_error") {
    return null;
  }
  return typeof report.error === "string" && report.error !== ""
    ? report.error
    : "an extraction error";
}

function safeJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** Renames a failed report aside (`…_judge.json.judge-failed-<ms>`) and returns the new path. */
function quarantine(path: string): string {
  const aside = `${path}.judge-failed-${Date.now()}`;
  renameSync(path, aside);
  return aside;
}

/**
 * The judge's environment: python's basics, what an HTTPS client needs behind a proxy or a private
 * CA, and the benchmark's own JOBBENCH_* switches (e.g. JOBBENCH_SKIP_HF_CHECK). The endpoint and
 * key go on its command line, as upstream's runner passes them; nothing else of ours leaks in.
 */
export function judgeEnv(env: Record<string, string | undefined>): Record<string, string> {
  const more = pickEnv(env, [
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "JOBBENCH_*",
  ]);
  return pythonEnv(env, more);
}

/** HARNESS2_JB_JUDGE_PYTHON, else the checkout's own .venv, else python3. */
export async function judgePython(
  root: string,
  env: Record<string, string | undefined>,
): Promise<string> {
  const own = judgePythonOf(root, env, "HARNESS2_JB_JUDGE_PYTHON");
  if (own !== null) return own;
  const python = await resolvePython(env);
  if (python === null) throw new Error("no python3 on PATH to run the JobBench judge");
  return python;
}

export { JB_BENCH };
