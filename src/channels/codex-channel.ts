// The Codex improver channel (docs/guide/codex.md "Codex as the improver"): one `codex exec --json`
// per session in the proposer's throwaway workspace, with its own HOME, CODEX_HOME and TMPDIR in
// the session folder, the mission on stdin, and the answer from `output/answer.md` or else the
// session's final message. Its cost is its token usage priced from HARNESS2_CODEX_PRICES, as for the
// Codex executor; a model without a price is refused before any session starts, so an improver
// call is never counted as $0 by ignorance. Never retries, caches or harvests (the Proposer does).
//
// Confinement: in the OS sandbox (the default) Codex's own sandbox is switched off and ours holds
// the whole session — it reads nothing outside its workspace and session folder and writes nothing
// outside them. Opted out (HARNESS2_IMPROVER_SANDBOX=off), Codex's `workspace-write` sandbox still
// keeps its commands' writes in the workspace, but it does not stop reads.

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CODEX_SETTINGS,
  type CodexCommand,
  type CodexSessionSettings,
  CodexSetupError,
  codexConfigToml,
  codexEndpoint,
  codexExecArgv,
  codexSessionEnv,
  codexSettings,
  readCodexStreamFile,
  resolveCodex,
} from "../agent-cli/codex.ts";
import { costOf, loadPriceTable, type PriceTable } from "../agent-cli/codex-prices.ts";
import { SessionSandbox } from "../agent-cli/sandbox.ts";
import { ChannelSetupError, exitLabel, lastChars } from "../agent-cli/session-env.ts";
import { type ExitRecord, runProcess } from "../core/lib/process.ts";
import { SpawnError } from "../core/lib/spawn-error.ts";
import type { Channel, ChannelRequest, ChannelResult } from "../core/seams/channel.ts";
import { readAnswerFile } from "./answer-file.ts";

/** The improvers' own endpoint and key; unset, they use the executor's (CODEX_SETTINGS). */
export const CODEX_IMPROVER_SETTINGS = {
  baseUrl: "HARNESS2_IMPROVER_CODEX_BASE_URL",
  apiKey: "HARNESS2_IMPROVER_CODEX_API_KEY",
} as const;

/** What the session is told after the mission: where its answer goes. */
export const CODEX_ANSWER_NOTE =
  "When you are done, give the requested output as your final message and also save it verbatim to output/answer.md.";

export type CodexChannelOptions = {
  /** Environment to draw settings and pass-through variables from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Seconds between SIGTERM and SIGKILL at the timeout (default 5). */
  graceS?: number;
};

const setupError = (err: unknown): unknown =>
  err instanceof CodexSetupError ? new ChannelSetupError("codex", err.reason, err.hint) : err;

/** The environment with the improvers' endpoint and key put where the Codex settings read them. */
function improverEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const pick = (own: string, shared: string) => env[own]?.trim() || env[shared];
  return {
    ...env,
    [CODEX_SETTINGS.baseUrl]: pick(CODEX_IMPROVER_SETTINGS.baseUrl, CODEX_SETTINGS.baseUrl),
    [CODEX_SETTINGS.apiKey]: pick(CODEX_IMPROVER_SETTINGS.apiKey, CODEX_SETTINGS.apiKey),
  };
}

export class CodexChannel implements Channel {
  readonly kind = "codex";
  readonly cli: CodexCommand;
  /** How each session is started: in the OS sandbox (default) or, opted out, as it is. */
  readonly sandbox: SessionSandbox;
  readonly prices: PriceTable;
  private readonly env: Record<string, string | undefined>;
  private readonly graceMs: number;

  /** Throws ChannelSetupError when codex, its endpoint, key or price table cannot be used. */
  constructor(opts: CodexChannelOptions = {}) {
    const given = opts.env ?? process.env;
    this.env = improverEnv(given);
    this.sandbox = new SessionSandbox(given);
    this.graceMs = (opts.graceS ?? 5) * 1000;
    try {
      this.cli = resolveCodex(this.env);
      this.prices = loadPriceTable(this.env);
      // The endpoint and key are checked now; the model is checked per session.
      codexEndpoint(this.env);
    } catch (err) {
      throw setupError(err);
    }
  }

  /** Throws ChannelSetupError unless `model` has a price: an improver call's cost is never unknown. */
  assertPriced(model: string): void {
    if (this.prices[model] !== undefined) return;
    throw new ChannelSetupError(
      "codex",
      `the improver model ${JSON.stringify(model)} has no price in ${CODEX_SETTINGS.prices}, so what its sessions cost would be unknown`,
      `Add it, e.g. ${CODEX_SETTINGS.prices}='{"${model}": {"input": 1.25, "output": 10}}' (USD per million tokens; 0 for a free local endpoint)`,
    );
  }

  /** One session's settings: the request's model and effort; the sandbox as described above. */
  settings(request: Pick<ChannelRequest, "model" | "effort">): CodexSessionSettings {
    let s: CodexSessionSettings;
    try {
      s = codexSettings({ ...this.env, [CODEX_SETTINGS.effort]: request.effort }, request.model);
    } catch (err) {
      throw setupError(err);
    }
    return { ...s, sandbox: this.sandbox.mode === "bwrap" ? "bypass" : "workspace-write" };
  }

  /** What goes on stdin: the system text, the mission, and where the answer goes. */
  static input(request: Pick<ChannelRequest, "system" | "mission">): string {
    const mission =
      request.system.length > 0
        ? `${request.system}\n\n---\n\n${request.mission}`
        : request.mission;
    return `${mission}\n\n${CODEX_ANSWER_NOTE}\n`;
  }

  async run(request: ChannelRequest): Promise<ChannelResult> {
    this.assertPriced(request.model);
    const settings = this.settings(request);
    const ws = request.workspace;
    mkdirSync(join(ws, "output"), { recursive: true });
    // The answer must come from this session, never from a file that was already there.
    rmSync(join(ws, "output", "answer.md"), { force: true });
    const dirs = {
      home: join(request.sessionDir, "home"),
      codexHome: join(request.sessionDir, "codex-home"),
      tmp: join(request.sessionDir, "tmp"),
    };
    for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
    writeFileSync(join(dirs.codexHome, "config.toml"), codexConfigToml(settings, ws), {
      mode: 0o600,
    });
    const streamFile = join(request.sessionDir, "codex.jsonl");
    const env = codexSessionEnv(this.cli, this.env, settings, dirs);
    let exit: ExitRecord;
    try {
      const argv = codexExecArgv(this.cli, settings, ws, { hooks: false });
      exit = await runProcess({
        argv: this.sandbox.wrap(argv, { workspace: ws, sessionDir: request.sessionDir }, env),
        cwd: ws,
        env,
        stdin: CodexChannel.input(request),
        timeoutMs: request.timeoutS * 1000,
        graceMs: this.graceMs,
        stdoutFile: streamFile,
        stderrFile: join(request.sessionDir, "codex.stderr.log"),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (err) {
      if (err instanceof SpawnError) {
        return { text: "", usd: 0, error: `cannot start codex: ${err.reason}`, timedOut: false };
      }
      throw err;
    }

    const facts = readCodexStreamFile(streamFile);
    const usd = costOf(this.prices, request.model, facts.usage) ?? 0;
    const lastError = lastChars(facts.errors.at(-1) ?? "", 300);
    if (request.signal?.aborted || exit.aborted) {
      return { text: "", usd, error: "aborted", timedOut: false };
    }
    if (exit.timedOut) {
      const last = lastError ? `; the CLI's last error: ${lastError}` : "";
      return { text: "", usd, error: `timeout after ${request.timeoutS}s${last}`, timedOut: true };
    }
    // A failed turn is no answer, whatever it wrote on the way.
    if (exit.code === 0 && !facts.turnFailed) {
      const answer = readAnswerFile(ws);
      if (answer.trim().length > 0) return { text: answer, usd, error: "", timedOut: false };
      if (facts.lastMessage.trim().length > 0) {
        return { text: facts.lastMessage, usd, error: "", timedOut: false };
      }
    }
    let why: string;
    if (lastError !== "") why = lastError;
    else if (facts.events === 0 && exit.stdoutTail.trim().length > 0) {
      why = `no JSON events on stdout: ${lastChars(exit.stdoutTail, 300)}`;
    } else why = lastChars(exit.stderrTail, 300) || "empty reply";
    return {
      text: "",
      usd,
      error: `${exitLabel(exit.code, exit.signal)}: ${why}`,
      timedOut: false,
    };
  }
}
