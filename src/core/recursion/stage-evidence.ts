// Where a stage's evidence lives (docs/architecture.md "Evidence written once"): stages of one
// mode built from the same inputs share one folder, built by the first of them; a retry gets a
// folder of its own, so no evidence folder is written after its build.

import { rmSync } from "node:fs";
import { join } from "node:path";
import type { ContextTree } from "../evidence/context-tree.ts";
import type { Tree } from "../harness/surface.ts";
import { writeTree } from "../harness/tree.ts";
import { copyTreeSafe } from "../lib/safe-fs.ts";
import type { ModeInputs } from "./records.ts";
import type { StageSpec } from "./stage.ts";

/** `<workDir>/context/<label>`: the folder a stage's evidence is built in. */
export function contextDir(m: ModeInputs, label: string): string {
  return join(m.workDir, "context", label);
}

/**
 * One evidence folder a mode built, and the tree it holds once built (null: the build failed, so
 * whoever waited builds its own and meets the same failure under its own name).
 */
export type SharedEvidence = { dir: string; built: Promise<ContextTree | null> };

/**
 * The evidence folders of each mode by what they are built from. Stages shown the same evidence
 * (INV and DOM of one round; every probe of the parallel mode's first wave) read one folder,
 * written once: a stage's evidence is a function of these inputs alone, and no folder is written
 * after its build (a retry gets a folder of its own). docs/architecture.md "Evidence written once".
 */
const SHARED = new WeakMap<ModeInputs, Map<string, SharedEvidence>>();

/**
 * What a stage's evidence tree is built from beyond its mode's own inputs (the base rollouts and
 * the library view, the same for every stage of the mode that keys the map), as one string:
 * equal strings, equal trees.
 */
function evidenceInputs(spec: StageSpec): string {
  return JSON.stringify([
    spec.harnessDir,
    (spec.pool ?? []).map((p) => [
      p.label,
      p.harnessDir,
      p.rollout ? [p.rollout.label, p.rollout.runDir] : null,
      p.baseline ?? null,
    ]),
    Object.entries(spec.decisions ?? {}),
  ]);
}

/**
 * The evidence a stage starts from: an earlier stage's folder built from the same inputs, or a
 * claim on its own folder that it must build and `settle` (stages of a wave start in spec order,
 * so the first of them builds and the same one does on a resume).
 */
export function claimEvidence(
  m: ModeInputs,
  spec: StageSpec,
): { earlier: SharedEvidence } | { settle: (tree: ContextTree | null) => void } {
  let folders = SHARED.get(m);
  if (folders === undefined) {
    folders = new Map();
    SHARED.set(m, folders);
  }
  const key = evidenceInputs(spec);
  const earlier = folders.get(key);
  if (earlier !== undefined) return { earlier };
  let settle: (tree: ContextTree | null) => void = () => {};
  const built = new Promise<ContextTree | null>((resolve) => {
    settle = resolve;
  });
  folders.set(key, { dir: contextDir(m, spec.label), built });
  return { settle };
}

/**
 * The evidence of a retry: the attempt's folder with `tree` as its harness, in a folder of its own
 * (`<label>.a<n>`), the rest linked from the attempt's (no folder is written after its build).
 */
export function retryEvidence(m: ModeInputs, from: string, label: string, tree: Tree): string {
  const dest = contextDir(m, label);
  rmSync(dest, { recursive: true, force: true });
  copyTreeSafe(from, dest, { link: true, filter: (rel) => !rel.startsWith("harness/") });
  writeTree(m.surface, tree, join(dest, "harness"));
  return dest;
}
