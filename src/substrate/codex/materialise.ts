// Installs a harness tree on the Codex surface into a rollout workspace (install mode `codex_root`,
// docs/method.md §2): `AGENTS.md`, `.agents/`, `scripts/` and `.codex/` are copied to the
// workspace root, where `codex exec -C <workspace>` finds them itself. Nothing is rendered: Codex
// injects AGENTS.md on its own. `sub_agents/` is never installed (Codex has no way to load them
// from a workspace; docs/differences.md X19). Reads only the tree; never runs anything.

import { readdirSync } from "node:fs";
import { isTree, readTree } from "../../core/harness/tree.ts";
import { Harness2Error } from "../../core/lib/errors.ts";
import { treeFingerprint } from "../../core/lib/fingerprint.ts";
import { dirExists, writeFileSafe } from "../../core/lib/safe-fs.ts";
import { CODEX_SURFACE } from "./surface.ts";

/**
 * The version of what materialise writes for a given tree. BUMP IT whenever a change here alters
 * the installed workspace, so rollouts made by the old install are not reused as if the new one
 * had made them (docs/differences.md H12).
 */
export const CODEX_MATERIALISE_VERSION = 1;

/** The top-level entries of a Codex tree that reach the workspace. */
export const CODEX_ROOT_ENTRIES = ["AGENTS.md", ".agents", "scripts", ".codex"] as const;

/** The run-mark key: the SOURCE tree's fingerprint plus the install version (`cx` prefix). */
export async function codexRolloutFingerprint(
  harnessDir: string,
  version: number = CODEX_MATERIALISE_VERSION,
): Promise<string> {
  return `cx${version}-${await treeFingerprint(harnessDir)}`;
}

/** The harness cannot be installed (not a Codex tree, or a destination that is not empty). */
export class CodexMaterialiseError extends Harness2Error {
  constructor(
    readonly harnessDir: string,
    readonly reason: string,
  ) {
    super(`cannot install the Codex harness at '${harnessDir}': ${reason}`);
  }
}

export type CodexInstalled = {
  dir: string;
  fingerprint: string;
  /** Relative paths written under `dir`, sorted. */
  files: string[];
};

const onRoot = (rel: string) =>
  CODEX_ROOT_ENTRIES.some((e) => rel === e || rel.startsWith(`${e}/`));

/**
 * Copies the on-surface files of the tree at `harnessDir` that live under CODEX_ROOT_ENTRIES into
 * `dest` (created; must be empty or absent). Off-surface files (manifests, README stubs outside
 * those folders, `sub_agents/`) stay behind.
 */
export async function materialiseCodex(harnessDir: string, dest: string): Promise<CodexInstalled> {
  if (!isTree(CODEX_SURFACE, harnessDir)) {
    throw new CodexMaterialiseError(harnessDir, "it holds no AGENTS.md");
  }
  if (dirExists(dest) && readdirSync(dest).length > 0) {
    throw new CodexMaterialiseError(harnessDir, `the destination '${dest}' is not empty`);
  }
  const tree = readTree(CODEX_SURFACE, harnessDir);
  const files = Object.keys(tree).filter(onRoot).sort();
  for (const rel of files) writeFileSafe(dest, rel, tree[rel] as string | Uint8Array);
  return { dir: dest, fingerprint: await codexRolloutFingerprint(harnessDir), files };
}
