// The harness tree (docs/method.md §1): reading it from and writing it to disk, autotrigger, diffs
// and diversity, plus the surface rules and validation re-exported from their own modules. Walks
// and writes go through safe-fs: a tree is never read or written through a symlink or outside its
// root.

import { mkdirSync, readFileSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { Harness2Error } from "../lib/errors.ts";
import {
  comparePathSegments,
  dirExists,
  isRegularFile,
  relSegments,
  sortPaths,
  walkFiles,
} from "../lib/safe-fs.ts";
import { TreeWriter } from "../lib/tree-writer.ts";
import { parseFrontmatter, scalarField } from "./frontmatter.ts";
import {
  alwaysOnText,
  codePointLength,
  isStubPath,
  isSurfaceKey,
  mentionsName,
  normalizeRel,
  type SurfaceSpec,
  skillNames,
  type Tree,
  type TreeValue,
  textOf,
  treeValueOf,
} from "./surface.ts";

export {
  alwaysOnText,
  codePointLength,
  isAllowed,
  isStubPath,
  isSurfaceKey,
  mentionsName,
  normalizeRel,
  SurfaceSpec,
  skillNames,
  subagentNames,
  Tree,
  type TreeValue,
  textOf,
} from "./surface.ts";
export {
  Census,
  checkHooks,
  RESERVED_SCRIPTS,
  TreeValidationError,
  type ValidateOptions,
  validate,
} from "./validate.ts";

/** A harness tree on disk holds a symlink; trees must be real files only. */
export class TreeSymlinkError extends Harness2Error {
  constructor(
    readonly dir: string,
    readonly paths: readonly string[],
  ) {
    super(
      `harness tree '${dir}' contains ${paths.length === 1 ? "a symlink" : "symlinks"} (${paths.join(", ")}); a harness must hold real files only: replace each link with the file itself`,
    );
  }
  /** The first symlink found. */
  get path(): string {
    return this.paths[0] ?? "";
  }
}

/** writeTree was given a key that is not a normal, on-surface path. */
export class TreeKeyError extends Harness2Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`cannot write tree key ${JSON.stringify(key)}: ${reason}`);
  }
}

const SKIP_DIRS: ReadonlySet<string> = new Set(["__pycache__"]);

/**
 * Reads the on-surface files under `dir` (docs/method.md §1). A missing directory gives `{}`. The
 * surface's README stubs (the fixed files every written tree gets) are skipped silently; other
 * off-surface files are skipped and, when `rejected` is given, their relative paths are pushed
 * onto it. Any symlink under `dir` is refused with TreeSymlinkError.
 */
export function readTree(surface: SurfaceSpec, dir: string, rejected?: string[]): Tree {
  const symlinks: string[] = [];
  const files = walkFiles(dir, { skipDirs: SKIP_DIRS, onSymlink: (rel) => symlinks.push(rel) });
  if (symlinks.length > 0) throw new TreeSymlinkError(dir, symlinks);
  const tree: Tree = {};
  for (const rel of files) {
    if (isStubPath(surface, rel)) continue;
    if (!isSurfaceKey(surface, rel)) {
      rejected?.push(rel);
      continue;
    }
    // The walk met no symlink anywhere under `dir`, so the plain join cannot leave it.
    tree[rel] = treeValueOf(new Uint8Array(readFileSync(join(dir, rel))));
  }
  return tree;
}

/** True iff `dir` exists and holds at least one always-on file as a regular file (docs/method.md §1). */
export function isTree(surface: SurfaceSpec, dir: string): boolean {
  return dirExists(dir) && surface.alwaysOn.some((p) => isRegularFile(join(dir, p)));
}

export type WriteTreeOptions = {
  /** Write the surface's README stubs, replacing whatever is at their paths (default true). */
  stubs?: boolean;
  /**
   * The folder `tree` was read from, when it never changes again (a candidate harness): its files
   * are hard-linked into `dest` instead of written, where the filesystem allows.
   */
  linkFrom?: string;
};

/**
 * Makes `dest` hold exactly `tree` on the surface (docs/method.md §1): on-surface files and stubs
 * no longer in the tree are removed, off-surface files are kept, always-on files always exist.
 * Fixes docs/differences.md H10: directories this call emptied are removed, and keys that are not
 * normal on-surface paths are refused (TreeKeyError) before anything on disk changes. Returns
 * `dest`.
 */
export function writeTree(
  surface: SurfaceSpec,
  tree: Tree,
  dest: string,
  opts: WriteTreeOptions = {},
): string {
  const entries = checkedEntries(surface, tree);
  // A folder made just now is empty: nothing in it to remove, so no walk (most trees written are
  // new: a pool's candidates, a rollout's harness).
  const made = mkdirSync(dest, { recursive: true }) !== undefined;

  const withStubs = opts.stubs ?? true;
  // Everything written below: the tree, empty always-on files it lacks, and the stubs.
  const written = new Map<string, TreeValue>();
  for (const p of surface.alwaysOn) written.set(p, "");
  for (const [rel, value] of entries) written.set(rel, value);
  if (withStubs) for (const stub of surface.stubs) written.set(stub.path, stub.body);

  // On-surface files and stubs that will not be rewritten are removed (a file that will be is
  // overwritten in place: same end state, no directory churn); symlinks there are always removed.
  const owned = (rel: string) => isSurfaceKey(surface, rel) || isStubPath(surface, rel);
  const doomed: string[] = [];
  const files = made ? [] : walkFiles(dest, { onSymlink: (rel) => owned(rel) && doomed.push(rel) });
  for (const rel of files) if (owned(rel) && !written.has(rel)) doomed.push(rel);
  const parents = new Set<string>();
  for (const rel of doomed) {
    unlinkSync(join(dest, ...rel.split("/")));
    const segs = rel.split("/");
    for (let i = segs.length - 1; i > 0; i--) parents.add(segs.slice(0, i).join("/"));
  }
  removeEmptiedDirs(dest, parents);

  const writer = new TreeWriter(dest);
  const from = opts.linkFrom;
  const fromTree = new Set(entries.map(([k]) => k));
  for (const [rel, value] of written) {
    if (from !== undefined && fromTree.has(rel)) writer.link(from, rel, value);
    else writer.write(rel, value);
  }
  return dest;
}

function checkedEntries(surface: SurfaceSpec, tree: Tree): [string, TreeValue][] {
  const seen = new Map<string, string>();
  const out: [string, TreeValue][] = [];
  for (const key of Object.keys(tree).sort(comparePathSegments)) {
    const rel = normalizeRel(key); // throws PathEscapeError for `..` and absolute keys
    if (!isSurfaceKey(surface, rel)) {
      throw new TreeKeyError(key, `it is not on the editable surface of ${surface.name}`);
    }
    const other = seen.get(rel);
    if (other !== undefined) {
      throw new TreeKeyError(key, `it names the same file as ${JSON.stringify(other)}`);
    }
    seen.set(rel, key);
    out.push([rel, tree[key] as TreeValue]);
  }
  return out;
}

/** Removes the directories (deepest first) that are empty now; never `dest` itself. */
function removeEmptiedDirs(dest: string, dirs: Set<string>): void {
  const ordered = [...dirs].sort((a, b) => relSegments(b).length - relSegments(a).length);
  for (const rel of ordered) {
    try {
      rmdirSync(join(dest, ...rel.split("/")));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT" && code !== "ENOTDIR") {
        throw err;
      }
    }
  }
}

const TEMPLATE_SLOT = /\{(name|desc)\}/g;

/**
 * Adds a trigger line to the surface's autotrigger file for every skill the always-on text does not
 * name (docs/method.md §1), as long as the always-on text stays within the cap. MUTATES `tree`;
 * returns the names it added lines for. A skill whose line would not fit is skipped (validate
 * reports it).
 */
export function autotrigger(surface: SurfaceSpec, tree: Tree, alwaysOnMax?: number): string[] {
  const cap = alwaysOnMax ?? surface.alwaysOnMax;
  const file = surface.autotriggerFile;
  const added: string[] = [];
  let text = alwaysOnText(surface, tree);
  let length = codePointLength(text);
  for (const name of skillNames(surface, tree)) {
    if (mentionsName(text, name)) continue;
    const current = tree[file];
    if (current instanceof Uint8Array) break; // not text: validate reports it
    const fm = parseFrontmatter(textOf(tree[`${surface.skillDir}/${name}/SKILL.md`]));
    // One line, whatever the YAML style (block scalars span lines); trailing dots dropped.
    const described = (scalarField(fm, "description") ?? "")
      .replace(/\s+/g, " ")
      .replace(/\.+$/, "")
      .trim();
    const desc = described === "" ? `the ${name} workflow applies` : described;
    const line = surface.triggerLine.replace(TEMPLATE_SLOT, (_, k: string) =>
      k === "name" ? name : desc,
    );
    const before = current ?? "";
    const trimmed = before.trimEnd();
    const next = trimmed === "" ? line : `${trimmed}\n${line}`;
    // The original estimated the new length (+2 for a separator); this measures it exactly,
    // counting only what changes: the file's trailing whitespace goes, a newline and the line come.
    const grown =
      trimmed === ""
        ? length - codePointLength(before) + codePointLength(line)
        : length - codePointLength(before.slice(trimmed.length)) + 1 + codePointLength(line);
    if (grown > cap) continue;
    tree[file] = next;
    text = alwaysOnText(surface, tree);
    length = grown;
    added.push(name);
  }
  return added;
}

/** What changed between two trees (docs/method.md §1); each list sorted by path segments. */
export const TreeDiff = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  modified: z.array(z.string()),
  /** Always-on length (code points) after minus before. */
  alwaysOnCharDelta: z.number().int(),
});
export type TreeDiff = z.infer<typeof TreeDiff>;

export function sameValue(a: TreeValue, b: TreeValue): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function diffSummary(surface: SurfaceSpec, before: Tree, after: Tree): TreeDiff {
  const added: string[] = [];
  const removed: string[] = [];
  const modified: string[] = [];
  for (const [k, v] of Object.entries(after)) {
    const old = before[k];
    if (old === undefined) added.push(k);
    else if (!sameValue(old, v)) modified.push(k);
  }
  for (const k of Object.keys(before)) if (after[k] === undefined) removed.push(k);
  return {
    added: sortPaths(added),
    removed: sortPaths(removed),
    modified: sortPaths(modified),
    alwaysOnCharDelta:
      codePointLength(alwaysOnText(surface, after)) -
      codePointLength(alwaysOnText(surface, before)),
  };
}

export const Diversity = z.object({
  n: z.number().int().nonnegative(),
  /** Trees that differ in exact content. */
  nDistinct: z.number().int().nonnegative(),
  meanLineJaccard: z.number().min(0).max(1),
});
export type Diversity = z.infer<typeof Diversity>;

// Python's str.splitlines() boundaries.
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

function lineSet(tree: Tree): Set<string> {
  const out = new Set<string>();
  for (const [rel, value] of Object.entries(tree)) {
    if (typeof value !== "string") {
      // A binary file counts as one "line": its content hash.
      out.add(`${rel}:\0bytes:${Bun.hash(value).toString(16)}`);
      continue;
    }
    for (const line of value.split(LINE_BREAK)) if (line.trim() !== "") out.add(`${rel}:${line}`);
  }
  return out;
}

function canonical(tree: Tree): string {
  return JSON.stringify(
    sortPaths(Object.keys(tree)).map((k) => {
      const v = tree[k] as TreeValue;
      return [k, typeof v === "string" ? v : { b64: Buffer.from(v).toString("base64") }];
    }),
  );
}

/**
 * How different a set of trees is (docs/method.md §1): distinct trees by exact content and the mean
 * pairwise Jaccard similarity of their `<rel>:<line>` sets, rounded to 4 decimals.
 */
export function diversity(trees: Record<string, Tree>): Diversity {
  const list = Object.values(trees);
  const n = list.length;
  if (n < 2) return { n, nDistinct: n, meanLineJaccard: 1.0 };
  const sets = list.map(lineSet);
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = sets[i] as Set<string>;
      const b = sets[j] as Set<string>;
      let inter = 0;
      for (const x of a) if (b.has(x)) inter++;
      const union = a.size + b.size - inter;
      sum += union === 0 ? 1 : inter / union;
      pairs++;
    }
  }
  return {
    n,
    nDistinct: new Set(list.map(canonical)).size,
    meanLineJaccard: Math.round((sum / pairs) * 10_000) / 10_000,
  };
}
