// What every benchmark cell does the same way (docs/benchmarks.md): the improver channel from the
// run configuration, the executor's baseline harness written once under the cell's runs root, the
// executor's readiness, and a deliverable's files joined into one text.

import { join } from "node:path";
import { isTree, type Tree, writeTree } from "../../core/harness/tree.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import { type ChannelSpec, resolveChannelModel } from "../../core/seams/channel-spec.ts";
import type { Executor } from "../../core/seams/executor.ts";

/** The channel every improver role of a cell uses: the run configuration's. */
export function improverChannel(config: RunConfig): ChannelSpec {
  return resolveChannelModel(
    {},
    {
      kind: config.improverChannel,
      model: config.improverModel,
      effort: config.proposerEffort,
      steps: config.proposerSteps,
      timeout: config.proposerTimeoutS,
    },
  );
}

/**
 * A cell's starting harness — the executor's baseline tree unless the cell gives its own — written
 * once to `<runsRoot>/base-harness` (OpenCode) or `<runsRoot>/base-harness-<substrate>`, so two
 * executors never share one.
 */
export function baselineHarnessDir(
  runsRoot: string,
  executor: Executor,
  tree: Tree = executor.baselineTree(),
): string {
  const name = executor.name;
  const dir = join(runsRoot, name === "oc" ? "base-harness" : `base-harness-${name}`);
  const surface = executor.surface();
  if (!isTree(surface, dir)) writeTree(surface, tree, dir);
  return dir;
}

/** The executor's offline readiness, then whether its endpoint can be reached at all. */
export async function executorReady(executor: Executor, config: RunConfig): Promise<void> {
  const model = executor.modelOf(config);
  executor.preflight(model);
  await executor.reachable?.(model);
}

/** One text of a deliverable's files, each under its `output/` path. */
export function joinDeliverable(files: Record<string, string>): string {
  const entries = Object.entries(files);
  if (entries.length === 0) return "(no deliverable produced)";
  return entries.map(([name, text]) => `### output/${name}\n\n${text}`).join("\n\n");
}
