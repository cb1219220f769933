// The judges of the paper's benchmarks as `harness2 judge` builds them (docs/benchmarks.md): the
// checkout the sweep recorded (or the one setup installed), the judge endpoint, key and model from
// settings, and a refusal in one line, before anything is judged, when one of them is missing.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { badEndpoint, dependenciesDir, type Manifest } from "../../benchmarks/common/install.ts";
import { installedJobBench } from "../../benchmarks/jobbench/jb-data.ts";
import {
  JB_DEFAULT_JUDGE_MODEL,
  JobBenchScorer,
  jbJudgeIdentity,
  judgeScript,
} from "../../benchmarks/jobbench/jb-scorer.ts";
import { installedLab } from "../../benchmarks/lab/lab-data.ts";
import { evaluationModule, LabScorer } from "../../benchmarks/lab/lab-scorer.ts";
import { checkoutOfSource } from "../../core/events/bench-source.ts";
import { hashFile } from "../../core/lib/fingerprint.ts";
import { loadRunConfig } from "../../core/run/config.ts";
import { CliError } from "../errors.ts";
import { type BenchJudge, type BenchJudgeContext, trustedPath } from "./judge-context.ts";

/** The checkout the sweep recorded (never an imported sweep's), else the one installed now. */
function checkoutOf(ctx: BenchJudgeContext, installed: (deps: string) => Manifest): string {
  // An imported sweep's recorded paths are not trusted: only this installation's checkout.
  const recorded = checkoutOfSource(ctx.source);
  const root = trustedPath(ctx, recorded.root);
  if (root !== undefined && existsSync(root)) return root;
  const deps =
    trustedPath(ctx, recorded.dependencies) ?? dependenciesDir(undefined, ctx.env, process.cwd());
  return installed(deps).root;
}

function endpoint(ctx: BenchJudgeContext): { model: string; baseUrl: string; apiKey: string } {
  const config = loadRunConfig(ctx.env);
  if (config.judgeBaseUrl === "") {
    throw new CliError(
      "no judge endpoint: set HARNESS2_JUDGE_BASE_URL to an OpenAI-compatible URL (e.g. https://api.x.ai/v1)",
    );
  }
  const bad = badEndpoint(config.judgeBaseUrl);
  if (bad !== null) {
    throw new CliError(
      `HARNESS2_JUDGE_BASE_URL ${bad}: set it to the judge's OpenAI-compatible endpoint, e.g. https://api.x.ai/v1`,
    );
  }
  if (config.judgeApiKey === "") {
    throw new CliError("no judge key: set HARNESS2_JUDGE_API_KEY for the judge endpoint");
  }
  return { model: config.judgeModel, baseUrl: config.judgeBaseUrl, apiKey: config.judgeApiKey };
}

export async function jobBenchJudge(ctx: BenchJudgeContext): Promise<BenchJudge> {
  const root = checkoutOf(ctx, installedJobBench);
  const script = judgeScript(root);
  if (!existsSync(script)) {
    throw new CliError(
      `no JobBench judge at ${script}: run harness2 setup --bench jb again (or --from a full job-bench-eval checkout)`,
    );
  }
  const e = endpoint(ctx);
  const cfg = {
    root,
    split: ctx.source?.kind === "jb" ? ctx.source.split : "main",
    runsRoot: join(ctx.runsDir, "jb"),
    ...e,
    model: e.model || JB_DEFAULT_JUDGE_MODEL,
    env: ctx.env,
  } as const;
  return { scorer: new JobBenchScorer(cfg), identity: await jbJudgeIdentity(cfg) };
}

export async function labJudge(ctx: BenchJudgeContext): Promise<BenchJudge> {
  const root = checkoutOf(ctx, installedLab);
  const module = evaluationModule(root);
  if (!existsSync(module)) {
    throw new CliError(
      `no LAB evaluation at ${module}: run harness2 setup --bench lab again (or --from a full harvey-labs checkout)`,
    );
  }
  const e = endpoint(ctx);
  if (e.model === "") {
    throw new CliError(
      "no judge model: set HARNESS2_JUDGE_MODEL to the model LAB's evaluation should use",
    );
  }
  const scorer = new LabScorer({ root, runsRoot: join(ctx.runsDir, "lab"), ...e, env: ctx.env });
  return {
    scorer,
    identity: {
      scorer: "lab-evaluation",
      version: "1",
      script: (await hashFile(module)).slice(0, 16),
      model: e.model,
    },
  };
}
