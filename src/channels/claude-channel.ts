// The Claude Code improver channel: one `claude -p --output-format json` per session, mission on
// stdin, its own HOME and CLAUDE_CONFIG_DIR, only Anthropic/Vertex/Bedrock routing in its
// environment (src/agent-cli/claude.ts). Never accepts non-JSON stdout as an answer, and never retries.

import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  CLAUDE_CHANNEL_SETTINGS,
  CLAUDE_PROVIDER_ENV,
  lastApiRetry,
  maxRetries,
  parseClaudeJson,
  resolveClaude,
} from "../agent-cli/claude.ts";
import { SessionSandbox } from "../agent-cli/sandbox.ts";
import { exitLabel, lastChars, SESSION_BASE_ENV } from "../agent-cli/session-env.ts";
import { pickEnv, runProcess } from "../core/lib/process.ts";
import { SpawnError } from "../core/lib/spawn-error.ts";
import type { Channel, ChannelRequest, ChannelResult } from "../core/seams/channel.ts";

/** Above this many characters the system text goes into stdin instead of the argv. */
export const SYSTEM_ARG_MAX = 120_000;

const SYSTEM_BLOCK_OPEN = "[SYSTEM INSTRUCTIONS]";
const SYSTEM_BLOCK_CLOSE = "[END SYSTEM INSTRUCTIONS]";
export const LONG_SYSTEM_POINTER = `This user message opens with a ${SYSTEM_BLOCK_OPEN} block that ends at ${SYSTEM_BLOCK_CLOSE}. Follow it as your system prompt, then do the task that comes after it.`;

export type ClaudeChannelOptions = {
  /** Environment to draw settings and pass-through variables from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Seconds between SIGTERM and SIGKILL at the timeout (default 5). */
  graceS?: number;
};

/** What goes on stdin and which system argument goes on the command line. */
export function claudeInput(
  mission: string,
  system: string,
): { stdin: string; appendSystem: string | null } {
  if (system.length === 0) return { stdin: mission, appendSystem: null };
  if (system.length <= SYSTEM_ARG_MAX) return { stdin: mission, appendSystem: system };
  return {
    stdin: `${SYSTEM_BLOCK_OPEN}\n${system}\n${SYSTEM_BLOCK_CLOSE}\n\n${mission}`,
    appendSystem: LONG_SYSTEM_POINTER,
  };
}

export class ClaudeChannel implements Channel {
  readonly kind = "claude_cli";
  readonly executable: string;
  /** How each session is started: in the OS sandbox (default) or, opted out, as it is. */
  readonly sandbox: SessionSandbox;
  private readonly env: Record<string, string | undefined>;
  private readonly graceMs: number;

  /** Throws ChannelSetupError when the claude executable cannot be found. */
  constructor(opts: ClaudeChannelOptions = {}) {
    this.env = opts.env ?? process.env;
    this.executable = resolveClaude(this.env);
    this.sandbox = new SessionSandbox(this.env);
    this.graceMs = (opts.graceS ?? 5) * 1000;
  }

  /** The environment one session gets: base variables, Claude's provider routing, its own HOME. */
  sessionEnv(request: ChannelRequest): Record<string, string> {
    const home = join(request.sessionDir, "home");
    const realHome = this.env.HOME;
    const set: Record<string, string> = {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      CLAUDE_CODE_MAX_RETRIES: maxRetries(this.env.CLAUDE_CODE_MAX_RETRIES),
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
    };
    if (this.env.CLAUDE_CODE_USE_VERTEX) {
      const project =
        this.env.ANTHROPIC_VERTEX_PROJECT_ID ??
        this.env.GOOGLE_CLOUD_PROJECT ??
        this.env[CLAUDE_CHANNEL_SETTINGS.vertexProject];
      if (project) set.ANTHROPIC_VERTEX_PROJECT_ID = project;
      set.CLOUD_ML_REGION = this.env.CLOUD_ML_REGION ?? this.env.GOOGLE_CLOUD_LOCATION ?? "global";
      // The session's HOME is not the user's: keep application-default credentials reachable.
      const gcloud = realHome ? join(realHome, ".config", "gcloud") : "";
      if (!this.env.CLOUDSDK_CONFIG && gcloud && existsSync(gcloud)) set.CLOUDSDK_CONFIG = gcloud;
    }
    if (this.env.CLAUDE_CODE_USE_BEDROCK && realHome) {
      const aws = join(realHome, ".aws");
      if (!this.env.AWS_CONFIG_FILE && existsSync(join(aws, "config"))) {
        set.AWS_CONFIG_FILE = join(aws, "config");
      }
      if (!this.env.AWS_SHARED_CREDENTIALS_FILE && existsSync(join(aws, "credentials"))) {
        set.AWS_SHARED_CREDENTIALS_FILE = join(aws, "credentials");
      }
    }
    return pickEnv(this.env, [...SESSION_BASE_ENV, ...CLAUDE_PROVIDER_ENV], set);
  }

  sessionArgv(request: ChannelRequest, appendSystem: string | null): string[] {
    const argv = [
      this.executable,
      "-p",
      // stream-json (which needs --verbose in print mode) ends with the same result object as
      // json, and reports each API retry on the way: a session cut off while retrying keeps why.
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
    ];
    if (request.model.trim().length > 0) argv.push("--model", request.model.trim());
    // Fix docs/differences.md E24: the original ignored `steps` on this channel. `--max-turns` is
    // the print-mode cap on agentic turns; a session that hits it ends with subtype
    // "error_max_turns", which run() reports as a CLI error (no partial reply is accepted).
    if (Number.isInteger(request.steps) && request.steps > 0) {
      argv.push("--max-turns", String(request.steps));
    }
    // 2.1.332 warns about and ignores an effort it does not know; it never fails on one.
    if (request.effort.trim().length > 0) argv.push("--effort", request.effort.trim());
    if (appendSystem !== null) argv.push("--append-system-prompt", appendSystem);
    return argv;
  }

  async run(request: ChannelRequest): Promise<ChannelResult> {
    const env = this.sessionEnv(request);
    mkdirSync(env.CLAUDE_CONFIG_DIR as string, { recursive: true });
    const input = claudeInput(request.mission, request.system);

    let exit: Awaited<ReturnType<typeof runProcess>>;
    try {
      exit = await runProcess({
        argv: this.sandbox.wrap(
          this.sessionArgv(request, input.appendSystem),
          { workspace: request.workspace, sessionDir: request.sessionDir },
          env,
        ),
        cwd: request.workspace,
        env,
        stdin: input.stdin,
        timeoutMs: request.timeoutS * 1000,
        graceMs: this.graceMs,
        stderrFile: join(request.sessionDir, "claude.stderr.log"),
        signal: request.signal,
      });
    } catch (err) {
      if (err instanceof SpawnError) {
        return { text: "", usd: 0, error: `cannot start claude: ${err.reason}`, timedOut: false };
      }
      throw err;
    }

    const payload = parseClaudeJson(exit.stdout);
    const usd =
      typeof payload?.total_cost_usd === "number" && Number.isFinite(payload.total_cost_usd)
        ? Math.max(0, payload.total_cost_usd)
        : 0;
    const retrying = lastApiRetry(exit.stdout);
    const lastError = retrying === "" ? "" : `; the CLI's last error: ${retrying}`;
    if (exit.timedOut) {
      return {
        text: "",
        usd,
        error: `timeout after ${request.timeoutS}s${lastError}`,
        timedOut: true,
      };
    }
    if (exit.aborted) return { text: "", usd, error: "aborted", timedOut: false };
    const rc = exitLabel(exit.code, exit.signal);
    if (payload === null) {
      const shown = exit.stdout.trim().length > 0 ? exit.stdout : exit.stderrTail;
      return {
        text: "",
        usd,
        error: `${rc}: no JSON result from claude${lastError}: ${lastChars(shown, 300) || "empty output"}`,
        timedOut: false,
      };
    }
    const raw = typeof payload.result === "string" ? payload.result : payload.text;
    const text = typeof raw === "string" ? raw : "";
    const subtype = payload.subtype ?? null;
    if (payload.is_error || (subtype !== null && subtype !== "success")) {
      const status =
        typeof payload.api_error_status === "number" ? ` (HTTP ${payload.api_error_status})` : "";
      return {
        text: "",
        usd,
        error: `CLI error: ${subtype ?? "error"}${status}: ${text.slice(0, 200)}`,
        timedOut: false,
      };
    }
    if (text.trim().length === 0) {
      return {
        text: "",
        usd,
        error: `${rc}: ${lastChars(exit.stderrTail, 300) || "empty reply"}`,
        timedOut: false,
      };
    }
    return { text, usd, error: "", timedOut: false };
  }
}
