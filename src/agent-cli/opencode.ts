// The OpenCode CLI as both of its users drive it, the improver channel and the executor: finding
// the binary (pinned npm package or a source checkout), the provider file, one session's
// environment (base variables, only its provider's credentials, its own XDG dirs and HOME, the
// workspace fence). Its `--format json` event stream is read by agent-cli/opencode-stream.ts. Starts no
// process.

import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { pickEnv, which } from "../core/lib/process.ts";
import {
  BEDROCK_ENV,
  ChannelSetupError,
  PROJECT_ROOT,
  pinnedOrOnPath,
  SESSION_BASE_ENV,
} from "./session-env.ts";

/** Variables every OpenCode session gets when set, besides SESSION_BASE_ENV. */
export const OPENCODE_SESSION_ENV = [
  ...SESSION_BASE_ENV,
  "HOME",
  /** Inline OpenCode config (provider definitions), passed through as given. */
  "OPENCODE_CONFIG_CONTENT",
] as const;

const VERTEX_ENV = [
  "GOOGLE_VERTEX_PROJECT",
  "GOOGLE_VERTEX_LOCATION",
  "VERTEXAI_LOCATION",
  "GOOGLE_CLOUD_PROJECT",
  "GOOGLE_CLOUD_LOCATION",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDSDK_CONFIG",
] as const;

/**
 * Credentials and routing passed through per provider — the part of `--model` before the `/`.
 * A model of any other provider (e.g. one defined in a config file) gets only the variables its
 * config references as `{env:NAME}`. Credentials of every other provider are dropped.
 */
export const OPENCODE_PROVIDER_ENV: Readonly<Record<string, readonly string[]>> = {
  anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"],
  openai: ["OPENAI_API_KEY"],
  google: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
  "google-vertex": VERTEX_ENV,
  "google-vertex-anthropic": VERTEX_ENV,
  "amazon-bedrock": BEDROCK_ENV,
  azure: ["AZURE_RESOURCE_NAME", "AZURE_API_KEY"],
  openrouter: ["OPENROUTER_API_KEY"],
  groq: ["GROQ_API_KEY"],
  mistral: ["MISTRAL_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"],
  xai: ["XAI_API_KEY"],
  opencode: ["OPENCODE_API_KEY"],
};

/** Where the channel's own settings come from (read once, at construction). */
export const OPENCODE_CHANNEL_SETTINGS = {
  /** A source checkout; run with `bun run --cwd <dir>/packages/opencode --conditions=browser src/index.ts`. */
  dir: "HARNESS2_OPENCODE_DIR",
  /** Path of a JSON file merged into every session's opencode.json (provider definitions). */
  config: "HARNESS2_OPENCODE_CONFIG",
  /** Vertex project fallback when GOOGLE_CLOUD_PROJECT is unset (google-vertex* models only). */
  vertexProject: "HARNESS2_VERTEX_PROJECT",
  /** Seconds a session may print no event before it is stopped as making no progress. */
  idle: "HARNESS2_SESSION_IDLE_TIMEOUT",
} as const;

/** Default of HARNESS2_SESSION_IDLE_TIMEOUT: twenty minutes without a single event (a long tool run prints nothing until it ends, so this is generous). */
export const DEFAULT_IDLE_S = 1200;

const BANNER_LINE =
  /^(?:Performing one time database migration.*|sqlite-migration:.*|Database migration complete\.)[ \t]*$/gm;

/** Removes OpenCode's one-time database migration lines (their newlines stay). */
export function stripMigrationBanner(text: string): string {
  return text.replace(BANNER_LINE, "");
}

/** `{env:NAME}` references in an OpenCode config: variables that config needs to see. */
export function configEnvRefs(config: unknown): string[] {
  const names = new Set<string>();
  const text = typeof config === "string" ? config : JSON.stringify(config ?? null);
  for (const m of text.matchAll(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.add(m[1] as string);
  return [...names];
}

type PlainObject = Record<string, unknown>;
const isPlain = (v: unknown): v is PlainObject =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The user's OpenCode provider config as OpenCode layers it: the HARNESS2_OPENCODE_CONFIG file,
 * then OPENCODE_CONFIG_CONTENT over it; each with the variable it came from. A layer that cannot be
 * read or is not a JSON object is left out (the channel and `check` report it).
 */
export function opencodeConfigLayers(
  env: Record<string, string | undefined>,
): { source: string; config: PlainObject }[] {
  const out: { source: string; config: PlainObject }[] = [];
  const add = (source: string, read: () => string) => {
    try {
      const config: unknown = JSON.parse(read());
      if (isPlain(config)) out.push({ source, config });
    } catch {
      // unreadable or not JSON: not a layer
    }
  };
  const file = env[OPENCODE_CHANNEL_SETTINGS.config];
  if (file) add(OPENCODE_CHANNEL_SETTINGS.config, () => readFileSync(file, "utf8"));
  const inline = env.OPENCODE_CONFIG_CONTENT;
  if (inline) add("OPENCODE_CONFIG_CONTENT", () => inline);
  return out;
}

/** Deep merge of plain objects; `overlay` wins on conflicts. */
export function mergeConfig(base: PlainObject, overlay: PlainObject): PlainObject {
  const out: PlainObject = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const prev = out[key];
    out[key] = isPlain(prev) && isPlain(value) ? mergeConfig(prev, value) : value;
  }
  return out;
}

/** How to start the CLI: its argv prefix and where it comes from (for messages). */
export type Command = { argv: string[]; source: string };

function resolveCommand(env: Record<string, string | undefined>): Command {
  const dir = env[OPENCODE_CHANNEL_SETTINGS.dir];
  if (dir) {
    const pkg = join(resolve(dir), "packages", "opencode");
    if (!existsSync(join(pkg, "src", "index.ts"))) {
      throw new ChannelSetupError(
        "opencode",
        `${OPENCODE_CHANNEL_SETTINGS.dir}=${dir} has no packages/opencode/src/index.ts`,
        "Point it at an OpenCode source checkout, or unset it to use the opencode-ai npm package.",
      );
    }
    const bun = process.versions.bun ? process.execPath : which("bun", env);
    if (!bun) {
      throw new ChannelSetupError(
        "opencode",
        "running a source checkout needs bun, and none was found",
        "Install the bun npm package (npm install bun) or put bun on PATH.",
      );
    }
    return {
      argv: [bun, "run", "--cwd", pkg, "--conditions=browser", "src/index.ts"],
      source: `checkout ${dir}`,
    };
  }
  const found = pinnedOrOnPath("opencode", env);
  if (!found) {
    throw new ChannelSetupError(
      "opencode",
      "the opencode CLI was not found (node_modules/.bin/opencode or PATH)",
      `Run \`bun install\` in ${PROJECT_ROOT} (it installs opencode-ai), or set ${OPENCODE_CHANNEL_SETTINGS.dir} to a source checkout.`,
    );
  }
  return { argv: [found], source: found };
}

function idleSeconds(env: Record<string, string | undefined>): number {
  const raw = env[OPENCODE_CHANNEL_SETTINGS.idle]?.trim();
  if (raw === undefined || raw === "") return DEFAULT_IDLE_S;
  if (!/^\d+$/.test(raw)) {
    throw new ChannelSetupError(
      "opencode",
      `${OPENCODE_CHANNEL_SETTINGS.idle}=${JSON.stringify(raw)} is not a whole number of seconds`,
      "Set it to the seconds a session may print nothing before it is stopped (0 = no limit), or unset it.",
    );
  }
  return Number(raw);
}

function readConfigFile(env: Record<string, string | undefined>): PlainObject {
  const path = env[OPENCODE_CHANNEL_SETTINGS.config];
  if (!path) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new ChannelSetupError(
      "opencode",
      `${OPENCODE_CHANNEL_SETTINGS.config}=${path} is not a readable JSON file (${(err as Error).message})`,
      "Fix the file or unset the variable.",
    );
  }
  if (!isPlain(parsed)) {
    throw new ChannelSetupError(
      "opencode",
      `${OPENCODE_CHANNEL_SETTINGS.config}=${path} must hold a JSON object`,
      "Wrap the provider definitions in an object, as in opencode.json.",
    );
  }
  return parsed;
}

/** The workspace path as given and as resolved (they differ when a parent is a symlink). */
function workspaceAliases(workspace: string): string[] {
  const given = resolve(workspace);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // not created yet: the given path is all there is
  }
  return [...new Set([given, real])];
}

/**
 * `OPENCODE_PERMISSION`: every external directory denied except the workspace itself. A rule
 * OpenCode's own tools obey, not a sandbox (docs/differences.md E28): a process the session starts
 * through its shell can still read outside the workspace.
 */
export function workspaceFence(workspace: string): string {
  const rules: Record<string, string> = { "*": "deny" };
  for (const p of workspaceAliases(workspace)) {
    rules[p] = "allow";
    rules[`${p}/**`] = "allow";
  }
  return JSON.stringify({ external_directory: rules });
}

/** Where one session runs: its workspace, its private folder (XDG dirs, HOME) and its model. */
export type SessionPlace = { workspace: string; sessionDir: string; model: string };

/** One OpenCode installation with its settings, read once from an environment. */
export class OpencodeCli {
  readonly command: Command;
  readonly env: Record<string, string | undefined>;
  /** Seconds without any event before a session is stopped (0 = never). */
  readonly idleS: number;
  private readonly fileConfig: PlainObject;

  /** Throws ChannelSetupError when OpenCode or its configured files cannot be found. */
  constructor(env: Record<string, string | undefined> = process.env) {
    this.env = env;
    this.command = resolveCommand(env);
    this.fileConfig = readConfigFile(env);
    this.idleS = idleSeconds(env);
  }

  /** The environment one session gets: base variables, its provider's, and the session's own. */
  sessionEnv(request: SessionPlace): Record<string, string> {
    const provider = request.model.includes("/") ? request.model.split("/")[0] : "";
    const names: string[] = [
      ...OPENCODE_SESSION_ENV,
      ...(OPENCODE_PROVIDER_ENV[provider ?? ""] ?? []),
      ...configEnvRefs(this.fileConfig),
      ...configEnvRefs(this.env.OPENCODE_CONFIG_CONTENT ?? ""),
    ];
    const xdg = join(request.sessionDir, "xdg");
    const set: Record<string, string> = {
      XDG_DATA_HOME: join(xdg, "data"),
      XDG_STATE_HOME: join(xdg, "state"),
      XDG_CONFIG_HOME: join(xdg, "config"),
      XDG_CACHE_HOME: join(xdg, "cache"),
      // HOME inside the session dir: nothing from the user's ~/.opencode, ~/.claude or ~/.agents
      // joins the session (OpenCode reads instructions and skills from all of them).
      HOME: join(request.sessionDir, "home"),
      OPENCODE_PERMISSION: workspaceFence(request.workspace),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_CLAUDE_CODE: "1",
      OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    };
    // The provider file is read by OpenCode from where it is, never copied into the workspace the
    // session can read (it may hold literal keys).
    const file = this.env[OPENCODE_CHANNEL_SETTINGS.config];
    if (file) set.OPENCODE_CONFIG = resolve(file);
    const realHome = this.env.HOME;
    if (
      provider?.startsWith("google-vertex") &&
      !this.env.GOOGLE_APPLICATION_CREDENTIALS &&
      realHome
    ) {
      // The moved HOME would hide gcloud's application-default credentials: point at them.
      const adc = join(realHome, ".config", "gcloud", "application_default_credentials.json");
      if (existsSync(adc)) set.GOOGLE_APPLICATION_CREDENTIALS = adc;
    }
    if (provider?.startsWith("google-vertex")) {
      const project =
        this.env.GOOGLE_CLOUD_PROJECT ?? this.env[OPENCODE_CHANNEL_SETTINGS.vertexProject];
      const location = this.env.GOOGLE_CLOUD_LOCATION ?? "global";
      if (!this.env.GOOGLE_VERTEX_PROJECT && project) set.GOOGLE_VERTEX_PROJECT = project;
      if (!this.env.GOOGLE_VERTEX_LOCATION) set.GOOGLE_VERTEX_LOCATION = location;
      if (!this.env.VERTEXAI_LOCATION) set.VERTEXAI_LOCATION = location;
    }
    return pickEnv(this.env, names, set);
  }
}
