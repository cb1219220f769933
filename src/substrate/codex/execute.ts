// Runs the Codex executor: one `codex exec --json` per rollout in a fresh workspace holding the
// installed harness (codex_root) and the task inputs, with a throwaway HOME and CODEX_HOME whose
// config.toml names the endpoint, the prompt on stdin (closed after it), the sandbox choice
// explicit and a hard timeout that ends the process group. A run mark is written only after a
// normal finish; every other ending throws RolloutError and leaves no mark, so the rollout is
// re-rolled. Codex reports tokens, not money: the cost comes from the user's price table.

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CodexCommand,
  type CodexSessionSettings,
  CodexSetupError,
  codexConfigToml,
  codexExecArgv,
  codexSessionEnv,
  readCodexStreamFile,
} from "../../agent-cli/codex.ts";
import { costOf, type PriceTable } from "../../agent-cli/codex-prices.ts";
import { type ExitRecord, runProcess } from "../../core/lib/process.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";
import { hasDeliverable, ROLLOUT_WORKSPACE } from "../../core/rollout/layout.ts";
import { writeRunMark } from "../../core/rollout/runmark.ts";
import type { RolloutRequest, RolloutResult } from "../../core/seams/executor.ts";
import { failureOf, prepareWorkspace, RolloutError } from "../rollout-workspace.ts";
import { materialiseCodex } from "./materialise.ts";

/** Where a Codex rollout's pieces live inside its run directory. */
export const CODEX_ROLLOUT_LAYOUT = {
  workspace: ROLLOUT_WORKSPACE,
  /** The `exec --json` event stream, exactly as Codex printed it. */
  stream: "codex.jsonl",
  stderr: "codex.stderr.log",
  /** What happened: model, sandbox, exit, tokens, cost (null when unpriced), errors. */
  record: "rollout.json",
  /** HOME, CODEX_HOME and TMPDIR of the session; removed when the session ends. */
  session: "session",
} as const;

export type CodexRunContext = {
  cmd: CodexCommand;
  settings: CodexSessionSettings;
  prices: PriceTable;
  env: Record<string, string | undefined>;
  /** Seconds between SIGTERM and SIGKILL at the timeout. */
  graceS: number;
};

/**
 * One rollout: installs the harness into `<runDir>/workspace`, copies the inputs beside it, makes
 * `output/`, makes the workspace its own git repository, runs one session, saves the stream and a
 * `rollout.json` record, removes the session's HOME and CODEX_HOME and — only when Codex exited 0
 * with events and no failed turn — writes the run mark with the priced cost (`extras.usd`, null
 * when the model has no price). Every other ending throws RolloutError.
 */
export async function executeCodexRollout(
  ctx: CodexRunContext,
  req: RolloutRequest,
): Promise<RolloutResult> {
  const { workspace, outputDir } = await prepareWorkspace(
    req,
    (ws) => materialiseCodex(req.harnessDir, ws),
    ctx.env,
    (reason, hint) => new CodexSetupError(reason, hint),
  );

  const sessionDir = join(req.runDir, CODEX_ROLLOUT_LAYOUT.session);
  const home = join(sessionDir, "home");
  const codexHome = join(sessionDir, "codex-home");
  const tmp = join(sessionDir, "tmp");
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  const settings = { ...ctx.settings, model: req.model };
  writeFileSync(join(codexHome, "config.toml"), codexConfigToml(settings, workspace), {
    mode: 0o600,
  });
  const streamFile = join(req.runDir, CODEX_ROLLOUT_LAYOUT.stream);
  let exit: ExitRecord;
  try {
    exit = await runProcess({
      argv: codexExecArgv(ctx.cmd, settings, workspace),
      cwd: workspace,
      env: codexSessionEnv(ctx.cmd, ctx.env, settings, { home, codexHome, tmp }),
      stdin: req.prompt,
      timeoutMs: req.timeoutS * 1000,
      graceMs: ctx.graceS * 1000,
      stdoutFile: streamFile,
      stderrFile: join(req.runDir, CODEX_ROLLOUT_LAYOUT.stderr),
      ...(req.signal ? { signal: req.signal } : {}),
    });
  } catch (err) {
    if (err instanceof SpawnError) {
      throw new RolloutError(req.runId, "spawn", `could not start codex: ${err.reason}`, 0);
    }
    throw err;
  } finally {
    rmSync(sessionDir, { recursive: true, force: true });
  }

  const facts = readCodexStreamFile(streamFile);
  const usd = costOf(ctx.prices, req.model, facts.usage);
  const wallS = Math.round(exit.durationMs) / 1000;
  const last = facts.errors.at(-1) ?? "";
  const failure = failureOf(
    exit,
    {
      events: facts.events,
      errors: last,
      lastError: last.slice(0, 300),
      failedTurn: facts.turnFailed,
    },
    req.timeoutS,
  );
  writeFileSync(
    join(req.runDir, CODEX_ROLLOUT_LAYOUT.record),
    `${JSON.stringify(
      {
        runId: req.runId,
        model: req.model,
        harness: req.harnessFingerprint,
        sandbox: settings.sandbox,
        effort: settings.effort,
        timeoutS: req.timeoutS,
        exit: {
          code: exit.code,
          signal: exit.signal,
          timedOut: exit.timedOut,
          aborted: exit.aborted,
          wallS,
        },
        tokens: facts.usage,
        usd,
        priced: usd !== null,
        events: facts.events,
        errors: facts.errors,
        failure: failure?.failure ?? null,
      },
      null,
      2,
    )}\n`,
  );
  if (failure !== null) {
    throw new RolloutError(req.runId, failure.failure, failure.detail, usd ?? 0, {
      priced: usd !== null,
      tokens: facts.usage.input + facts.usage.output,
    });
  }

  const delivered = hasDeliverable(outputDir);
  await writeRunMark(req.runDir, {
    runId: req.runId,
    harnessFingerprint: req.harnessFingerprint,
    outputDir: delivered ? outputDir : null,
    extras: {
      usd,
      model: req.model,
      executor: "codex",
      wallS,
      events: facts.events,
      tokens: facts.usage,
    },
  });
  return { runDir: req.runDir, usd: usd ?? 0, wallS, delivered };
}
