// The experiment identity `harness2 run` records with each sweep: what must stay equal for a sweep
// to continue an experiment (models, improver channel and effort, and each model's endpoint). It
// must never hold a credential: keys, tokens and passwords are left out or redacted.

import { opencodeConfigLayers } from "../../agent-cli/opencode.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { ChannelSpec } from "../../core/seams/channel-spec.ts";

type Env = Record<string, string | undefined>;
type PlainObject = Record<string, unknown>;

const isPlain = (v: unknown): v is PlainObject =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * What must stay equal for a sweep to continue an experiment: the models, the improver channel and
 * effort, and where each model's requests go (what must not change when an experiment resumes:
 * models, endpoints, task stream, seed). Endpoints are base URLs and Vertex/Bedrock project and
 * region, never a key or a token.
 */
export function experimentIdentity(
  config: Pick<RunConfig, "solverModel">,
  improver: Pick<ChannelSpec, "kind" | "model" | "effort">,
  env: Env,
): Record<string, unknown> {
  return {
    solverModel: config.solverModel,
    solverEndpoint: opencodeEndpoint(config.solverModel, env),
    improverChannel: improver.kind,
    improverModel: improver.model,
    improverEndpoint:
      improver.kind === "claude_cli"
        ? claudeEndpoint(env)
        : improver.kind === "codex"
          ? codexImproverEndpoint(env)
          : opencodeEndpoint(improver.model, env),
    effort: improver.effort,
  };
}

/**
 * An OpenCode model's endpoint: its provider's `options.baseURL` from the provider config
 * (HARNESS2_OPENCODE_CONFIG, with OPENCODE_CONFIG_CONTENT over it, as OpenCode layers them),
 * ANTHROPIC_BASE_URL for the built-in anthropic provider, and the Vertex project and location the
 * channel hands a google-vertex* model. "" is the provider's default.
 */
function opencodeEndpoint(model: string, env: Env): Record<string, string> {
  const provider = model.includes("/") ? (model.split("/")[0] as string) : "";
  const configured = providerOptions(env, provider);
  const raw =
    (typeof configured.baseURL === "string" ? configured.baseURL : undefined) ??
    (provider === "anthropic" ? env.ANTHROPIC_BASE_URL : undefined) ??
    "";
  const out: Record<string, string> = { provider, baseURL: publicUrl(expandEnvRefs(raw, env)) };
  if (provider.startsWith("google-vertex")) {
    out.project =
      env.GOOGLE_VERTEX_PROJECT ?? env.GOOGLE_CLOUD_PROJECT ?? env.HARNESS2_VERTEX_PROJECT ?? "";
    out.location = env.GOOGLE_VERTEX_LOCATION ?? env.GOOGLE_CLOUD_LOCATION ?? "global";
  }
  return out;
}

/** The Codex improvers' Responses endpoint: their own, else the Codex executor's. */
function codexImproverEndpoint(env: Env): Record<string, string> {
  const url = env.HARNESS2_IMPROVER_CODEX_BASE_URL?.trim() || env.HARNESS2_CODEX_BASE_URL || "";
  return { provider: "codex", baseURL: publicUrl(url) };
}

/** Claude Code's endpoint: the Anthropic API (or its base URL), Vertex AI or Amazon Bedrock. */
function claudeEndpoint(env: Env): Record<string, string> {
  if (env.CLAUDE_CODE_USE_VERTEX) {
    return {
      provider: "vertex",
      baseURL: publicUrl(env.ANTHROPIC_VERTEX_BASE_URL ?? ""),
      project:
        env.ANTHROPIC_VERTEX_PROJECT_ID ??
        env.GOOGLE_CLOUD_PROJECT ??
        env.HARNESS2_VERTEX_PROJECT ??
        "",
      location: env.CLOUD_ML_REGION ?? env.GOOGLE_CLOUD_LOCATION ?? "global",
    };
  }
  if (env.CLAUDE_CODE_USE_BEDROCK) {
    return {
      provider: "bedrock",
      baseURL: publicUrl(env.ANTHROPIC_BEDROCK_BASE_URL ?? ""),
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "",
    };
  }
  return { provider: "anthropic", baseURL: publicUrl(env.ANTHROPIC_BASE_URL ?? "") };
}

/** `provider.<id>.options` of the merged OpenCode provider config ({} when none or unreadable). */
function providerOptions(env: Env, provider: string): PlainObject {
  // A layer that cannot be read is the channel's to refuse before any sweep starts.
  let options: PlainObject = {};
  for (const { config: layer } of opencodeConfigLayers(env)) {
    const providers = layer.provider;
    const entry = isPlain(providers) ? providers[provider] : undefined;
    const opts = isPlain(entry) ? entry.options : undefined;
    if (isPlain(opts)) options = { ...options, ...opts };
  }
  return options;
}

/** `{env:NAME}` references resolved the way OpenCode resolves them. */
function expandEnvRefs(text: string, env: Env): string {
  return text.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? "");
}

const SECRET_PARAM = /key|token|secret|password|passwd|auth|sig/i;

/** A base URL without anything secret in it: no user or password, secret-looking query values hidden. */
export function publicUrl(raw: string): string {
  const text = raw.trim();
  if (text === "") return "";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  url.username = "";
  url.password = "";
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, "(redacted)");
  }
  return url.toString();
}
