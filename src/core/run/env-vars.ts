// Every HARNESS2_* variable: its name, the configuration field it sets, how its text is parsed and
// checked, and the help line `harness2 help` and the errors quote. One table, read by loadRunConfig.

import { Harness2Error } from "../lib/errors.ts";
import { maskedStoreValue, storeUrlProblem } from "../lib/store-url.ts";
import { CHANNEL_KINDS, type ChannelKind } from "../seams/channel-spec.ts";
import type { RunConfig } from "./run-config.ts";

/** A configuration value that is missing or malformed; names the variable and what is allowed. */
export class ConfigError extends Harness2Error {
  constructor(
    readonly variable: string,
    readonly value: string | undefined,
    readonly allowed: string,
  ) {
    super(
      value === undefined
        ? `${variable} is not set: ${allowed}. Set it in .env or the shell.`
        : `${variable}=${JSON.stringify(value)} is not allowed: ${allowed}`,
    );
  }
}

export type Parse = (raw: string, variable: string) => string | number;

export const asText: Parse = (raw) => raw;

export const asInt =
  (min: number, what: string): Parse =>
  (raw, variable) => {
    const v = raw.trim();
    if (!/^\d+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v))) {
      throw new ConfigError(variable, raw, what);
    }
    return Number(v);
  };

export const asSeconds: Parse = (raw, variable) => {
  const v = raw.trim();
  if (!/^\d+(?:\.\d+)?$/.test(v)) throw new ConfigError(variable, raw, "a number of seconds ≥ 0");
  return Number(v);
};

export const asChannel: Parse = (raw, variable) => {
  const v = raw.trim();
  if (!(CHANNEL_KINDS as readonly string[]).includes(v)) {
    throw new ConfigError(variable, raw, `one of ${CHANNEL_KINDS.join(", ")}`);
  }
  return v as ChannelKind;
};

/** One environment variable: the RunConfig field it sets, its parser and what it means. */
export type EnvVar = {
  name: string;
  field: keyof RunConfig;
  parse: Parse;
  help: string;
};

export const ONE_OR_MORE = "an integer ≥ 1";

/** Every variable loadRunConfig reads (defaults that depend on other values are in loadRunConfig). */
export const ENV_VARS: readonly EnvVar[] = [
  {
    name: "HARNESS2_RUNS_DIR",
    field: "runsDir",
    parse: asText,
    help: "root of all run state (default: ./runs)",
  },
  {
    name: "HARNESS2_DB",
    field: "dbPath",
    parse: (raw, variable) => {
      if (storeUrlProblem(raw) !== null) {
        throw new ConfigError(
          variable,
          maskedStoreValue(raw),
          "a file path for the SQLite store or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE; unset it for <runs>/harness2.db",
        );
      }
      return raw;
    },
    help: "the store: a SQLite file (default: <runs>/harness2.db) or postgres://… (many machines)",
  },
  {
    name: "HARNESS2_SOLVER_MODEL",
    field: "solverModel",
    parse: asText,
    help: "executor model, provider/model",
  },
  {
    name: "HARNESS2_CODEX_MODEL",
    field: "codexModel",
    parse: asText,
    help: "Codex executor model (default: solver model without its provider/)",
  },
  {
    name: "HARNESS2_IMPROVER_MODEL",
    field: "improverModel",
    parse: asText,
    help: "proposer/selector model (default: the solver model)",
  },
  {
    name: "HARNESS2_IMPROVER_CHANNEL",
    field: "improverChannel",
    parse: asChannel,
    help: "opencode (default), claude_cli or codex",
  },
  {
    name: "HARNESS2_IMPROVER_SANDBOX",
    field: "improverSandbox",
    parse: (raw, variable) => {
      const v = raw.trim();
      if (v !== "bwrap" && v !== "off") {
        throw new ConfigError(
          variable,
          raw,
          "bwrap (the default: each improver session in a bubblewrap sandbox) or off",
        );
      }
      return v;
    },
    help: "bwrap (default): every improver session in an OS sandbox; off: unsandboxed (recorded)",
  },
  { name: "HARNESS2_JUDGE_MODEL", field: "judgeModel", parse: asText, help: "judge model" },
  {
    name: "HARNESS2_JUDGE_BASE_URL",
    field: "judgeBaseUrl",
    parse: asText,
    help: "OpenAI-compatible judge endpoint (default: Vertex when a project is set)",
  },
  { name: "HARNESS2_JUDGE_API_KEY", field: "judgeApiKey", parse: asText, help: "judge API key" },
  {
    name: "HARNESS2_CODEX_BASE_URL",
    field: "codexBaseUrl",
    parse: asText,
    help: "Codex model endpoint",
  },
  {
    name: "HARNESS2_CODEX_CONTAINER_URL",
    field: "codexContainerUrl",
    parse: asText,
    help: "Codex endpoint as seen from a container (default: the base URL)",
  },
  {
    name: "HARNESS2_CODEX_API_KEY",
    field: "codexApiKey",
    parse: asText,
    help: "Codex endpoint key",
  },
  {
    name: "HARNESS2_VERTEX_PROJECT",
    field: "project",
    parse: asText,
    help: "Vertex project (GOOGLE_CLOUD_PROJECT wins)",
  },
  {
    name: "GOOGLE_CLOUD_LOCATION",
    field: "location",
    parse: asText,
    help: "Vertex region (default: global)",
  },
  {
    name: "HARNESS2_OPENCODE_DIR",
    field: "opencodeDir",
    parse: asText,
    help: "OpenCode source checkout to run instead of the npm package",
  },
  {
    name: "HARNESS2_PHASE_WIDTH",
    field: "phaseWidth",
    parse: asInt(1, ONE_OR_MORE),
    help: "proposals/rollouts at once in a phase (default 2)",
  },
  {
    name: "HARNESS2_SESSION_LIMIT",
    field: "sessionLimit",
    parse: asInt(0, "an integer ≥ 0 (0 = unlimited)"),
    help: "improver sessions at once, process-wide (default 2)",
  },
  {
    name: "HARNESS2_STAGE_ATTEMPTS",
    field: "stageAttempts",
    parse: asInt(1, ONE_OR_MORE),
    help: "proposals per stage incl. validation retries (default 2)",
  },
  {
    name: "HARNESS2_TRANSPORT_ATTEMPTS",
    field: "transportAttempts",
    parse: asInt(1, ONE_OR_MORE),
    help: "transport attempts per improver call (default 2)",
  },
  {
    name: "HARNESS2_PROPOSER_TIMEOUT",
    field: "proposerTimeoutS",
    parse: asInt(1, "a whole number of seconds ≥ 1"),
    help: "improver session wall clock, s (default 3600)",
  },
  {
    name: "HARNESS2_PROPOSER_STEPS",
    field: "proposerSteps",
    parse: asInt(1, ONE_OR_MORE),
    help: "improver agent steps (default 120)",
  },
  {
    name: "HARNESS2_PROPOSER_EFFORT",
    field: "proposerEffort",
    parse: asText,
    help: "improver effort/variant (default high)",
  },
  {
    name: "HARNESS2_ROLLOUT_TIMEOUT",
    field: "rolloutTimeoutS",
    parse: asInt(1, "a whole number of seconds ≥ 1"),
    help: "executor rollout limit, s (default: the benchmark's own)",
  },
  {
    name: "HARNESS2_DOMAIN_WORKERS",
    field: "domainWorkers",
    parse: asInt(1, ONE_OR_MORE),
    help: "domains at once (default 1)",
  },
  {
    name: "HARNESS2_JUDGE_PARALLEL",
    field: "judgeParallel",
    parse: asInt(1, ONE_OR_MORE),
    help: "judgements at once (default 8)",
  },
  {
    name: "HARNESS2_LIBRARY_MAX_ENTRIES",
    field: "libraryMaxEntries",
    parse: asInt(0, "an integer ≥ 0 (0 = no cap)"),
    help: "library entries a stage is shown, the most recent ones (default 0 = all)",
  },
  {
    name: "HARNESS2_LIBRARY_MAX_BYTES",
    field: "libraryMaxBytes",
    parse: asInt(0, "an integer ≥ 0 (0 = no cap)"),
    help: "bytes of library entries a stage is shown, the most recent ones (default 0 = all)",
  },
  {
    name: "HARNESS2_MODES_AT_ONCE",
    field: "modesAtOnce",
    parse: (raw, variable) => {
      const v = raw.trim();
      if (v !== "1" && v !== "2") throw new ConfigError(variable, raw, "1 or 2");
      return Number(v);
    },
    help: "modes of a task at once after its base rollouts: 2 (default) or 1",
  },
  {
    name: "HARNESS2_ALLOW_WEB",
    field: "allowWeb",
    parse: (raw, variable) => {
      const v = raw.trim();
      if (v !== "0" && v !== "1") {
        throw new ConfigError(
          variable,
          raw,
          "1 (the executor may reach the web) or 0 (the default)",
        );
      }
      return Number(v);
    },
    help: "1: the executor may reach the web (what run --allow-web sets); default 0: only its model endpoint",
  },
  {
    name: "HARNESS2_BACKOFF_S",
    field: "backoffS",
    parse: asSeconds,
    help: "backoff between transport attempts, s × (attempt − 1) (default 10)",
  },
];
