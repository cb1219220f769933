// The WorkBuddy fixture checkout (fixtures/benchmarks/workbuddy/README.md) and its contract fakes
// of Docker and the runner, for the tests.
import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "./cli.ts";
import { codexImproverEnv, startCodexImprover } from "./scripted.ts";

export const WB_FIXTURE = join(import.meta.dir, "../../fixtures/benchmarks/workbuddy");

/** A private copy of the fixture checkout under `root` (the runner writes into its configs/). */
export function wbCheckout(root: string): string {
  const dest = join(root, "workbuddy-bench");
  cpSync(WB_FIXTURE, dest, { recursive: true });
  return dest;
}

/**
 * A stand-in for the docker client: `docker info` answers as a running engine does (or fails,
 * with `down`). harness2 only ever asks it whether the engine runs.
 */
export function fakeDocker(dir: string, down = false): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "docker");
  const body = down
    ? 'echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1'
    : '[ "$1" = info ] && { echo "27.0.0-fake"; exit 0; }; echo "fake docker: only info" >&2; exit 2';
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** What a WorkBuddy sweep needs in its environment, for the scripted setups of the tests. */
export function wbEnv(opts: {
  deps: string;
  docker: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    HARNESS2_SOLVER_MODEL: "solver/solver-model",
    HARNESS2_IMPROVER_MODEL: "improver/improver-model",
    HARNESS2_DEPENDENCIES: opts.deps,
    HARNESS2_WB_BASE_URL: "http://host.docker.internal:4000/v1",
    HARNESS2_WB_API_KEY: "container-key",
    HARNESS2_WB_DOCKER: opts.docker,
    ...opts.extra,
  };
}

/**
 * A WorkBuddy sweep's environment under `root` for the end-to-end tests: the improvers on the codex
 * binary against a scripted Responses server (startCodexImprover), Docker faked, generous limits
 * and no back-off (plus `extra`).
 */
export function wbSweepEnv(
  root: string,
  improver: ScriptedServer,
  extra: Record<string, string> = {},
): Record<string, string> {
  return wbEnv({
    deps: join(root, "deps"),
    docker: fakeDocker(join(root, "bin")),
    extra: {
      ...codexImproverEnv(improver),
      HARNESS2_PROPOSER_TIMEOUT: "300",
      HARNESS2_BACKOFF_S: "0",
      ...extra,
    },
  });
}

/** The Codex settings of a WorkBuddy sweep on `--substrate cx` (the endpoint as containers reach it). */
export const WB_CODEX_ENV = {
  HARNESS2_CODEX_CONTAINER_URL: "http://host.docker.internal:4010/v1",
  HARNESS2_CODEX_API_KEY: "cx-key",
  HARNESS2_CODEX_MODEL: "mock-model",
};

/** The web verifier's judge route (its model is only named: the fake asks no model). */
export const WB_JUDGE_ENV = {
  HARNESS2_JUDGE_MODEL: "judge-model",
  HARNESS2_JUDGE_BASE_URL: "http://host.docker.internal:4020/v1",
  HARNESS2_JUDGE_API_KEY: "judge-key",
};

/** A scripted improver that tells the executor to reopen its outputs, in the file its harness reads. */
export function reopeningImprover(file: "systemprompt.md" | "AGENTS.md"): ScriptedServer {
  return startCodexImprover({
    file,
    content:
      "Before you finish, reopen every output and changed file and check it against the request.\n",
    notes: `rewrote ${file}: the outputs were never reopened.`,
    cue: "work whose outputs were written once and never checked",
    lesson: "reopen every output before finishing",
    evidence: "the rollout wrote its outputs once and stopped",
  });
}

/**
 * One k=1 sweep of a WorkBuddy cell end to end (setup --from, check, run, judge --bases, report)
 * under `root`; returns the base's and the pick's scores and the report's paired delta.
 */
export async function wbCellSweep(
  root: string,
  subset: "office" | "web" | "code",
  substrate: "oc" | "cx",
): Promise<{ base: number; pick: number; delta: number | null; stdout: string }> {
  const improver = reopeningImprover(substrate === "oc" ? "systemprompt.md" : "AGENTS.md");
  try {
    const dir = join(root, `${subset}-${substrate}`);
    mkdirSync(dir, { recursive: true });
    const runs = join(dir, "runs");
    const env = wbSweepEnv(dir, improver, {
      ...(substrate === "cx" ? WB_CODEX_ENV : {}),
      ...(subset === "web" ? WB_JUDGE_ENV : {}),
    });
    const setup = await runCli(["setup", "--bench", "wb", "--from", wbCheckout(dir)], { env });
    if (setup.code !== 0) throw new Error(`setup: ${setup.stderr}`);
    const cell = ["--bench", "wb", "--subset", subset, "--substrate", substrate];
    const check = await runCli(["check", ...cell], { env });
    if (check.code !== 0) throw new Error(`check: ${check.stdout}${check.stderr}`);
    const r = await runCli(["run", ...cell, "--k", "1", "--no-tui", "--runs", runs], { env });
    if (r.code !== 0) throw new Error(`run: ${r.stdout}${r.stderr}`);
    const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], { env });
    if (judged.code !== 0) throw new Error(`judge: ${judged.stderr}`);
    const rows = (JSON.parse(judged.stdout) as { rows: { kind: string; score: number }[] }).rows;
    const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
    if (report.code !== 0) throw new Error(`report: ${report.stderr}`);
    const summary = (
      JSON.parse(report.stdout) as { summaries: { delta: { mean: number | null } }[] }
    ).summaries[0];
    return {
      base: rows.find((x) => x.kind === "base")?.score ?? Number.NaN,
      pick: rows.find((x) => x.kind === "pick")?.score ?? Number.NaN,
      delta: summary?.delta.mean ?? null,
      stdout: r.stdout,
    };
  } finally {
    await improver.stop();
  }
}
