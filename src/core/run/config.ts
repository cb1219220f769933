// Run configuration from environment variables (docs/method.md §10): paths, models, endpoints and
// every limit the original hard-coded, each overridable with the original's default. Reads only the
// env object it is given (Bun has already added a `.env` of the working directory to the process
// environment, the shell winning) and never writes back into any environment.

import { homedir } from "node:os";
import { resolve } from "node:path";
import { isPgUrl, maskedStoreValue } from "../lib/store-url.ts";
import { ConfigError, ENV_VARS } from "./env-vars.ts";
import { RunConfig } from "./run-config.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/** The method version recorded in a run's identity (the original's METHOD_VERSION). */
export const METHOD_VERSION = 2;

/** The original's hard-coded values. */
const DEFAULTS = {
  improverChannel: "opencode",
  location: "global",
  phaseWidth: 2,
  sessionLimit: 2,
  stageAttempts: 2,
  transportAttempts: 2,
  proposerTimeoutS: 3600,
  proposerSteps: 120,
  proposerEffort: "high",
  domainWorkers: 1,
  judgeParallel: 8,
  libraryMaxEntries: 0,
  libraryMaxBytes: 0,
  modesAtOnce: 2,
  backoffS: 10,
  allowWeb: 0,
  improverSandbox: "bwrap",
} as const;

/** A variable that is set but blank counts as unset (as the original's `env`). */
function setValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === "" ? undefined : v;
}

function expandPath(raw: string, cwd: string, home: string): string {
  const p = raw.trim();
  const tilde = p === "~" ? home : p.startsWith("~/") ? `${home}${p.slice(1)}` : p;
  return resolve(cwd, tilde);
}

function vertexOpenAiUrl(project: string, location: string): string {
  const host =
    location === "global" ? "aiplatform.googleapis.com" : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${project}/locations/${location}/endpoints/openapi`;
}

export type LoadOptions = {
  /** Relative paths resolve against this (default: process.cwd()). */
  cwd?: string;
  /** `~` expands to this (default: os.homedir()). */
  home?: string;
};

/**
 * Builds the RunConfig from `env`. Every variable of ENV_VARS is optional; a malformed one throws
 * ConfigError naming it. Models may be blank here — validateModels decides what a command needs.
 */
export function loadRunConfig(env: Env, opts: LoadOptions = {}): RunConfig {
  const cwd = opts.cwd ?? process.cwd();
  const home = opts.home ?? homedir();
  const raw: Partial<Record<keyof RunConfig, string | number>> = {};
  for (const v of ENV_VARS) {
    const value = setValue(env, v.name);
    if (value !== undefined) raw[v.field] = v.parse(value, v.name);
  }
  const text = (field: keyof RunConfig) => (raw[field] as string | undefined)?.trim();
  const runsDir = expandPath(text("runsDir") ?? "runs", cwd, home);
  const solverModel = text("solverModel") ?? "";
  const project = setValue(env, "GOOGLE_CLOUD_PROJECT")?.trim() ?? text("project") ?? "";
  const location = text("location") ?? DEFAULTS.location;
  const codexBaseUrl = text("codexBaseUrl") ?? "";
  const opencodeDir = text("opencodeDir");
  return RunConfig.parse({
    ...DEFAULTS,
    ...raw,
    runsDir,
    dbPath: isPgUrl(text("dbPath"))
      ? maskedStoreValue(text("dbPath") ?? "")
      : expandPath(text("dbPath") ?? `${runsDir}/harness2.db`, cwd, home),
    solverModel,
    codexModel: text("codexModel") ?? solverModel.replace(/^[^/]*\//, ""),
    improverModel: text("improverModel") ?? solverModel,
    judgeModel: text("judgeModel") ?? "",
    judgeBaseUrl:
      text("judgeBaseUrl") ?? (project === "" ? "" : vertexOpenAiUrl(project, location)),
    judgeApiKey: text("judgeApiKey") ?? "",
    codexBaseUrl,
    codexContainerUrl: text("codexContainerUrl") ?? codexBaseUrl,
    codexApiKey: text("codexApiKey") ?? "",
    project,
    location,
    opencodeDir: opencodeDir === undefined ? null : expandPath(opencodeDir, cwd, home),
    proposerEffort: text("proposerEffort") ?? DEFAULTS.proposerEffort,
    rolloutTimeoutS: raw.rolloutTimeoutS ?? null,
  });
}

/**
 * What a command that spends money needs (docs/method.md §10): a solver model; solver
 * and improver in `provider/model` form when they run on OpenCode; a project for Vertex models;
 * and a judge model when `judge` is set.
 */
export function validateModels(config: RunConfig, opts: { judge?: boolean } = {}): void {
  if (config.solverModel === "") {
    throw new ConfigError(
      "HARNESS2_SOLVER_MODEL",
      undefined,
      "the executor model, as provider/model",
    );
  }
  if (!config.solverModel.includes("/")) {
    throw new ConfigError(
      "HARNESS2_SOLVER_MODEL",
      config.solverModel,
      "a provider-prefixed id (provider/model)",
    );
  }
  if (config.improverChannel === "opencode" && !config.improverModel.includes("/")) {
    throw new ConfigError(
      "HARNESS2_IMPROVER_MODEL",
      config.improverModel,
      "a provider-prefixed id (provider/model) for the opencode channel",
    );
  }
  for (const [variable, model] of [
    ["HARNESS2_SOLVER_MODEL", config.solverModel],
    ["HARNESS2_IMPROVER_MODEL", config.improverModel],
  ] as const) {
    if (model.startsWith("google-vertex") && config.project === "") {
      throw new ConfigError(
        "GOOGLE_CLOUD_PROJECT",
        undefined,
        `${variable}=${model} runs on Vertex and needs a project (GOOGLE_CLOUD_PROJECT or HARNESS2_VERTEX_PROJECT)`,
      );
    }
  }
  if (opts.judge && config.judgeModel === "") {
    throw new ConfigError("HARNESS2_JUDGE_MODEL", undefined, "the judge model, needed to judge");
  }
}
