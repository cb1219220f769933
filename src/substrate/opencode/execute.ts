// Runs the executor: one `opencode run` per rollout in a fresh workspace holding the rendered
// harness and the task inputs, through the same binary, environment allow-list, XDG isolation and
// permission fence as the OpenCode improver channel. A run mark is written only after a normal
// finish; every other ending throws RolloutError and leaves no mark, so the rollout is re-rolled.

import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OpencodeCli } from "../../agent-cli/opencode.ts";
import { runWatchedSession } from "../../agent-cli/opencode-watch.ts";
import { ChannelSetupError } from "../../agent-cli/session-env.ts";
import { rememberedVersion } from "../../agent-cli/version-cache.ts";
import { type ExitRecord, pickEnv, runProcess } from "../../core/lib/process.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";
import { hasDeliverable, ROLLOUT_OUTPUT, ROLLOUT_WORKSPACE } from "../../core/rollout/layout.ts";
import { writeRunMark } from "../../core/rollout/runmark.ts";
import { webAllowed, withWebTools } from "../../core/run/web-policy.ts";
import {
  ExecutorSetupError,
  type RolloutRequest,
  type RolloutResult,
} from "../../core/seams/executor.ts";
import {
  failureOf,
  gitInitWorkspace,
  prepareWorkspace,
  RolloutError,
  type RolloutFailure,
} from "../rollout-workspace.ts";
import { materialise } from "./materialise.ts";

export { RolloutError, type RolloutFailure };

import { OUTPUT_TOKEN_MAX } from "./surface.ts";

/** Where a rollout's pieces live inside its run directory. */
export const ROLLOUT_LAYOUT = {
  /** The fresh workspace: rendered harness, task inputs, and `output/`. */
  workspace: ROLLOUT_WORKSPACE,
  /** What the rollout delivered, relative to the run directory. */
  output: ROLLOUT_OUTPUT,
  /** The `--format json` event stream, exactly as OpenCode printed it. */
  stream: "opencode.jsonl",
  stderr: "opencode.stderr.log",
  /** What happened: model, exit, cost, errors (written for every ending). */
  record: "rollout.json",
  /** XDG dirs and HOME of the session; removed when the session ends. */
  session: "session",
} as const;

/** The executor cannot run at all (no model, no git, no opencode): retrying cannot help. */
export class SolverSetupError extends ExecutorSetupError {
  constructor(reason: string, hint: string) {
    super("opencode", reason, hint);
  }
}

export type SolverOptions = {
  /** Environment for settings and pass-through variables (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Seconds between SIGTERM and SIGKILL at the timeout (default 5). */
  graceS?: number;
};

export type SessionRequest = {
  /** The session's cwd and `--dir`: the only directory it may touch. */
  workspace: string;
  /** Owned by the session: its XDG dirs and HOME go here. */
  sessionDir: string;
  model: string;
  /** The task as the agent sees it; sent on stdin (no argv length limit, no leading-dash risk). */
  prompt: string;
  timeoutS: number;
  /** Where the JSONL stream and stderr are written. */
  streamFile: string;
  stderrFile: string;
  title: string;
  /** The agent's step cap (in opencode.json); past it, plus a margin, the session is stopped. */
  steps?: number;
  /** Continue this session (`--session`) instead of starting one. */
  session?: string;
  signal?: AbortSignal;
};

export type SessionOutcome = {
  exit: ExitRecord;
  /** Sum of the step costs in the stream, 6 decimals. */
  usd: number;
  /** JSON events parsed from the stream. */
  events: number;
  /** Messages of `error` events. */
  errors: string[];
  /** Assistant text parts, in order. */
  texts: string[];
  /** Why the session was stopped as a runaway (see StepWatch); "" when it was not. */
  stoppedBecause: string;
  /** The last error the CLI reported (for a timed-out session, also the one it logged); "". */
  lastError: string;
};

/**
 * One OpenCode executor. Binary resolution and the session environment come from the OpenCode
 * CLI driver it shares with the improver channel (`HARNESS2_OPENCODE_DIR`,
 * `HARNESS2_OPENCODE_CONFIG`, `OPENCODE_CONFIG_CONTENT`, the provider allow-list); it adds what
 * a solver needs on top.
 */
export class OpencodeSolver {
  readonly cli: OpencodeCli;
  /** The environment this executor draws settings and pass-through variables from. */
  readonly env: Record<string, string | undefined>;
  readonly #graceMs: number;

  /** Throws SolverSetupError when the opencode CLI or its configured files cannot be found. */
  constructor(opts: SolverOptions = {}) {
    this.env = opts.env ?? process.env;
    try {
      this.cli = new OpencodeCli(this.env);
    } catch (err) {
      if (err instanceof ChannelSetupError) throw new SolverSetupError(err.reason, err.hint);
      throw err;
    }
    this.#graceMs = (opts.graceS ?? 5) * 1000;
  }

  /**
   * The session's environment: the CLI driver's (base variables, the model's provider credentials,
   * per-session XDG dirs and HOME, the `OPENCODE_PERMISSION` fence, the provider file as
   * `OPENCODE_CONFIG` outside the workspace, no models fetch, autoupdate, CLAUDE.md fallback or
   * external skills), OpenCode's web tools denied unless the run allows the web, plus the
   * executor's 64,000-token output cap.
   */
  sessionEnv(
    req: Pick<SessionRequest, "workspace" | "sessionDir" | "model">,
  ): Record<string, string> {
    const base = this.cli.sessionEnv({
      workspace: req.workspace,
      sessionDir: req.sessionDir,
      model: req.model,
    });
    return {
      ...base,
      // The web tools denied unless the run allows the web (core/run/web-policy.ts).
      OPENCODE_PERMISSION: withWebTools(base.OPENCODE_PERMISSION ?? "{}", webAllowed(this.env)),
      OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX: String(OUTPUT_TOKEN_MAX),
    };
  }

  /** argv of one session; the prompt itself goes on stdin. `--thinking` keeps reasoning events. */
  sessionArgv(req: Pick<SessionRequest, "workspace" | "model" | "title" | "session">): string[] {
    const resume = req.session === undefined ? [] : ["--session", req.session];
    return [
      ...this.cli.command.argv,
      "run",
      "--dir",
      req.workspace,
      "--model",
      req.model,
      "--format",
      "json",
      "--title",
      req.title,
      "--thinking",
      ...resume,
    ];
  }

  /** Runs one session to its end (or its timeout). Throws SpawnError when opencode cannot start. */
  async runSession(req: SessionRequest): Promise<SessionOutcome> {
    // Stopped at once when it runs away (past its steps, or empty step after step), instead of
    // paying for requests until the rollout's time limit.
    const run = await runWatchedSession(
      this.cli,
      {
        argv: this.sessionArgv(req),
        cwd: req.workspace,
        env: this.sessionEnv(req),
        stdin: req.prompt,
        timeoutMs: req.timeoutS * 1000,
        graceMs: this.#graceMs,
        stdoutFile: req.streamFile,
        stderrFile: req.stderrFile,
      },
      {
        sessionDir: req.sessionDir,
        steps: req.steps ?? Number.POSITIVE_INFINITY,
        signal: req.signal,
      },
    );
    return {
      exit: run.exit,
      usd: run.parsed.usd,
      events: run.parsed.events,
      errors: run.parsed.errors,
      texts: run.parsed.texts,
      stoppedBecause: run.stopReason,
      lastError: run.lastError,
    };
  }

  /**
   * `opencode --version`, run with throwaway XDG dirs, or what this very binary printed before
   * (agent-cli/version-cache.ts; a source checkout is always asked). Throws SolverSetupError when
   * it fails.
   */
  async version(scratch: string): Promise<string> {
    const argv = this.cli.command.argv;
    if (argv.length !== 1) return this.#askVersion(scratch);
    return rememberedVersion(argv[0] as string, this.env, () => this.#askVersion(scratch));
  }

  async #askVersion(scratch: string): Promise<string> {
    const xdg = (d: string) => join(scratch, "xdg", d);
    let exit: ExitRecord;
    try {
      exit = await runProcess({
        argv: [...this.cli.command.argv, "--version"],
        env: pickEnv(this.env, ["PATH", "LANG", "LC_*", "TMPDIR"], {
          HOME: join(scratch, "home"),
          XDG_DATA_HOME: xdg("data"),
          XDG_STATE_HOME: xdg("state"),
          XDG_CONFIG_HOME: xdg("config"),
          XDG_CACHE_HOME: xdg("cache"),
          OPENCODE_DISABLE_MODELS_FETCH: "1",
          OPENCODE_DISABLE_AUTOUPDATE: "1",
        }),
        timeoutMs: 45_000,
        graceMs: this.#graceMs,
      });
    } catch (err) {
      if (err instanceof SpawnError) throw new SolverSetupError(err.message, "Reinstall it.");
      throw err;
    }
    const version = exit.stdout.trim().split("\n").pop()?.trim() ?? "";
    if (exit.code !== 0 || version === "") {
      const why = exit.timedOut ? "timed out after 45 s" : `exit ${exit.code ?? exit.signal}`;
      throw new SolverSetupError(
        `\`${this.cli.command.source} --version\` failed (${why}): ${exit.stderrTail.trim().slice(-200)}`,
        "Reinstall opencode-ai with `bun install`.",
      );
    }
    return version;
  }
}

/**
 * Makes `workspace` a git repository of its own, so OpenCode takes it as the project root and
 * never climbs to an AGENTS.md, opencode.json or .opencode/ in a directory above it.
 */
export async function isolateWorkspace(
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<void> {
  await gitInitWorkspace(workspace, env, (reason, hint) => new SolverSetupError(reason, hint));
}

/**
 * One rollout: renders the harness into `<runDir>/workspace`, copies the inputs beside it, makes
 * `output/`, runs one session, saves the stream and a `rollout.json` record, removes the session's
 * XDG/HOME dirs and — only when OpenCode exited 0 with events — writes the run mark with the
 * session's cost in `extras.usd`. Every other ending throws RolloutError (with the cost so far).
 */
export async function executeRollout(
  solver: OpencodeSolver,
  req: RolloutRequest,
): Promise<RolloutResult> {
  const { workspace, outputDir } = await prepareWorkspace(
    req,
    (ws) =>
      materialise(req.harnessDir, ws, {
        model: req.model,
        steps: req.steps,
        template: { ...req.template, workingDirectory: ws },
        toolGate: req.install?.toolGate,
      }),
    solver.env,
    (reason, hint) => new SolverSetupError(reason, hint),
  );

  const sessionDir = join(req.runDir, ROLLOUT_LAYOUT.session);
  const streamFile = join(req.runDir, ROLLOUT_LAYOUT.stream);
  const session = (prompt: string, file: string, resume?: string, timeoutS = req.timeoutS) =>
    solver.runSession({
      workspace,
      sessionDir,
      model: req.model,
      prompt,
      timeoutS,
      streamFile: file,
      // A follow-up's stderr beside its own part of the stream, so the first one's is kept.
      stderrFile:
        resume === undefined
          ? join(req.runDir, ROLLOUT_LAYOUT.stderr)
          : file.replace(/\.jsonl$/, ".stderr.log"),
      title: `harness2 ${req.runId}`,
      steps: req.steps,
      session: resume,
      signal: req.signal,
    });
  let outcome: SessionOutcome;
  let nudges = 0;
  try {
    outcome = await session(req.prompt, streamFile);
    // Follow-ups in the same session while the agent stopped early (docs/benchmarks.md "LAB"),
    // each in the time the rollout has left; their events are appended to the one stream.
    while (req.nudges !== undefined && nudges < req.nudges.max && sessionEndedNormally(outcome)) {
      const message = req.nudges.next(outputDir);
      const id = sessionIdOf(streamFile);
      const left = req.timeoutS - outcome.exit.durationMs / 1000;
      if (message === null || id === null || left < 1) break;
      nudges++;
      const part = join(req.runDir, `opencode.nudge-${nudges}.jsonl`);
      const more = await session(message, part, id, Math.floor(left));
      appendFileSync(streamFile, readFileSync(part));
      rmSync(part, { force: true });
      outcome = joinOutcomes(outcome, more);
    }
  } catch (err) {
    if (err instanceof SpawnError) {
      throw new RolloutError(req.runId, "spawn", `could not start opencode: ${err.reason}`, 0);
    }
    throw err;
  } finally {
    rmSync(sessionDir, { recursive: true, force: true });
  }

  const { exit, usd } = outcome;
  const wallS = Math.round(exit.durationMs) / 1000;
  const failure = failureOf(
    exit,
    {
      events: outcome.events,
      errors: outcome.errors.join("; "),
      lastError: outcome.lastError,
      stoppedBecause: outcome.stoppedBecause,
    },
    req.timeoutS,
  );
  writeFileSync(
    join(req.runDir, ROLLOUT_LAYOUT.record),
    `${JSON.stringify(
      {
        runId: req.runId,
        model: req.model,
        harness: req.harnessFingerprint,
        steps: req.steps,
        timeoutS: req.timeoutS,
        exit: {
          code: exit.code,
          signal: exit.signal,
          timedOut: exit.timedOut,
          aborted: exit.aborted,
          wallS,
        },
        usd,
        events: outcome.events,
        errors: outcome.errors,
        failure: failure?.failure ?? null,
        nudges,
      },
      null,
      2,
    )}\n`,
  );
  if (failure !== null) throw new RolloutError(req.runId, failure.failure, failure.detail, usd);

  const delivered = hasDeliverable(outputDir);
  await writeRunMark(req.runDir, {
    runId: req.runId,
    harnessFingerprint: req.harnessFingerprint,
    outputDir: delivered ? outputDir : null,
    extras: { usd, model: req.model, executor: "opencode", wallS, events: outcome.events },
  });
  return { runDir: req.runDir, usd, wallS, delivered, nudges };
}

function sessionEndedNormally(o: SessionOutcome): boolean {
  return o.exit.code === 0 && !o.exit.timedOut && !o.exit.aborted && o.stoppedBecause === "";
}

/** The session id OpenCode printed on its events (every line carries it), or null. */
export function sessionIdOf(streamFile: string): string | null {
  let text: string;
  try {
    text = readFileSync(streamFile, "utf8");
  } catch {
    return null;
  }
  const m = /"sessionID"\s*:\s*"(ses_[A-Za-z0-9]+)"/.exec(text);
  return m?.[1] ?? null;
}

/** One session's outcome followed by its continuation's: spend, events and time add up. */
function joinOutcomes(a: SessionOutcome, b: SessionOutcome): SessionOutcome {
  return {
    exit: { ...b.exit, durationMs: a.exit.durationMs + b.exit.durationMs },
    usd: Math.round((a.usd + b.usd) * 1e6) / 1e6,
    events: a.events + b.events,
    errors: [...a.errors, ...b.errors],
    texts: [...a.texts, ...b.texts],
    stoppedBecause: b.stoppedBecause,
    lastError: b.lastError || a.lastError,
  };
}
