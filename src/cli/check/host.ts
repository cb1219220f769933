// Checks of the host's own tools: Python 3 for harness scripts and syntax checks, git for the
// rollout workspaces, and the improver sessions' OS sandbox (docs/differences.md X39).
import { runProcess, which } from "../../core/lib/process.ts";
import { pythonEnv, resolvePython } from "../../core/lib/python.ts";
import type { Report } from "./report.ts";

/** Whether improver sessions can run in their OS sandbox here (or were opted out of it). */
export async function checkSandbox(
  report: Report,
  env: Record<string, string | undefined>,
): Promise<void> {
  const { SessionSandbox, SandboxSetupError } = await import("../../agent-cli/sandbox.ts");
  let sandbox: InstanceType<typeof SessionSandbox>;
  try {
    sandbox = new SessionSandbox(env);
  } catch (err) {
    if (!(err instanceof SandboxSetupError)) throw err;
    report.line("FAIL", "improver sandbox", err.reason, err.hint);
    return;
  }
  if (sandbox.mode === "off") {
    report.line(
      "warn",
      "improver sandbox",
      sandbox.describe(),
      "unset HARNESS2_IMPROVER_SANDBOX to sandbox them",
    );
    return;
  }
  const problem = await sandbox.problem(env);
  if (problem === null)
    report.line("ok", "improver sandbox", `${sandbox.bwrap}: ${sandbox.describe()}`);
  else report.line("FAIL", "improver sandbox", problem.reason, problem.hint);
}

export async function checkPython(
  report: Report,
  env: Record<string, string | undefined>,
): Promise<void> {
  const python = await resolvePython(env);
  if (python === null) {
    report.line(
      "FAIL",
      "python3",
      "not found on PATH",
      "install Python 3: harness scripts run with it and proposals are syntax-checked with it",
    );
    return;
  }
  const exit = await runProcess({
    argv: [python, "--version"],
    env: pythonEnv(env),
    timeoutMs: 45_000,
  }).catch(() => null);
  const version = `${exit?.stdout ?? ""}${exit?.stderr ?? ""}`.trim();
  if (exit === null || exit.code !== 0 || !/^Python 3\./.test(version)) {
    report.line(
      "FAIL",
      "python3",
      `${python} does not run as Python 3 (${version || "no output"})`,
      "install Python 3 or fix PATH",
    );
    return;
  }
  report.line("ok", "python3", `${version} at ${python}`);
}

export function checkGit(report: Report, env: Record<string, string | undefined>): void {
  const git = which("git", env);
  if (git === null) {
    report.line(
      "FAIL",
      "git",
      "not found on PATH",
      "install git: each rollout workspace is made its own repository so OpenCode loads no instructions from the folders above it",
    );
  } else report.line("ok", "git", git);
}
