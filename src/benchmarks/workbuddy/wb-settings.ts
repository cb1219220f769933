// WorkBuddy's own settings (docs/benchmarks.md "Settings"), each with the original's default, and
// the model routes its jobs name, in the checkout's model schema (configs/models/
// _template.model.yaml: a `model:` block with the backend's model id, its wire protocols and the
// NAMES of the variables holding its URL and key): `harness2/solver` (OpenCode's model as the
// containers reach it), `harness2/codex` (Codex's) and `harness2/judge` (the model the web
// verifier asks), written into `configs/models/harness2/`. A key never goes into a route file.

import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { badEndpoint } from "../common/install.ts";
import { type IntSetting, readIntSettings } from "../common/settings.ts";

type WbInt = "trialTimeoutS" | "jobSlackS" | "concurrency" | "killGraceS" | "staleJobHours";

export const WB_SETTINGS: readonly IntSetting<WbInt>[] = [
  {
    name: "HARNESS2_WB_TRIAL_TIMEOUT",
    key: "trialTimeoutS",
    default: 4320,
    help: "time one trial may take in a job's budget, s (a job gets ⌈trials/concurrency⌉ of them plus the slack)",
  },
  {
    name: "HARNESS2_WB_JOB_SLACK",
    key: "jobSlackS",
    default: 900,
    min: 0,
    help: "seconds a job gets beyond its trials, for building images",
  },
  {
    name: "HARNESS2_WB_CONCURRENCY",
    key: "concurrency",
    default: 2,
    help: "trials a job runs at once",
  },
  {
    name: "HARNESS2_WB_KILL_GRACE",
    key: "killGraceS",
    default: 180,
    help: "seconds between SIGTERM and SIGKILL when a job runs out of time",
  },
  {
    name: "HARNESS2_WB_STALE_JOB_HOURS",
    key: "staleJobHours",
    default: 24,
    help: "job files older than this, left by a killed process, are swept",
  },
];

export type WbSettings = Record<WbInt, number> & {
  /** The docker client `check` asks whether the engine runs. */
  docker: string;
  /** The solver's OpenAI-compatible endpoint as the containers reach it, and its key. */
  solverBaseUrl: string;
  solverApiKey: string;
  /** The CLI versions our agents' split-mount images carry (their harness configurations). */
  opencodeVersion: string;
  codexVersion: string;
};

export function wbSettings(env: Record<string, string | undefined>): WbSettings {
  return {
    ...readIntSettings(env, WB_SETTINGS),
    docker: env.HARNESS2_WB_DOCKER || "docker",
    solverBaseUrl: env.HARNESS2_WB_BASE_URL || "",
    solverApiKey: env.HARNESS2_WB_API_KEY || "",
    opencodeVersion: env.HARNESS2_WB_OPENCODE_VERSION || "1.14.18",
    codexVersion: env.HARNESS2_WB_CODEX_VERSION || "0.144.6",
  };
}

/** One model route: its slug under configs/models/ and its `model:` block. */
export type Route = {
  slug: "harness2/solver" | "harness2/codex" | "harness2/judge";
  model: {
    name: string;
    protocols: ["openai"];
    backend_url_env: string;
    backend_key_env: string;
    params: { max_output_tokens: number };
  };
};

export type Routes = { agent: Route; judge: Route | null };

export const ROUTES_DIR = join("configs", "models", "harness2");

function route(
  slug: Route["slug"],
  name: string,
  urlEnv: string,
  keyEnv: string,
  max: number,
): Route {
  return {
    slug,
    model: {
      name,
      protocols: ["openai"],
      backend_url_env: urlEnv,
      backend_key_env: keyEnv,
      params: { max_output_tokens: max },
    },
  };
}

/** The settings the routes read: `env` with Codex's container endpoint and key as the run resolved them. */
export function routeEnv(
  env: Record<string, string | undefined>,
  config: { codexContainerUrl: string; codexApiKey: string },
): Record<string, string | undefined> {
  return {
    ...env,
    HARNESS2_CODEX_CONTAINER_URL: config.codexContainerUrl,
    HARNESS2_CODEX_API_KEY: config.codexApiKey,
  };
}

/** What is wrong with an endpoint setting (unset or not http(s)), or null. */
function endpointProblem(
  env: Record<string, string | undefined>,
  urlVar: string,
  keyVar: string,
  example: string,
): string | null {
  const url = env[urlVar] || "";
  if (url === "") return `${urlVar} is not set: set it to ${example}`;
  const bad = badEndpoint(url);
  if (bad !== null) return `${urlVar} ${bad}: set it to an http(s) URL`;
  if (!env[keyVar]) return `${keyVar} is not set: set it to the key of ${urlVar}`;
  return null;
}

/**
 * The routes a job of `executor` names, or the one-line reason they cannot be written. Codex's
 * endpoint is HARNESS2_CODEX_CONTAINER_URL (given here already defaulted to its base URL).
 */
export function routesOf(
  env: Record<string, string | undefined>,
  executor: "oc" | "cx",
  model: string,
): Routes | { problem: string } {
  const envVar = executor === "oc" ? "HARNESS2_SOLVER_MODEL" : "HARNESS2_CODEX_MODEL";
  if (model === "") return { problem: `${envVar} is not set: set it to the model the jobs run` };
  const problem =
    executor === "oc"
      ? endpointProblem(
          env,
          "HARNESS2_WB_BASE_URL",
          "HARNESS2_WB_API_KEY",
          "the solver's OpenAI-compatible endpoint as the containers reach it (e.g. http://host.docker.internal:4000/v1)",
        )
      : endpointProblem(
          env,
          "HARNESS2_CODEX_CONTAINER_URL",
          "HARNESS2_CODEX_API_KEY",
          "the Responses endpoint as the containers reach it (e.g. http://host.docker.internal:4000/v1)",
        );
  if (problem !== null) return { problem };
  const agent =
    executor === "oc"
      ? route("harness2/solver", model, "HARNESS2_WB_BASE_URL", "HARNESS2_WB_API_KEY", 64_000)
      : route(
          "harness2/codex",
          model,
          "HARNESS2_CODEX_CONTAINER_URL",
          "HARNESS2_CODEX_API_KEY",
          64_000,
        );
  const judgeModel = env.HARNESS2_JUDGE_MODEL || "";
  const judgeOk =
    judgeModel !== "" &&
    endpointProblem(env, "HARNESS2_JUDGE_BASE_URL", "HARNESS2_JUDGE_API_KEY", "") === null;
  const judge = judgeOk
    ? route(
        "harness2/judge",
        judgeModel,
        "HARNESS2_JUDGE_BASE_URL",
        "HARNESS2_JUDGE_API_KEY",
        16_384,
      )
    : null;
  return { agent, judge };
}

function routeText(r: Route): string {
  return `# ${r.slug}: written by harness2 from its settings; rewritten whenever they change.\n${Bun.YAML.stringify({ model: r.model }, null, 2)}\n`;
}

function routeList(routes: Routes): Route[] {
  return routes.judge === null ? [routes.agent] : [routes.agent, routes.judge];
}

/** The routes' text, part of the executor identity (reads and writes nothing). */
export function routesText(routes: Routes): string {
  return routeList(routes).map(routeText).join("");
}

/** The variables a job's runner needs for these routes (their URLs and keys), from `env`. */
export function routeVariables(routes: Routes): string[] {
  return routeList(routes).flatMap((r) => [r.model.backend_url_env, r.model.backend_key_env]);
}

/** Writes the route files into the checkout where their text differs from what is there (each replaced whole). */
export function writeRoutes(root: string, routes: Routes): void {
  const dir = join(root, ROUTES_DIR);
  mkdirSync(dir, { recursive: true });
  for (const r of routeList(routes)) {
    const path = join(root, "configs", "models", `${r.slug}.yaml`);
    const text = routeText(r);
    let now = "";
    try {
      now = readFileSync(path, "utf8");
    } catch {
      now = "";
    }
    if (now === text) continue;
    writeFileAtomic(path, text);
  }
}
