// The Codex CLI as the executor drives it (docs/architecture.md "Agent CLIs"): where its binary is,
// the settings of a session (endpoint, key, model, effort, sandbox), the throwaway CODEX_HOME's
// config.toml, the environment and argv of one `codex exec --json`, and the ONE reader of its
// JSONL events' usage. Starts no process.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pickEnv, which } from "../core/lib/process.ts";
import { webAllowed } from "../core/run/web-policy.ts";
import { ExecutorSetupError } from "../core/seams/executor.ts";
import { dependencyFolders, PROJECT_ROOT, SESSION_BASE_ENV } from "./session-env.ts";

/** Where the executor's Codex settings come from. */
export const CODEX_SETTINGS = {
  /** Path of a codex executable; otherwise the pinned npm package's native binary, then PATH. */
  bin: "HARNESS2_CODEX_BIN",
  baseUrl: "HARNESS2_CODEX_BASE_URL",
  apiKey: "HARNESS2_CODEX_API_KEY",
  model: "HARNESS2_CODEX_MODEL",
  effort: "HARNESS2_CODEX_EFFORT",
  sandbox: "HARNESS2_CODEX_SANDBOX",
  prices: "HARNESS2_CODEX_PRICES",
} as const;

/**
 * How a rollout's commands are confined (docs/differences.md X17):
 * - `workspace-write` (default): Codex's own sandbox; writes only inside the workspace (`/tmp` and
 *   `$TMPDIR` excluded), no network. `.codex/hooks.json` does not fire: hooks run outside the
 *   sandbox, so an untrusted hook is not run.
 * - `with-hooks`: the same sandbox for the agent's commands, and the harness's hooks fire
 *   (`--dangerously-bypass-hook-trust`); the hook commands themselves run unconfined.
 * - `bypass`: the original's mode, no sandbox at all and hooks fire; only inside a machine or
 *   container that is itself the sandbox.
 */
export const CODEX_SANDBOXES = ["workspace-write", "with-hooks", "bypass"] as const;
export type CodexSandbox = (typeof CODEX_SANDBOXES)[number];

export const CODEX_EFFORTS = ["minimal", "low", "medium", "high", "xhigh"] as const;
export const DEFAULT_CODEX_EFFORT = "high";

/** The provider id the throwaway config names. */
const PROVIDER = "harness2";

const TRIPLES: Readonly<Record<string, string>> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
};

/** Codex cannot be run at all: no binary, no endpoint or key, a bad setting. Retrying cannot help. */
export class CodexSetupError extends ExecutorSetupError {
  constructor(reason: string, hint: string) {
    super("codex", reason, hint);
  }
}

/** The resolved executable and the folder of helper tools (rg) to put first on PATH, if any. */
export type CodexCommand = { bin: string; toolsDir: string | null; source: string };

/**
 * The pinned package's native binary (`@openai/codex-<platform>/vendor/<triple>/bin/codex`) in
 * harness2's dependency folders (its own, or the project's it was installed into), run directly:
 * the npm launcher is a Node script that only finds and execs it.
 */
export function pinnedNative(root: string = PROJECT_ROOT): CodexCommand | null {
  const triple = TRIPLES[`${process.platform}-${process.arch}`];
  if (triple === undefined) return null;
  for (const deps of dependencyFolders(root)) {
    const vendor = join(
      deps,
      "@openai",
      `codex-${process.platform}-${process.arch}`,
      "vendor",
      triple,
    );
    const bin = join(vendor, "bin", "codex");
    if (!existsSync(bin)) continue;
    const tools = join(vendor, "codex-path");
    return { bin, toolsDir: existsSync(tools) ? tools : null, source: "@openai/codex (pinned)" };
  }
  return null;
}

export function resolveCodex(env: Record<string, string | undefined>): CodexCommand {
  const explicit = env[CODEX_SETTINGS.bin];
  if (explicit) {
    const found = which(explicit, env);
    if (found === null) {
      throw new CodexSetupError(
        `${CODEX_SETTINGS.bin}=${explicit} is not an executable file`,
        "Point it at a codex executable, or unset it to use the pinned @openai/codex",
      );
    }
    const tools = join(dirname(dirname(found)), "codex-path");
    return { bin: found, toolsDir: existsSync(tools) ? tools : null, source: found };
  }
  const pinned = pinnedNative();
  if (pinned !== null) return pinned;
  const onPath = which("codex", env);
  if (onPath !== null) return { bin: onPath, toolsDir: null, source: onPath };
  throw new CodexSetupError(
    "the codex CLI was not found (the pinned @openai/codex package or codex on PATH)",
    `Run \`bun install\` in ${PROJECT_ROOT}, or set ${CODEX_SETTINGS.bin}`,
  );
}

/** What one session needs besides its workspace. */
export type CodexSessionSettings = {
  /** A Responses-API endpoint, e.g. http://127.0.0.1:4000/v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  effort: string;
  sandbox: CodexSandbox;
  /** Whether its sandbox lets commands reach the network (the run's web policy). */
  network: boolean;
};

const setValue = (env: Record<string, string | undefined>, name: string) => {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
};

/**
 * The endpoint and its key from the environment: what every session needs whatever its model.
 * Throws CodexSetupError naming the variable when either is missing or the URL is not http(s)
 * with a host.
 */
export function codexEndpoint(env: Record<string, string | undefined>): {
  baseUrl: string;
  apiKey: string;
} {
  const baseUrl = setValue(env, CODEX_SETTINGS.baseUrl);
  if (baseUrl === undefined) {
    throw new CodexSetupError(
      `${CODEX_SETTINGS.baseUrl} is not set`,
      "Set it to a Responses-API endpoint (e.g. http://127.0.0.1:4000/v1); `harness2 bridge` makes one in front of a chat-completions endpoint",
    );
  }
  let url: URL | null = null;
  try {
    url = new URL(baseUrl);
  } catch {
    url = null;
  }
  if (url === null || !/^https?:$/.test(url.protocol) || url.hostname === "") {
    throw new CodexSetupError(
      `${CODEX_SETTINGS.baseUrl}=${JSON.stringify(baseUrl)} is not an http(s) URL with a host`,
      "Set it to the endpoint's base URL, e.g. http://127.0.0.1:4000/v1",
    );
  }
  const apiKey = setValue(env, CODEX_SETTINGS.apiKey);
  if (apiKey === undefined) {
    throw new CodexSetupError(
      `${CODEX_SETTINGS.apiKey} is not set`,
      "Set it to the endpoint's key (any non-empty text for a local server)",
    );
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ""), apiKey };
}

/**
 * The session settings from the environment: the endpoint (codexEndpoint), the model, and the
 * effort and sandbox choices. Throws CodexSetupError naming the variable of what is wrong.
 */
export function codexSettings(
  env: Record<string, string | undefined>,
  model: string,
): CodexSessionSettings {
  const { baseUrl, apiKey } = codexEndpoint(env);
  if (model.trim() === "") {
    throw new CodexSetupError(
      `${CODEX_SETTINGS.model} is not set (nor HARNESS2_SOLVER_MODEL to derive it from)`,
      "Set it to the model id the endpoint serves, e.g. gpt-5-codex",
    );
  }
  const effort = setValue(env, CODEX_SETTINGS.effort) ?? DEFAULT_CODEX_EFFORT;
  if (!(CODEX_EFFORTS as readonly string[]).includes(effort)) {
    throw new CodexSetupError(
      `${CODEX_SETTINGS.effort}=${JSON.stringify(effort)} is not allowed`,
      `Use one of ${CODEX_EFFORTS.join(", ")}`,
    );
  }
  const sandbox = setValue(env, CODEX_SETTINGS.sandbox) ?? "workspace-write";
  if (!(CODEX_SANDBOXES as readonly string[]).includes(sandbox)) {
    throw new CodexSetupError(
      `${CODEX_SETTINGS.sandbox}=${JSON.stringify(sandbox)} is not allowed`,
      `Use one of ${CODEX_SANDBOXES.join(", ")} (docs/guide/codex.md, "The sandbox")`,
    );
  }
  return {
    baseUrl,
    apiKey,
    model: model.trim(),
    effort,
    sandbox: sandbox as CodexSandbox,
    network: webAllowed(env),
  };
}

/** A TOML basic string (JSON's escapes are TOML's, for every character JSON escapes). */
const toml = (s: string) => JSON.stringify(s);

/**
 * The throwaway CODEX_HOME's config.toml of one session: the endpoint as the only provider
 * (Responses wire API, key read from HARNESS2_CODEX_API_KEY in the session's environment), the
 * model and effort, no approvals, the sandbox's write rules, the workspace marked trusted, no
 * analytics, update checks or history file.
 */
export function codexConfigToml(s: CodexSessionSettings, workspace: string): string {
  return [
    "# Written by harness2 for one rollout; removed when it ends.",
    `model = ${toml(s.model)}`,
    `model_provider = ${toml(PROVIDER)}`,
    `model_reasoning_effort = ${toml(s.effort)}`,
    `approval_policy = "never"`,
    `sandbox_mode = ${toml(s.sandbox === "bypass" ? "danger-full-access" : "workspace-write")}`,
    "check_for_update_on_startup = false",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[history]",
    `persistence = "none"`,
    "",
    "[sandbox_workspace_write]",
    "exclude_slash_tmp = true",
    "exclude_tmpdir_env_var = true",
    `network_access = ${s.network}`,
    "",
    `[model_providers.${PROVIDER}]`,
    `name = "harness2 endpoint"`,
    `base_url = ${toml(s.baseUrl)}`,
    `env_key = ${toml(CODEX_SETTINGS.apiKey)}`,
    `wire_api = "responses"`,
    "",
    `[projects.${toml(workspace)}]`,
    `trust_level = "trusted"`,
    "",
  ].join("\n");
}

/**
 * argv of one `codex exec`: JSONL events, the workspace as its root, the prompt read from stdin
 * (`-`, so no argv length limit and no leading-dash risk; stdin is closed after it), no session
 * files kept, and the sandbox choice explicit. `hooks: false` leaves out hook trust whatever the
 * sandbox.
 */
export function codexExecArgv(
  cmd: CodexCommand,
  s: CodexSessionSettings,
  workspace: string,
  opts: { hooks?: boolean } = {},
): string[] {
  // An improver session (opts.hooks false) never runs hooks: it edits a harness, it does not use it.
  const hookTrust = opts.hooks === false ? [] : ["--dangerously-bypass-hook-trust"];
  const sandbox =
    s.sandbox === "bypass"
      ? ["--dangerously-bypass-approvals-and-sandbox", ...hookTrust]
      : s.sandbox === "with-hooks"
        ? ["--sandbox", "workspace-write", "--dangerously-bypass-hook-trust"]
        : ["--sandbox", "workspace-write"];
  return [
    cmd.bin,
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--ephemeral",
    "-C",
    workspace,
    "--model",
    s.model,
    "-c",
    `model_reasoning_effort=${toml(s.effort)}`,
    "-c",
    "analytics.enabled=false",
    ...sandbox,
    "-",
  ];
}

/**
 * The session's environment: base variables, its own HOME, CODEX_HOME and TMPDIR, the key, rg on
 * PATH.
 *
 * TMPDIR is the session's own folder, never the host's `/tmp`: Codex refuses to create its helper
 * aliases (the `codex-linux-sandbox` name its sandbox re-executes through) when CODEX_HOME lies
 * under the temporary folder, and with a system bubblewrap older than 0.9 (no `--argv0`, Debian
 * 12's 0.8) every sandboxed command then fails to start (docs/differences.md X40). The folder is
 * outside the workspace and stays unwritable to the agent's commands (`exclude_tmpdir_env_var`).
 */
export function codexSessionEnv(
  cmd: CodexCommand,
  env: Record<string, string | undefined>,
  s: CodexSessionSettings,
  dirs: { home: string; codexHome: string; tmp: string },
): Record<string, string> {
  const out = pickEnv(env, SESSION_BASE_ENV, {
    HOME: dirs.home,
    CODEX_HOME: dirs.codexHome,
    TMPDIR: dirs.tmp,
    [CODEX_SETTINGS.apiKey]: s.apiKey,
  });
  if (cmd.toolsDir !== null) out.PATH = `${cmd.toolsDir}:${out.PATH ?? ""}`;
  return out;
}

// Reading a Codex stream (usage, errors, final message, tool calls) is codex-stream.ts's: the one
// decoder the executor, the channel, the trajectory and LAB's metrics share (re-exported here).
export * from "./codex-stream.ts";
