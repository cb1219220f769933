// `harness2 check --bench jb`: the JobBench data setup installed (its manifest still matching the
// data), the task count per profession, and the judge's readiness — its script, a python for it,
// and the endpoint and key — so a missing judge shows up before any rollout is paid for.

import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  dependenciesDir,
  discoverSplit,
  installedJobBench,
  JbDataError,
  type JbSplit,
} from "../../benchmarks/jobbench/jb-data.ts";
import { judgeScript } from "../../benchmarks/jobbench/jb-scorer.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { Report } from "./report.ts";

export type JbCheck = { tasks: number; domains: Record<string, number> };

export function checkJobBench(
  report: Report,
  opts: {
    env: Record<string, string | undefined>;
    cwd: string;
    dependencies: string | undefined;
    split: JbSplit;
    config: RunConfig | null;
  },
): JbCheck {
  const deps = dependenciesDir(opts.dependencies, opts.env, opts.cwd);
  let root: string;
  try {
    const m = installedJobBench(deps);
    root = m.root;
    const commit = m.repo.commit ? `commit ${m.repo.commit.slice(0, 12)}, ` : "";
    report.line("ok", "JobBench data", `${root} (${commit}set up ${m.fetchedAt})`);
  } catch (err) {
    if (!(err instanceof JbDataError)) throw err;
    report.line(
      "FAIL",
      "JobBench data",
      err.message.split(": run ")[0] ?? err.message,
      `run ${err.message.split(": run ")[1] ?? "harness2 setup --bench jb"}`,
    );
    return { tasks: 0, domains: {} };
  }
  const found = discoverSplit(root, opts.split);
  const domains: Record<string, number> = {};
  for (const t of found.tasks) domains[t.profession] = (domains[t.profession] ?? 0) + 1;
  for (const p of found.problems) report.line("warn", p.path, `${p.problem}: skipped`);
  const n = Object.keys(domains).length;
  if (found.tasks.length === 0) {
    report.line(
      "FAIL",
      "JobBench tasks",
      `the ${opts.split} split has no task`,
      "run harness2 setup --bench jb again, or use --split easy",
    );
  } else {
    const per = Object.entries(domains)
      .map(([d, c]) => `${d} ${c}`)
      .join(", ");
    report.line(
      "ok",
      "JobBench tasks",
      `${found.tasks.length} ${opts.split} tasks in ${n} professions: ${per}`,
    );
  }
  const script = judgeScript(root);
  if (!existsSync(script)) {
    report.line(
      "FAIL",
      "JobBench judge",
      `no eval/judge.py in ${root}`,
      "set up from a full job-bench-eval checkout",
    );
  } else {
    const venv = join(root, ".venv", "bin", "python");
    const python =
      opts.env.HARNESS2_JB_JUDGE_PYTHON || (existsSync(venv) ? venv : "python3 on PATH");
    report.line("ok", "JobBench judge", `${script}, run with ${python}`);
  }
  const c = opts.config;
  if (c !== null) {
    if (c.judgeBaseUrl === "" || c.judgeApiKey === "") {
      report.line(
        "FAIL",
        "judge endpoint",
        c.judgeBaseUrl === ""
          ? "HARNESS2_JUDGE_BASE_URL is not set"
          : "HARNESS2_JUDGE_API_KEY is not set",
        "set HARNESS2_JUDGE_BASE_URL and HARNESS2_JUDGE_API_KEY (harness2 judge needs both; runs do not)",
      );
    } else
      report.line("ok", "judge endpoint", `${c.judgeBaseUrl}, model ${c.judgeModel || "grok-4.3"}`);
  }
  return { tasks: found.tasks.length, domains };
}
