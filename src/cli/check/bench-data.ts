// `harness2 check --bench jb|lab|wb`: the benchmark data setup installed (its manifest still matching
// the data), the task count per domain, and the judge's readiness — its script, its interpreter
// importing what the judge needs, JobBench's spreadsheet runtime, and the endpoint and key — so a
// judge that would fail shows up before any rollout is paid for.

import { existsSync } from "node:fs";
import {
  BenchDataError,
  badEndpoint,
  dependenciesDir,
  judgePythonOf,
  type Manifest,
} from "../../benchmarks/common/install.ts";
import {
  discoverSplit,
  installedJobBench,
  type JbSplit,
} from "../../benchmarks/jobbench/jb-data.ts";
import { judgePython, judgeScript } from "../../benchmarks/jobbench/jb-scorer.ts";
import { discoverLab, installedLab } from "../../benchmarks/lab/lab-data.ts";
import { evaluationModule } from "../../benchmarks/lab/lab-scorer.ts";
import { resolvePython } from "../../core/lib/python.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { PaperCell } from "../bench/build-adapter.ts";
import type { CliIO } from "../command.ts";
import type { CellArgs } from "../sweep/cell-options.ts";
import type { Report } from "./report.ts";

/**
 * The judge's environment, tried for real (common/judge-env.ts): the judge's interpreter imports
 * what the judge needs (JobBench: its packages; LAB: its evaluation module, which imports its
 * own), and, for JobBench, the spreadsheet runtime its judge recalculates every .xlsx in.
 */
export async function checkJudgeEnv(
  report: Report,
  bench: "jb" | "lab",
  root: string,
  env: Record<string, string | undefined>,
): Promise<void> {
  const { probeImports, JB_JUDGE_MODULES, calcStatus } = await import(
    "../../benchmarks/common/judge-env.ts"
  );
  const python =
    bench === "jb"
      ? await judgePython(root, env).catch(() => null)
      : (judgePythonOf(root, env, "HARNESS2_LAB_JUDGE_PYTHON") ?? (await resolvePython(env)));
  const setting = bench === "jb" ? "HARNESS2_JB_JUDGE_PYTHON" : "HARNESS2_LAB_JUDGE_PYTHON";
  const install = `run \`uv sync --locked\` in ${root} (the checkout's own set-up), or set ${setting} to a python that has them`;
  if (python === null) {
    report.line("FAIL", "judge packages", "no python3 to run the judge", install);
  } else {
    const modules =
      bench === "jb" ? JB_JUDGE_MODULES.map((m) => m.module) : ["evaluation.run_eval"];
    const got = await probeImports(python, modules, root, env);
    if (got.ok) {
      report.line("ok", "judge packages", `${python} imports ${modules.join(", ")}`);
    } else if ("broken" in got) {
      report.line("FAIL", "judge packages", got.broken, install);
    } else {
      const names = Object.keys(got.failed).map(
        (m) => JB_JUDGE_MODULES.find((x) => x.module === m)?.pkg ?? m,
      );
      const first = Object.values(got.failed)[0] ?? "";
      report.line(
        "FAIL",
        "judge packages",
        `${python} cannot import ${names.join(", ")} (${first}); the judge would fail every rubric for it`,
        install,
      );
    }
  }
  if (bench === "lab") {
    // What LAB's public documentation shows of its judge that harness2 cannot see in code here
    // (docs/benchmarks.md "LAB: what is assumed"): .docx is read through pandoc.
    const { which } = await import("../../core/lib/process.ts");
    report.line(
      which("pandoc", env) === null ? "warn" : "ok",
      "pandoc",
      which("pandoc", env) === null
        ? "not on PATH: LAB's scoring reads .docx deliverables through pandoc"
        : "on PATH (LAB's scoring reads .docx deliverables through it)",
      which("pandoc", env) === null ? "install pandoc (e.g. apt-get install pandoc)" : undefined,
    );
    report.line(
      "warn",
      "LAB interface",
      "its judge's command line, run folder and scores.json follow harness2's reading of LAB's public docs, not its code; docs/benchmarks.md lists what is assumed",
      "compare against your harvey-labs checkout's evaluation/run_eval.py before a paid sweep",
    );
    return;
  }
  const calc = await calcStatus(root, env);
  if (calc.state === "not-needed") {
    report.line(
      "ok",
      "spreadsheet runtime",
      "this checkout pins none (eval/calc-runtime/Dockerfile absent)",
    );
  } else if (calc.state === "ready") {
    report.line("ok", "spreadsheet runtime", `${calc.image} is in the Docker engine`);
  } else {
    report.line(
      "FAIL",
      "spreadsheet runtime",
      `${calc.image} is not available (${calc.why}): the judge would refuse every .xlsx deliverable`,
      calc.fix,
    );
  }
}

/** The tasks found per domain, and the checkout they are in (null when setup has not run). */
export type BenchDataCheck = {
  tasks: number;
  domains: Record<string, number>;
  root: string | null;
};

type Found = {
  domains: Record<string, number>;
  problems: { path: string; problem: string }[];
  what: string;
};

const CELLS = {
  jb: {
    title: "JobBench",
    installed: installedJobBench,
    found(root: string, split: JbSplit): Found {
      const f = discoverSplit(root, split);
      return {
        domains: count(f.tasks.map((t) => t.profession)),
        problems: f.problems,
        what: `${split} tasks in {n} professions`,
      };
    },
    judge: judgeScript,
    python: "HARNESS2_JB_JUDGE_PYTHON",
    defaultModel: "grok-4.3",
  },
  lab: {
    title: "LAB",
    installed: installedLab,
    found(root: string): Found {
      const f = discoverLab(root);
      return {
        domains: count(f.tasks.map((t) => t.area)),
        problems: f.problems,
        what: "tasks in {n} practice areas",
      };
    },
    judge: evaluationModule,
    python: "HARNESS2_LAB_JUDGE_PYTHON",
    defaultModel: "(HARNESS2_JUDGE_MODEL)",
  },
} as const;

function count(names: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of names) out[n] = (out[n] ?? 0) + 1;
  return out;
}

export function checkBenchData(
  report: Report,
  bench: "jb" | "lab",
  opts: {
    env: Record<string, string | undefined>;
    cwd: string;
    dependencies: string | undefined;
    split: JbSplit;
    config: RunConfig | null;
  },
): BenchDataCheck {
  const cell = CELLS[bench];
  const deps = dependenciesDir(opts.dependencies, opts.env, opts.cwd);
  let m: Manifest;
  try {
    m = cell.installed(deps);
  } catch (err) {
    if (!(err instanceof BenchDataError)) throw err;
    const [what, fix] = err.message.split(": run ");
    report.line(
      "FAIL",
      `${cell.title} data`,
      what ?? err.message,
      `run ${fix ?? `harness2 setup --bench ${bench}`}`,
    );
    return { tasks: 0, domains: {}, root: null };
  }
  const commit = m.repo.commit ? `commit ${m.repo.commit.slice(0, 12)}, ` : "";
  report.line("ok", `${cell.title} data`, `${m.root} (${commit}set up ${m.fetchedAt})`);
  const found = cell.found(m.root, opts.split);
  for (const p of found.problems) report.line("warn", p.path, `${p.problem}: skipped`);
  const tasks = Object.values(found.domains).reduce((a, b) => a + b, 0);
  if (tasks === 0) {
    report.line(
      "FAIL",
      `${cell.title} tasks`,
      "none to run",
      `run harness2 setup --bench ${bench} again`,
    );
  } else {
    const per = Object.entries(found.domains)
      .map(([d, c]) => `${d} ${c}`)
      .join(", ");
    const what = found.what.replace("{n}", String(Object.keys(found.domains).length));
    report.line("ok", `${cell.title} tasks`, `${tasks} ${what}: ${per}`);
  }
  const script = cell.judge(m.root);
  if (!existsSync(script)) {
    report.line(
      "FAIL",
      `${cell.title} judge`,
      `no ${script.slice(m.root.length + 1)} in ${m.root}`,
      `set up from a full ${bench === "jb" ? "job-bench-eval" : "harvey-labs"} checkout`,
    );
  } else {
    const python = judgePythonOf(m.root, opts.env, cell.python) ?? "python3 on PATH";
    report.line("ok", `${cell.title} judge`, `${script}, run with ${python}`);
  }
  const c = opts.config;
  if (c !== null) {
    const missing = [
      c.judgeBaseUrl === "" ? "HARNESS2_JUDGE_BASE_URL" : "",
      c.judgeApiKey === "" ? "HARNESS2_JUDGE_API_KEY" : "",
      bench === "lab" && c.judgeModel === "" ? "HARNESS2_JUDGE_MODEL" : "",
    ].filter(Boolean);
    if (missing.length > 0) {
      const names =
        missing.length === 1
          ? (missing[0] as string)
          : `${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]}`;
      report.line(
        "FAIL",
        "judge endpoint",
        `${names} ${missing.length === 1 ? "is" : "are"} not set`,
        `set ${names} (harness2 judge needs ${missing.length === 1 ? "it" : "them"}; runs do not)`,
      );
    } else if (badEndpoint(c.judgeBaseUrl) !== null) {
      report.line(
        "FAIL",
        "judge endpoint",
        `HARNESS2_JUDGE_BASE_URL ${badEndpoint(c.judgeBaseUrl)}`,
        "set it to the judge's OpenAI-compatible endpoint, e.g. https://api.x.ai/v1",
      );
    } else {
      report.line(
        "ok",
        "judge endpoint",
        `${c.judgeBaseUrl}, model ${c.judgeModel || cell.defaultModel}`,
      );
    }
  }
  return { tasks, domains: found.domains, root: m.root };
}

/**
 * The checks of a paper benchmark's cell: its data and judge (JobBench, LAB), or WorkBuddy's data
 * and what its jobs need (check/workbuddy.ts; its Codex runs in containers, so the local Codex
 * checks are skipped for it). Returns the number of tasks found.
 */
export async function checkCell(
  report: Report,
  cell: PaperCell,
  opts: { args: CellArgs; io: CliIO; config: RunConfig | null; substrate: string },
): Promise<number> {
  const { args, io, config } = opts;
  const env = io.env;
  const dependencies = args.opts.dependencies;
  if (cell.bench === "wb") {
    const { executorFor } = await import("../bench/build-adapter.ts");
    const executor = await executorFor(opts.substrate, io);
    const { checkWorkBuddy } = await import("./workbuddy.ts");
    const subset = cell.subset;
    return checkWorkBuddy(report, { env, cwd: io.cwd, dependencies, subset, executor, config });
  }
  const split = args.opts.split === "easy" ? "easy" : "main";
  const found = checkBenchData(report, cell.bench, {
    env,
    cwd: io.cwd,
    dependencies,
    split,
    config,
  });
  if (found.root !== null) await checkJudgeEnv(report, cell.bench, found.root, env);
  return found.tasks;
}
