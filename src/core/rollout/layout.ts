// Where a rollout's delivered files lie inside its run directory: the same for every executor, so
// adapters, the evidence and the judge find `output/` without knowing which framework ran it.

import { join } from "node:path";
import { lstatOrNull, walkFiles } from "../lib/safe-fs.ts";

/** The rollout's fresh workspace (rendered harness, task inputs, `output/`), relative to its run dir. */
export const ROLLOUT_WORKSPACE = "workspace";
/** What the rollout delivered, relative to its run dir. */
export const ROLLOUT_OUTPUT = `${ROLLOUT_WORKSPACE}/output`;

/** Absolute path of a rollout's output directory. */
export function outputDirOf(runDir: string): string {
  return join(runDir, ROLLOUT_OUTPUT);
}

/** True when the output dir holds at least one non-empty regular file. */
export function hasDeliverable(outputDir: string): boolean {
  return walkFiles(outputDir).some((rel) => (lstatOrNull(join(outputDir, rel))?.size ?? 0) > 0);
}
