// The configuration file (issue 35): `harness2.toml` in the working folder, then
// `$XDG_CONFIG_HOME/harness2/harness2.toml` (default `~/.config/harness2/harness2.toml`). Each key
// is a HARNESS2_* variable's name without the prefix, in lower case (`solver_model`,
// `phase_width`); a variable set in the environment wins over both files, and the working
// folder's file over the user's. The files are read once, at the start of every command, and
// their values join the environment every module already reads; `harness2 config` shows each
// setting with where it came from. A bad file or key is one line naming the file and the key.

import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Harness2Error } from "../lib/errors.ts";
import { ENV_VARS } from "./env-vars.ts";

export const CONFIG_FILE = "harness2.toml";

/**
 * Every HARNESS2_* variable a user may set, beyond those in ENV_VARS (which also check values).
 * Internal ones (a worker's plan, a launcher's pid) are not settings and are left out.
 */
const OTHER_SETTINGS = [
  "ALLOW_WEB",
  "BACKOFF_S",
  "BRIDGE_UPSTREAM_KEY",
  "BWRAP",
  "CLAUDE_BIN",
  "CODEX_BIN",
  "CODEX_EFFORT",
  "CODEX_PRICES",
  "CODEX_SANDBOX",
  "DEMO_CALL_USD",
  "DEPENDENCIES",
  "DOMAIN_WORKERS",
  "IMPROVER_CODEX_API_KEY",
  "IMPROVER_CODEX_BASE_URL",
  "JB_ATTEMPTS",
  "JB_DATASET_REVISION",
  "JB_DATASET_URL",
  "JB_DOCKER",
  "JB_JUDGE_PYTHON",
  "JB_JUDGE_RETRIES",
  "JB_JUDGE_RUBRIC_TIMEOUT",
  "JB_JUDGE_WORKERS",
  "JB_REPO_COMMIT",
  "JB_REPO_URL",
  "JB_TIMEOUT",
  "JUDGE_PARALLEL",
  "LAB_JUDGE_PYTHON",
  "LAB_JUDGE_TIMEOUT",
  "LAB_NUDGES",
  "LAB_REPO_COMMIT",
  "LAB_REPO_URL",
  "LAB_TIMEOUT",
  "LIBRARY_MAX_BYTES",
  "LIBRARY_MAX_ENTRIES",
  "MODES_AT_ONCE",
  "OPENCODE_CONFIG",
  "PYTHON",
  "QUEUE_EXPIRE_S",
  "QUEUE_HEARTBEAT_S",
  "QUEUE_POLL_S",
  "QUEUE_RETRIES",
  "ROLLOUT_TIMEOUT",
  "SESSION_IDLE_TIMEOUT",
  "WB_API_KEY",
  "WB_BASE_URL",
  "WB_CODEX_VERSION",
  "WB_CONCURRENCY",
  "WB_DATASET_ENDPOINT",
  "WB_DATASET_REPO",
  "WB_DATASET_REVISION",
  "WB_DOCKER",
  "WB_JOB_SLACK",
  "WB_KILL_GRACE",
  "WB_OPENCODE_VERSION",
  "WB_REPO_COMMIT",
  "WB_REPO_URL",
  "WB_STALE_JOB_HOURS",
  "WB_TRIAL_TIMEOUT",
].map((k) => `HARNESS2_${k}`);

/** Every setting's variable name, sorted. */
export const SETTINGS: readonly string[] = [
  ...new Set([...ENV_VARS.map((v) => v.name), ...OTHER_SETTINGS]),
].sort();

/** The file key of a variable: `HARNESS2_SOLVER_MODEL` → `solver_model`. */
export const keyOf = (variable: string) => variable.replace(/^HARNESS2_/, "").toLowerCase();

/** A configuration file harness2 cannot use; the message names the file (and the key). */
export class ConfigFileError extends Harness2Error {}

export type Origin = { source: "env" } | { source: "file"; path: string };

export type FileSettings = {
  /** Variable → value, from the files, for the variables the environment does not set. */
  values: Record<string, string>;
  /** Where each set variable's value comes from. */
  origins: Record<string, Origin>;
  /** The files read, in the order they apply (user's, then the working folder's). */
  files: string[];
};

/** The two places a configuration file is looked for, the user's first (lower precedence). */
export function configPaths(env: Record<string, string | undefined>, cwd: string): string[] {
  const home = env.HOME || homedir();
  const base = env.XDG_CONFIG_HOME || join(home, ".config");
  return [join(base, "harness2", CONFIG_FILE), join(cwd, CONFIG_FILE)];
}

function readOne(path: string): Record<string, string> | null {
  let stat: ReturnType<typeof statSync> | undefined;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  if (stat === undefined) return null;
  if (!stat.isFile())
    throw new ConfigFileError(`${path} is not a regular file: make it one, or remove it`);
  if (stat.size > 1024 * 1024)
    throw new ConfigFileError(`${path} is over 1 MiB: a configuration file is a few lines`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(path));
  } catch {
    throw new ConfigFileError(`${path} is not readable UTF-8 text: save it as UTF-8`);
  }
  let table: Record<string, unknown>;
  try {
    table = Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigFileError(
      `${path} is not valid TOML (${(err as Error).message}): fix the syntax`,
    );
  }
  const known = new Map(SETTINGS.map((v) => [keyOf(v), v]));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(table)) {
    const variable = known.get(key);
    if (variable === undefined) {
      const near = [...known.keys()].filter((k) => distance(k, key) <= 2).slice(0, 3);
      const hint = near.length > 0 ? ` (did you mean ${near.join(", ")}?)` : "";
      throw new ConfigFileError(
        `${path}: unknown key '${key}'${hint}; keys are HARNESS2_* variable names without the prefix, in lower case (harness2 config lists them)`,
      );
    }
    if (typeof value === "string") out[variable] = value;
    else if (typeof value === "number" && Number.isFinite(value)) out[variable] = String(value);
    else if (typeof value === "boolean") out[variable] = value ? "1" : "0";
    else {
      throw new ConfigFileError(
        `${path}: ${key} must be a string, a number or true/false, not ${Array.isArray(value) ? "a list" : "a table"}`,
      );
    }
    const check = ENV_VARS.find((v) => v.name === variable);
    if (check !== undefined && out[variable] !== "") {
      try {
        check.parse(out[variable] as string, variable);
      } catch (err) {
        const why = (err as Error).message.replace(/^.*? is not allowed: /, "");
        throw new ConfigFileError(
          `${path}: ${key} = ${JSON.stringify(value)} is not allowed: ${why}`,
        );
      }
    }
  }
  return out;
}

/** The settings the files give, under the environment's (which always wins). */
export function readConfigFiles(
  env: Record<string, string | undefined>,
  cwd: string,
): FileSettings {
  const values: Record<string, string> = {};
  const origins: Record<string, Origin> = {};
  const files: string[] = [];
  for (const path of configPaths(env, cwd)) {
    const got = readOne(path);
    if (got === null) continue;
    files.push(path);
    for (const [variable, value] of Object.entries(got)) {
      if (env[variable] !== undefined) continue;
      values[variable] = value;
      origins[variable] = { source: "file", path };
    }
  }
  for (const v of SETTINGS) if (env[v] !== undefined) origins[v] = { source: "env" };
  return { values, origins, files };
}

let loaded: FileSettings | null = null;

/** What this process read at its start (main keeps it so `harness2 config` can say where from). */
export function rememberLoaded(files: FileSettings): void {
  loaded = files;
}

export function loadedSettings(): FileSettings | null {
  return loaded;
}

/** Edit distance of two short keys (for "did you mean"). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(
        Math.min(
          (prev[j] as number) + 1,
          (row[j - 1] as number) + 1,
          (prev[j - 1] as number) + cost,
        ),
      );
    }
    prev = row;
  }
  return prev[b.length] as number;
}
