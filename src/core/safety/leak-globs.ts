// The answer-key tripwire: leak globs (fnmatch semantics, a leading dot kept) matched against
// every path that could reach model context. One scan (leakHits) serves folders and in-memory
// trees; a hit throws a TripwireError and emits `tripwire.fired`.

import type { Tree } from "../harness/surface.ts";
import { Harness2Error } from "../lib/errors.ts";
import { sortPaths, walkFiles } from "../lib/safe-fs.ts";
import { fireTripwire, type TripwireContext } from "./tripwire.ts";

// ── leak globs ───────────────────────────────────────────────────────────────────────────────

/**
 * Normalises one leak glob: `\` becomes `/`, then leading `./` and `/` are removed as PREFIXES.
 * Deliberate difference from the original, which stripped `.` and `/` as a character set and so
 * turned `.env` into `env` (docs/differences.md E15): here `.env` and `.secrets/**` keep their dot.
 */
export function normalizeLeakGlob(glob: string): string {
  let g = glob.replaceAll("\\", "/");
  for (;;) {
    if (g.startsWith("./")) g = g.slice(2);
    else if (g.startsWith("/")) g = g.slice(1);
    else return g;
  }
}

/**
 * Translates a glob to a regular-expression body with Python fnmatch semantics: `*` matches any
 * run of characters INCLUDING `/`, `?` one character, `[seq]` / `[!seq]` a class; case-sensitive.
 */
export function fnmatchSource(glob: string): string {
  const chars = [...glob]; // code points, so `?` matches one character as in Python
  let out = "";
  let i = 0;
  let star = false;
  const n = chars.length;
  while (i < n) {
    const c = chars[i] as string;
    i++;
    const wasStar = star;
    star = c === "*";
    if (c === "*") {
      if (!wasStar) out += ".*";
    } else if (c === "?") {
      out += ".";
    } else if (c === "[") {
      let j = i;
      if (chars[j] === "!") j++;
      if (chars[j] === "]") j++;
      while (j < n && chars[j] !== "]") j++;
      if (j >= n) {
        out += "\\[";
        continue;
      }
      let stuff = chars.slice(i, j).join("").replaceAll("\\", "\\\\").replaceAll("]", "\\]");
      i = j + 1;
      if (stuff.startsWith("!")) stuff = `^${stuff.slice(1)}`;
      else if (stuff.startsWith("^") || stuff.startsWith("[")) stuff = `\\${stuff}`;
      out += stuff === "" ? "(?!)" : `[${stuff}]`;
    } else {
      out += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    }
  }
  return out;
}

/** Returns the first glob a relative path matches (at the top level or at any depth), or null. */
export type LeakMatcher = (rel: string) => string | null;

/** A glob no regular expression can express (e.g. a reversed range `[z-a]`). */
export class InvalidLeakGlobError extends Harness2Error {
  constructor(
    readonly glob: string,
    readonly reason: string,
  ) {
    super(`leak glob '${glob}' cannot be used: ${reason}`);
  }
}

export function compileGlob(glob: string, norm: string): RegExp {
  try {
    return new RegExp(`^(?:.*/)?(?:${fnmatchSource(norm)})$`, "su");
  } catch (err) {
    throw new InvalidLeakGlobError(glob, (err as Error).message);
  }
}

/** One matcher for a glob list: `pat` or `*​/pat` against the whole `/`-separated path. */
export function leakMatcher(globs: readonly string[]): LeakMatcher {
  const compiled = globs
    .map((g) => ({ glob: g, norm: normalizeLeakGlob(g) }))
    .filter((g) => g.norm !== "")
    .map((g) => ({ glob: g.glob, re: compileGlob(g.glob, g.norm) }));
  if (compiled.length === 0) return () => null;
  return (rel) => {
    for (const { glob, re } of compiled) if (re.test(rel)) return glob;
    return null;
  };
}

/** A copy filter (for copyTreeSafe) that keeps only files no leak glob matches. */
export function leakFilter(globs: readonly string[]): (rel: string) => boolean {
  const match = leakMatcher(globs);
  return (rel) => match(rel) === null;
}

export function leakMessage(hits: { rel: string; glob: string }[], where: string): string {
  const shown = hits
    .slice(0, 8)
    .map((h) => h.rel)
    .join(", ");
  const more = hits.length > 8 ? ` (+${hits.length - 8} more)` : "";
  return (
    `answer-key path(s) would enter model context from ${where}: ${shown}${more} ` +
    `(matched leak glob '${hits[0]?.glob}'). This tripwire found a read-path bug; find the path ` +
    "that produced the file rather than widening around it."
  );
}

/** THE leak-glob scan: every path of `paths` that a glob matches, with the glob, in order. */
export function leakHits(
  paths: Iterable<string>,
  globs: readonly string[],
): { rel: string; glob: string }[] {
  const match = leakMatcher(globs);
  const hits: { rel: string; glob: string }[] = [];
  for (const rel of paths) {
    const glob = match(rel);
    if (glob !== null) hits.push({ rel, glob });
  }
  return hits;
}

/** Refuses any file under `root` matching a leak glob. A missing root or no globs is a no-op. */
export function assertNoLeakPaths(
  root: string,
  globs: readonly string[],
  ctx: TripwireContext,
  files: readonly string[] = walkFiles(root),
): void {
  const hits = leakHits(files, globs);
  const first = hits[0];
  if (first === undefined) return;
  throw fireTripwire(
    ctx,
    { kind: "leak_path", path: first.rel, marker: first.glob },
    leakMessage(hits, root),
  );
}

/** Same leak-glob rule over an in-memory tree's paths. */
export function assertTreeHasNoLeakPaths(
  tree: Tree,
  globs: readonly string[],
  ctx: TripwireContext,
): void {
  const hits = leakHits(sortPaths(Object.keys(tree)), globs);
  const first = hits[0];
  if (first === undefined) return;
  throw fireTripwire(
    ctx,
    { kind: "leak_path", path: first.rel, marker: first.glob },
    // Addressed to the author (retry feedback): it names the paths, not what they are reserved for.
    `the harness holds path(s) that may never be served as evidence: ` +
      `${hits.map((h) => h.rel).join(", ")}; remove or rename them.`,
  );
}
