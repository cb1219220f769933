// The JobBench judge as `harness2 judge` builds it for a jb sweep: the checkout the sweep recorded
// (or the one setup installed), the judge endpoint, key and model from settings, and a refusal in
// one line, before anything is judged, when one of them is missing.

import { existsSync } from "node:fs";
import { dependenciesDir, installedJobBench, JbDataError } from "../benchmarks/jobbench/jb-data.ts";
import {
  JB_DEFAULT_JUDGE_MODEL,
  JobBenchScorer,
  jbJudgeIdentity,
  judgeScript,
} from "../benchmarks/jobbench/jb-scorer.ts";
import { loadRunConfig } from "../core/run/config.ts";
import type { BenchJudge, BenchJudgeContext } from "./bench-judges.ts";
import { CliError } from "./errors.ts";

export function jobBenchJudge(ctx: BenchJudgeContext): BenchJudge {
  const recorded = ctx.config.jbRoot;
  let root: string;
  if (typeof recorded === "string" && existsSync(recorded)) root = recorded;
  else {
    const deps =
      typeof ctx.config.dependencies === "string"
        ? ctx.config.dependencies
        : dependenciesDir(undefined, ctx.env, process.cwd());
    try {
      root = installedJobBench(deps).root;
    } catch (err) {
      if (err instanceof JbDataError) throw new CliError(err.message);
      throw err;
    }
  }
  const script = judgeScript(root);
  if (!existsSync(script)) {
    throw new CliError(
      `no JobBench judge at ${script}: run harness2 setup --bench jb again (or --from a full job-bench-eval checkout)`,
    );
  }
  const config = loadRunConfig(ctx.env);
  if (config.judgeBaseUrl === "") {
    throw new CliError(
      "no judge endpoint: set HARNESS2_JUDGE_BASE_URL to an OpenAI-compatible URL (e.g. https://api.x.ai/v1)",
    );
  }
  if (config.judgeApiKey === "") {
    throw new CliError("no judge key: set HARNESS2_JUDGE_API_KEY for the judge endpoint");
  }
  const split = ctx.config.split === "easy" ? "easy" : "main";
  const cfg = {
    root,
    split,
    runsRoot: `${ctx.runsDir}/jb`,
    model: config.judgeModel || JB_DEFAULT_JUDGE_MODEL,
    baseUrl: config.judgeBaseUrl,
    apiKey: config.judgeApiKey,
    env: ctx.env,
  } as const;
  return { scorer: new JobBenchScorer(cfg), identity: jbJudgeIdentity(cfg) };
}
