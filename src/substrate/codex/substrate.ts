// The Codex substrate (`cx`): its editable surface, how a harness is installed for it
// (codex_root), how one rollout runs through the real `codex exec`, and how its event stream
// reads as a trajectory. Knows nothing of any benchmark's tasks or scoring.

import { connect } from "node:net";
import { join } from "node:path";
import {
  CODEX_SETTINGS,
  type CodexCommand,
  type CodexSessionSettings,
  CodexSetupError,
  codexSettings,
  resolveCodex,
} from "../../agent-cli/codex.ts";
import { loadPriceTable, type PriceTable } from "../../agent-cli/codex-prices.ts";
import type { Tree } from "../../core/harness/surface.ts";
import type { SurfaceSpec } from "../../core/harness/tree.ts";
import { pickEnv, runProcess, which } from "../../core/lib/process.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import type {
  ContainerInstall,
  Executor,
  RolloutRequest,
  RolloutResult,
} from "../../core/seams/executor.ts";
import { CODEX_ROLLOUT_LAYOUT, executeCodexRollout } from "./execute.ts";
import { CODEX_ROOT_ENTRIES, codexRolloutFingerprint } from "./materialise.ts";
import { CODEX_ARGS_TRUNC, renderCodexTrajectoryFile } from "./render.ts";
import { CODEX_BASELINE_TREE, CODEX_SURFACE } from "./surface.ts";

/** Seconds a reachability probe waits for the endpoint's TCP port. */
const REACH_TIMEOUT_MS = 5000;

export type CodexOptions = {
  env?: Record<string, string | undefined>;
  /** Seconds between SIGTERM and SIGKILL at the timeout (default 5). */
  graceS?: number;
};

export class CodexSubstrate implements Executor {
  readonly name = "cx";
  readonly installMode = "codex_root" as const;
  /** Codex has no way to load sub-agents from a workspace: none are installed, none allowed. */
  readonly allowSubagents = false;
  /** The task folder's own starting harness for this executor. */
  readonly baseHarnessFolder = "harness-codex";
  readonly #env: Record<string, string | undefined>;
  readonly #graceS: number;
  #cmd: CodexCommand | null = null;
  #ready: { settings: CodexSessionSettings; prices: PriceTable } | null = null;

  constructor(opts: CodexOptions = {}) {
    this.#env = opts.env ?? process.env;
    this.#graceS = opts.graceS ?? 5;
  }

  surface(): SurfaceSpec {
    return CODEX_SURFACE;
  }

  baselineTree(): Tree {
    return { ...CODEX_BASELINE_TREE };
  }

  /** The bare model id the endpoint serves: HARNESS2_CODEX_MODEL, else the solver model's id. */
  modelOf(config: RunConfig): string {
    return config.codexModel;
  }

  rolloutFingerprint(harnessDir: string): Promise<string> {
    return codexRolloutFingerprint(harnessDir);
  }

  streamPath(runDir: string): string {
    return join(runDir, CODEX_ROLLOUT_LAYOUT.stream);
  }

  /** The codex executable, found on first use. Throws CodexSetupError when there is none. */
  get command(): CodexCommand {
    this.#cmd ??= resolveCodex(this.#env);
    return this.#cmd;
  }

  /**
   * Offline readiness for running `model`: endpoint and key set, a well-formed URL, a known effort
   * and sandbox, a readable price table, a codex binary and git. Throws CodexSetupError with the
   * fix; starts nothing.
   */
  preflight(model: string): void {
    // The environment is fixed at construction: once ready for a model, ready for every rollout
    // of it (no price file read and PATH search per rollout).
    if (this.#ready?.settings.model === model.trim()) return;
    const settings = codexSettings(this.#env, model);
    const prices = loadPriceTable(this.#env);
    void this.command;
    if (which("git", this.#env) === null) {
      throw new CodexSetupError(
        "git was not found on PATH",
        "Install git: each rollout workspace is made its own repository so Codex loads no AGENTS.md from the directories above it",
      );
    }
    this.#ready = { settings, prices };
  }

  /**
   * Whether the endpoint's port accepts a connection (within 5 s); sends nothing. Throws
   * CodexSetupError naming the URL and what to do when it does not.
   */
  async reachable(model: string): Promise<void> {
    const { settings } = this.#readyFor(model);
    const url = new URL(settings.baseUrl);
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const why = await new Promise<string | null>((resolve) => {
      const socket = connect({ host, port });
      const done = (result: string | null) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(result);
      };
      const timer = setTimeout(
        () => done(`no answer in ${REACH_TIMEOUT_MS / 1000} s`),
        REACH_TIMEOUT_MS,
      );
      socket.once("connect", () => done(null));
      socket.once("error", (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    });
    if (why !== null) {
      throw new CodexSetupError(
        `${CODEX_SETTINGS.baseUrl}=${settings.baseUrl} cannot be reached (${why})`,
        "Start the endpoint (for a chat-completions provider: harness2 bridge) or fix the URL",
      );
    }
  }

  execute(req: RolloutRequest): Promise<RolloutResult> {
    const { settings, prices } = this.#readyFor(req.model);
    return executeCodexRollout(
      { cmd: this.command, settings, prices, env: this.#env, graceS: this.#graceS },
      req,
    );
  }

  trajectory(runDir: string, opts: { obsTrunc: number; maxChars: number }): Promise<string> {
    return this.renderStream(this.streamPath(runDir), opts);
  }

  renderStream(streamFile: string, opts: { obsTrunc: number; maxChars: number }): Promise<string> {
    return renderCodexTrajectoryFile(streamFile, { ...opts, argsTrunc: CODEX_ARGS_TRUNC });
  }

  /**
   * Install mode codex_root in a container: the tree's AGENTS.md, .agents/, scripts/ and .codex/
   * (the container's agent copies them to its workspace root; Codex itself comes from the agent's
   * split-mount image, docs/benchmarks.md "WorkBuddy: our agents").
   */
  containerInstall(tree: Tree): ContainerInstall {
    const files = Object.fromEntries(
      Object.entries(tree).filter(([rel]) =>
        CODEX_ROOT_ENTRIES.some((e) => rel === e || rel.startsWith(`${e}/`)),
      ),
    );
    return { files, promptTemplate: null };
  }

  /** `codex --version` ("codex-cli 0.171.0" → "0.171.0"). Throws CodexSetupError when it fails. */
  async version(scratch: string): Promise<string> {
    const cmd = this.command;
    const exit = await runProcess({
      argv: [cmd.bin, "--version"],
      env: pickEnv(this.#env, ["PATH", "LANG", "LC_*"], {
        HOME: join(scratch, "home"),
        CODEX_HOME: join(scratch, "codex-home"),
      }),
      timeoutMs: 30_000,
    }).catch((err: Error) => {
      throw new CodexSetupError(
        `${cmd.source} cannot start: ${err.message}`,
        "Reinstall it with `bun install`",
      );
    });
    const out = exit.stdout.trim().split("\n").pop()?.trim() ?? "";
    if (exit.code !== 0 || out === "") {
      throw new CodexSetupError(
        `\`${cmd.source} --version\` failed (exit ${exit.code ?? exit.signal}): ${exit.stderrTail.trim().slice(-200)}`,
        "Reinstall @openai/codex with `bun install`",
      );
    }
    return out.replace(/^codex-cli\s+/, "");
  }

  #readyFor(model: string): { settings: CodexSessionSettings; prices: PriceTable } {
    this.preflight(model);
    return this.#ready as { settings: CodexSessionSettings; prices: PriceTable };
  }
}
