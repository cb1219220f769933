// Which of harness2's container agents runs a WorkBuddy rollout, and with what (docs/benchmarks.md
// "WorkBuddy: our agents"): `harness2-opencode` bare for the OpenCode base (stock OpenCode), or
// with a harness (the tree's files staged in a folder, plus one composed prompt template); or
// `harness2-codex` with a harness (the tree's workspace-root files). The staged folder is handed to
// the agent through the job's `harness_params_override`.

import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { readTree } from "../../core/harness/tree.ts";
import { isRegularFile, writeFileSafe } from "../../core/lib/safe-fs.ts";
import type { ContainerInstall, Executor } from "../../core/seams/executor.ts";
import type { WbAgentParams, WbHarness } from "./wb-job.ts";
import type { WbSettings } from "./wb-settings.ts";

/** The prompt template's file in a staged harness. */
export const COMPOSED_TEMPLATE = join("_composed", "prompt.j2");

export type AgentOptions = {
  executor: Executor;
  settings: WbSettings;
  /** The harness of the rollout, or null for the cell's base. */
  harness: string | null;
  /** The cell's base harness (what runs when `harness` is null). */
  baseHarness: string;
  /** Where this harness is staged for the containers (one folder per fingerprint, written once). */
  stagedDir: string;
};

/** Writes the container install into `stagedDir` once (built beside it, renamed into place). */
function stage(opts: AgentOptions, install: ContainerInstall): void {
  if (isRegularFile(join(opts.stagedDir, ".staged"))) return;
  const partial = `${opts.stagedDir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  for (const [rel, value] of Object.entries(install.files)) writeFileSafe(partial, rel, value);
  if (install.promptTemplate !== null) {
    writeFileSafe(partial, COMPOSED_TEMPLATE, install.promptTemplate);
  }
  writeFileSafe(partial, ".staged", "staged by harness2\n");
  rmSync(opts.stagedDir, { recursive: true, force: true });
  mkdirSync(dirname(opts.stagedDir), { recursive: true });
  renameSync(partial, opts.stagedDir);
}

/** The agent family and version that runs a rollout: what the executor identity records. */
export function agentOf(executor: Executor, settings: WbSettings): WbHarness {
  return executor.name === "oc"
    ? { family: "harness2-opencode", version: settings.opencodeVersion }
    : { family: "harness2-codex", version: settings.codexVersion };
}

/** The agent of a job and what it is handed, with the harness staged for it. */
export function containerAgent(opts: AgentOptions): { harness: WbHarness; params: WbAgentParams } {
  const ex = opts.executor;
  const harness = agentOf(ex, opts.settings);
  if (ex.name === "oc" && opts.harness === null) return { harness, params: {} };
  const tree = readTree(ex.surface(), opts.harness ?? opts.baseHarness);
  const install = ex.containerInstall(tree, {});
  stage(opts, install);
  const staged = opts.stagedDir;
  if (ex.name === "oc") {
    return {
      harness,
      params: { harness_workspace: staged, prompt_template_path: join(staged, COMPOSED_TEMPLATE) },
    };
  }
  return { harness, params: { harness_workspace: staged } };
}
