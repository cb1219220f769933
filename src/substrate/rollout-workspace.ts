// What every executor does to a rollout's workspace before its agent starts, and how a rollout
// that did not finish normally is reported: the task inputs copied beside the installed harness,
// the workspace made its own git repository, and RolloutError (a dead rollout, with its spend).

import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Harness2Error } from "../core/lib/errors.ts";
import { type ExitRecord, pickEnv, runProcess } from "../core/lib/process.ts";
import { walkFiles, writeFileSafe } from "../core/lib/safe-fs.ts";
import { SpawnError } from "../core/lib/spawn-error.ts";
import { outputDirOf, ROLLOUT_WORKSPACE } from "../core/rollout/layout.ts";
import type { RolloutInstall, RolloutRequest } from "../core/seams/executor.ts";

export type RolloutFailure =
  | "timeout"
  | "aborted"
  | "exit"
  | "no-events"
  | "spawn"
  | "setup"
  | "runaway";

/** A rollout that did not finish normally: a dead rollout. Carries what it had spent. */
export class RolloutError extends Harness2Error {
  constructor(
    readonly runId: string,
    readonly failure: RolloutFailure,
    readonly detail: string,
    /** USD spent before it ended (0 when unknown). */
    readonly usd: number,
    /** Whether `usd` is a price at all, and the tokens spent (an executor that counts them). */
    readonly usage?: { priced: boolean; tokens: number },
  ) {
    super(`rollout ${runId} ${detail}${usd > 0 ? ` (spent $${usd.toFixed(6)})` : ""}`);
  }
}

/** Copies the task inputs into the workspace; a path the installed harness already has refuses. */
export function copyInputs(runId: string, inputsDir: string, workspace: string): void {
  const files = walkFiles(inputsDir);
  const clash = files.find((rel) => existsSync(join(workspace, rel)));
  if (clash !== undefined) {
    throw new RolloutError(
      runId,
      "setup",
      `cannot start: the task input '${clash}' has the same path as a file of the installed harness`,
      0,
    );
  }
  for (const rel of files) {
    const to = join(workspace, rel);
    mkdirSync(join(to, ".."), { recursive: true });
    copyFileSync(join(inputsDir, rel), to);
  }
}

/**
 * Makes `workspace` a git repository of its own, so the agent CLI takes it as the project root and
 * never climbs to instructions (AGENTS.md, opencode.json, .opencode/, .codex/) in a directory
 * above it: a runs dir inside a user's repository would otherwise hand that repository's
 * instructions to the solver. `setupError` builds the executor's own setup error.
 */
export async function gitInitWorkspace(
  workspace: string,
  env: Record<string, string | undefined>,
  setupError: (reason: string, hint: string) => Error,
): Promise<void> {
  let exit: ExitRecord;
  try {
    exit = await runProcess({
      argv: ["git", "init", "-q"],
      cwd: workspace,
      env: pickEnv(env, ["PATH", "LANG", "LC_*"], { HOME: workspace, GIT_CONFIG_NOSYSTEM: "1" }),
      timeoutMs: 30_000,
    });
  } catch (err) {
    if (err instanceof SpawnError) {
      throw setupError(
        "git was not found on PATH",
        "Install git: each rollout workspace is made its own repository so the agent loads no instructions from the directories above it",
      );
    }
    throw err;
  }
  if (exit.code !== 0) {
    throw setupError(
      `\`git init\` failed in ${workspace}: ${exit.stderrTail.trim().slice(-200)}`,
      "Check that the runs directory is writable",
    );
  }
}

/** What a session's output says beside its exit record, for failureOf. */
export type SessionFacts = {
  /** JSON events the stream held. */
  events: number;
  /** The errors the CLI reported, joined: the reason given for a failed exit. */
  errors: string;
  /** The last error the CLI reported or logged (shown for a timeout), "" when none. */
  lastError: string;
  /** Why the session was stopped as a runaway, "" when it was not. */
  stoppedBecause?: string;
  /** The CLI exited 0 but said its turn failed. */
  failedTurn?: boolean;
};

/**
 * How a rollout's session ended, when not normally: stopped as a runaway, timed out (killed),
 * aborted, a non-zero exit (or a failed turn), or no JSON events at all. Null for a normal end.
 */
export function failureOf(
  exit: ExitRecord,
  facts: SessionFacts,
  timeoutS: number,
): { failure: RolloutFailure; detail: string } | null {
  if (facts.stoppedBecause) {
    return { failure: "runaway", detail: `was stopped: ${facts.stoppedBecause}` };
  }
  if (exit.timedOut) {
    const last = facts.lastError ? `; the CLI's last error: ${facts.lastError}` : "";
    return { failure: "timeout", detail: `timed out after ${timeoutS}s (killed)${last}` };
  }
  if (exit.aborted) return { failure: "aborted", detail: "was aborted" };
  if (exit.code !== 0 || facts.failedTurn) {
    const why = facts.errors || exit.stderrTail.trim().slice(-300) || "no error message";
    const how =
      exit.code === null
        ? `ended by ${exit.signal}`
        : exit.code === 0
          ? "ended with a failed turn"
          : `exited with code ${exit.code}`;
    return { failure: "exit", detail: `${how}: ${why.slice(0, 600)}` };
  }
  if (facts.events === 0) {
    return {
      failure: "no-events",
      detail: `printed no JSON events: ${exit.stderrTail.trim().slice(-300) || "no output at all"}`,
    };
  }
  return null;
}

/**
 * What the benchmark's runtime adds after the harness: its files (replacing a harness file of the
 * same path, which validation refuses anyway) and a note appended to AGENTS.md.
 */
function installRuntime(workspace: string, install: RolloutInstall | undefined): void {
  for (const [rel, text] of Object.entries(install?.runtimeFiles ?? {})) {
    writeFileSafe(workspace, rel, text);
  }
  const note = install?.agentsNote?.trim() ?? "";
  if (note === "") return;
  const agents = join(workspace, "AGENTS.md");
  const before = existsSync(agents) ? readFileSync(agents, "utf8").trimEnd() : "";
  writeFileSafe(workspace, "AGENTS.md", before === "" ? `${note}\n` : `${before}\n\n${note}\n`);
}

/**
 * A rollout's fresh workspace, the same for every executor: `runDir` wiped and made again, the
 * harness installed into `<runDir>/workspace` by `install`, the task inputs copied beside it,
 * `output/` made, and the workspace made its own git repository. Returns its paths.
 */
export async function prepareWorkspace(
  req: Pick<RolloutRequest, "runId" | "runDir" | "inputsDir" | "install">,
  install: (workspace: string) => Promise<unknown>,
  env: Record<string, string | undefined>,
  setupError: (reason: string, hint: string) => Error,
): Promise<{ workspace: string; outputDir: string }> {
  rmSync(req.runDir, { recursive: true, force: true });
  mkdirSync(req.runDir, { recursive: true });
  const workspace = join(req.runDir, ROLLOUT_WORKSPACE);
  await install(workspace);
  installRuntime(workspace, req.install);
  if (req.inputsDir !== null) copyInputs(req.runId, req.inputsDir, workspace);
  const outputDir = outputDirOf(req.runDir);
  mkdirSync(outputDir, { recursive: true });
  await gitInitWorkspace(workspace, env, setupError);
  return { workspace, outputDir };
}
