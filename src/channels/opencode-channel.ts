// The OpenCode improver channel: one `opencode run` per session, fenced to its workspace, with its
// own XDG dirs and only its provider's environment (all from src/agent-cli/opencode.ts, shared with the
// executor). Never retries, caches or harvests (the Proposer does), and never accepts non-JSON
// output as an answer.

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Command,
  OpencodeCli,
  type SessionPlace,
  stripMigrationBanner,
} from "../agent-cli/opencode.ts";
import { runWatchedSession, type WatchedSession } from "../agent-cli/opencode-watch.ts";
import { SessionSandbox } from "../agent-cli/sandbox.ts";
import { exitLabel, lastChars } from "../agent-cli/session-env.ts";
import { SpawnError } from "../core/lib/spawn-error.ts";
import type { Channel, ChannelRequest, ChannelResult } from "../core/seams/channel.ts";
import { readAnswerFile } from "./answer-file.ts";

export { readAnswerFile };

export const OPENCODE_PROMPT =
  "Read MISSION.md in this directory first and do exactly what it asks. When you are done, give the requested output as your final message and also save it verbatim to output/answer.md.";

const SESSION_TITLE = "harness2 improver session";

export type OpencodeChannelOptions = {
  /** Environment to draw settings and pass-through variables from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Seconds between SIGTERM and SIGKILL at the timeout (default 5). */
  graceS?: number;
};

export class OpencodeChannel implements Channel {
  readonly kind = "opencode";
  readonly cli: OpencodeCli;
  /** How each session is started: in the OS sandbox (default) or, opted out, as it is. */
  readonly sandbox: SessionSandbox;
  private readonly graceMs: number;

  /** Throws ChannelSetupError when OpenCode or its configured files cannot be found. */
  constructor(opts: OpencodeChannelOptions = {}) {
    this.cli = new OpencodeCli(opts.env ?? process.env);
    this.sandbox = new SessionSandbox(opts.env ?? process.env);
    this.graceMs = (opts.graceS ?? 5) * 1000;
  }

  get command(): Command {
    return this.cli.command;
  }

  /** The environment one session gets (see OpencodeCli.sessionEnv). */
  sessionEnv(request: SessionPlace): Record<string, string> {
    return this.cli.sessionEnv(request);
  }

  /** The argv of one session (the prompt is one line; the mission itself is in MISSION.md). */
  sessionArgv(request: ChannelRequest): string[] {
    const argv = [
      ...this.command.argv,
      "run",
      OPENCODE_PROMPT,
      "--dir",
      request.workspace,
      "--model",
      request.model,
      "--format",
      "json",
      "--title",
      SESSION_TITLE,
    ];
    // 1.18.33 ignores a variant the model does not define (no error), so a non-empty effort is
    // always passed on; a model that defines it gets its reasoning setting.
    if (request.effort.trim().length > 0) argv.push("--variant", request.effort.trim());
    return argv;
  }

  async run(request: ChannelRequest): Promise<ChannelResult> {
    const ws = request.workspace;
    mkdirSync(join(ws, "output"), { recursive: true });
    // The answer must come from this session, never from a file that was already there.
    rmSync(join(ws, "output", "answer.md"), { force: true });
    const missionText =
      request.system.length > 0
        ? `${request.system}\n\n---\n\n${request.mission}`
        : request.mission;
    writeFileSync(join(ws, "MISSION.md"), missionText);
    const config = {
      autoupdate: false,
      share: "disabled",
      snapshot: false,
      agent: { build: { steps: request.steps } },
    };
    writeFileSync(join(ws, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
    const stdoutFile = join(request.sessionDir, "opencode.stdout.jsonl");
    const stderrFile = join(request.sessionDir, "opencode.stderr.log");

    // A session that runs away (past its steps, or answering nothing step after step, as on a
    // provider's malformed replies) is stopped at once instead of paying until the wall clock.
    let run: WatchedSession;
    try {
      const env = this.sessionEnv(request);
      const place = { workspace: ws, sessionDir: request.sessionDir };
      run = await runWatchedSession(
        this.cli,
        {
          argv: this.sandbox.wrap(this.sessionArgv(request), place, env),
          cwd: ws,
          env,
          stdin: "ignore",
          timeoutMs: request.timeoutS * 1000,
          graceMs: this.graceMs,
          stdoutFile,
          stderrFile,
        },
        { sessionDir: request.sessionDir, steps: request.steps, signal: request.signal },
      );
    } catch (err) {
      if (err instanceof SpawnError) {
        return { text: "", usd: 0, error: `cannot start opencode: ${err.reason}`, timedOut: false };
      }
      throw err;
    }

    const { exit, parsed } = run;
    if (request.signal?.aborted) {
      return { text: "", usd: parsed.usd, error: "aborted", timedOut: false };
    }
    if (run.stopReason !== "") {
      return { text: "", usd: parsed.usd, error: `stopped: ${run.stopReason}`, timedOut: false };
    }
    if (exit.timedOut) {
      const last = run.lastError ? `; the CLI's last error: ${run.lastError}` : "";
      return {
        text: "",
        usd: parsed.usd,
        error: `timeout after ${request.timeoutS}s${last}`,
        timedOut: true,
      };
    }
    if (exit.aborted) return { text: "", usd: parsed.usd, error: "aborted", timedOut: false };

    const answer = readAnswerFile(ws);
    if (answer.trim().length > 0)
      return { text: answer, usd: parsed.usd, error: "", timedOut: false };
    const joined = parsed.texts.join("\n\n");
    if (joined.trim().length > 0)
      return { text: joined, usd: parsed.usd, error: "", timedOut: false };

    const stderrTail = lastChars(stripMigrationBanner(exit.stderrTail), 300);
    let why: string;
    if (parsed.errors.length > 0) why = lastChars(parsed.errors.join("; "), 300);
    else if (parsed.events === 0 && exit.stdoutTail.trim().length > 0) {
      // The stream is in its file; its kept tail is all this message quotes.
      why = `no JSON events on stdout: ${lastChars(stripMigrationBanner(exit.stdoutTail), 300)}`;
    } else why = stderrTail || "empty reply";
    return {
      text: "",
      usd: parsed.usd,
      error: `${exitLabel(exit.code, exit.signal)}: ${why}`,
      timedOut: false,
    };
  }
}
