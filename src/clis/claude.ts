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
 * object, else the span from the first `{` to the last `}`. Null when none parses to an object.
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
      if (obj) return obj;
    }
  }
  const first = trimmed.indexOf("{");
  const last = trimmed.lastIndexOf("}");
  return first >= 0 && last > first ? parseObject(trimmed.slice(first, last + 1)) : null;
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
