// The Claude Code CLI as harness2 drives it: where its binary is, which provider variables a
// session may see, the retry setting it is given, and the ONE reader of its `--output-format
// json` result. Starts no process.

import { z } from "zod";
import { which } from "../core/lib/process.ts";
import { BEDROCK_ENV, ChannelSetupError, pinnedOrOnPath } from "./session-env.ts";

/**
 * Credentials and routing passed through to Claude Code when set: the Anthropic API (key, token,
 * base URL, headers, model aliases), Vertex AI and Amazon Bedrock, and a retry override.
 * Everything else — other providers' keys included — is dropped.
 */
export const CLAUDE_PROVIDER_ENV = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_CUSTOM_HEADERS",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "ANTHROPIC_SMALL_FAST_MODEL",
  "ANTHROPIC_DEFAULT_HAIKU_MODEL",
  "ANTHROPIC_DEFAULT_SONNET_MODEL",
  "ANTHROPIC_DEFAULT_OPUS_MODEL",
  "CLAUDE_CODE_USE_VERTEX",
  "ANTHROPIC_VERTEX_PROJECT_ID",
  "ANTHROPIC_VERTEX_BASE_URL",
  "CLOUD_ML_REGION",
  "VERTEX_REGION_*",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDSDK_CONFIG",
  "CLAUDE_CODE_USE_BEDROCK",
  "ANTHROPIC_BEDROCK_BASE_URL",
  ...BEDROCK_ENV,
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
  "CLAUDE_CODE_MAX_RETRIES",
] as const;

/** Where the channel's own settings come from (read once, at construction). */
export const CLAUDE_CHANNEL_SETTINGS = {
  /** Path of the claude executable; otherwise `claude` on PATH. */
  bin: "HARNESS2_CLAUDE_BIN",
  /** Vertex project fallback when ANTHROPIC_VERTEX_PROJECT_ID and GOOGLE_CLOUD_PROJECT are unset. */
  vertexProject: "HARNESS2_VERTEX_PROJECT",
} as const;

const DEFAULT_MAX_RETRIES = 2;
const MAX_RETRIES_CEILING = 10;

const ClaudeResultSchema = z.looseObject({
  type: z.string().optional(),
  subtype: z.string().nullish(),
  is_error: z.unknown().optional(),
  result: z.unknown().optional(),
  text: z.unknown().optional(),
  total_cost_usd: z.unknown().optional(),
  api_error_status: z.unknown().optional(),
});
export type ClaudeResultPayload = z.infer<typeof ClaudeResultSchema>;

function parseObject(text: string): ClaudeResultPayload | null {
  try {
    const parsed = ClaudeResultSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The result object in Claude's stdout: the whole output, else the last line that is a `{…}`
 * object and not another stream event (stream-json writes `system`, `assistant` and `user` lines
 * before the `result`), else the span from the first `{` to the last `}`. Null when none parses.
 */
export function parseClaudeJson(stdout: string): ClaudeResultPayload | null {
  const trimmed = stdout.trim();
  if (trimmed.length === 0) return null;
  const whole = parseObject(trimmed);
  if (whole) return whole;
  const lines = trimmed.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? "").trim();
    if (line.startsWith("{") && line.endsWith("}")) {
      const obj = parseObject(line);
      if (obj && (obj.type === undefined || obj.type === "result")) return obj;
    }
  }
  const first = trimmed.indexOf("{");
  const last = trimmed.lastIndexOf("}");
  return first >= 0 && last > first ? parseObject(trimmed.slice(first, last + 1)) : null;
}

const ApiRetrySchema = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  attempt: z.number().optional(),
  max_retries: z.number().optional(),
  error_status: z.number().nullish(),
  error: z.string().nullish(),
});

/**
 * The last provider error Claude reported while retrying (a stream-json `api_retry` event), in
 * words — "HTTP 500 server_error (retry 5 of 10)" — or "" when it reported none. A session cut
 * off by the timeout while retrying says why through this (docs/differences.md X46).
 */
export function lastApiRetry(stdout: string): string {
  const lines = stdout.trimEnd().split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? "").trim();
    if (!line.includes('"api_retry"')) continue;
    let parsed: ReturnType<typeof ApiRetrySchema.safeParse>;
    try {
      parsed = ApiRetrySchema.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    const e = parsed.data;
    const what = [typeof e.error_status === "number" ? `HTTP ${e.error_status}` : "", e.error ?? ""]
      .filter((x) => x !== "")
      .join(" ");
    const retry =
      e.attempt !== undefined
        ? ` (retry ${e.attempt}${e.max_retries !== undefined ? ` of ${e.max_retries}` : ""})`
        : "";
    return `${what || "an API error"}${retry}`;
  }
  return "";
}

export function resolveClaude(env: Record<string, string | undefined>): string {
  const explicit = env[CLAUDE_CHANNEL_SETTINGS.bin];
  if (explicit) {
    const found = which(explicit, env);
    if (!found) {
      throw new ChannelSetupError(
        "claude_cli",
        `${CLAUDE_CHANNEL_SETTINGS.bin}=${explicit} is not an executable file`,
        "Point it at the claude executable, or unset it to use claude from PATH.",
      );
    }
    return found;
  }
  // The pinned development dependency (bun install) first, as for OpenCode; then PATH.
  const found = pinnedOrOnPath("claude", env);
  if (!found) {
    throw new ChannelSetupError(
      "claude_cli",
      "the claude CLI was not found (node_modules/.bin/claude or PATH)",
      `Install it (npm install -g @anthropic-ai/claude-code) or set ${CLAUDE_CHANNEL_SETTINGS.bin}.`,
    );
  }
  return found;
}

export function maxRetries(value: string | undefined): string {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n >= 0 && n <= MAX_RETRIES_CEILING
    ? String(n)
    : String(DEFAULT_MAX_RETRIES);
}
