// File operations that stay inside a root: every tree read, write, copy and walk in harness2 goes
// through here. Nothing in this module ever follows a symlink or resolves `..` to a place outside
// the root it was given; a path that tries is refused with a PathEscapeError, never clamped.

import {
  closeSync,
  copyFileSync,
  constants as fsConstants,
  fstatSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { Harness2Error } from "./errors.ts";
import { compareCodePoints } from "./path-order.ts";

export { compareCodePoints, comparePathSegments, sortPaths } from "./path-order.ts";

/** A relative path that would leave its root (absolute, `..`, or through a symlinked parent). */
export class PathEscapeError extends Harness2Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly root?: string,
  ) {
    super(`path '${path}' escapes ${root === undefined ? "its root" : `'${root}'`}: ${reason}`);
  }
}

/** An operation met a symlink where it needs a real file or directory. */
export class SymlinkRefusedError extends Harness2Error {
  constructor(
    readonly path: string,
    readonly root: string,
  ) {
    super(`'${path}' under '${root}' is a symlink; harness2 never follows symlinks in a tree`);
  }
}

/**
 * Splits a relative path into its segments, treating `\` as a separator and dropping empty and
 * `.` segments. Refuses absolute paths (`/x`, `C:/x`), any `..` segment and NUL bytes.
 */
export function relSegments(rel: string): string[] {
  const slashed = rel.replaceAll("\\", "/");
  if (slashed.includes("\0")) throw new PathEscapeError(rel, "it contains a NUL byte");
  if (slashed.startsWith("/")) throw new PathEscapeError(rel, "it is absolute");
  if (/^[A-Za-z]:/.test(slashed)) throw new PathEscapeError(rel, "it names a drive");
  const out: string[] = [];
  for (const seg of slashed.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") throw new PathEscapeError(rel, "it has a '..' segment");
    out.push(seg);
  }
  return out;
}

/** The real path of `p`: its deepest existing ancestor resolved through symlinks, plus the rest. */
function realish(p: string): string {
  let head = resolve(p);
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return join(head, ...tail);
      tail.unshift(head.slice(parent.length).replace(/^[/\\]+/, ""));
      head = parent;
    }
  }
}

/**
 * True when every existing entry from `root` down to the parent of `root/segs…` is a real
 * directory (the walk stops at the first missing one). Then nothing can redirect the path: its
 * real parent is the real root plus these segments, inside the root, and `realish` need not run.
 * A symlink, another kind of entry or an error answers false, for the full check.
 */
function plainParentChain(root: string, segs: readonly string[]): boolean {
  let path = root;
  for (let i = 0; i < segs.length - 1; i++) {
    path = join(path, segs[i] as string);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (st === undefined) return true;
    if (!st.isDirectory()) return false;
  }
  return true;
}

function within(child: string, root: string): boolean {
  return child === root || child.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Joins `rel` under `root`, refusing `..`, absolute paths, and any path whose real parent
 * directory (after resolving existing symlinks) lies outside the real root.
 */
export function safeJoin(root: string, rel: string): string {
  const segs = relSegments(rel);
  if (segs.length === 0) throw new PathEscapeError(rel, "it names the root itself", root);
  const target = join(root, ...segs);
  if (plainParentChain(root, segs)) return target;
  const realRoot = realish(root);
  if (!within(realish(dirname(target)), realRoot)) {
    throw new PathEscapeError(rel, "a parent directory is a symlink leading outside", root);
  }
  return target;
}

export type WalkOptions = {
  /** Directory names never descended into (e.g. `__pycache__`). */
  skipDirs?: ReadonlySet<string>;
  /** Called with the relative path of every symlink met (files and directories alike). */
  onSymlink?: (rel: string) => void;
};

/**
 * Every regular file under `root` as a `/`-separated relative path, sorted by path segments.
 * Symlinks are never followed (reported through `onSymlink`); other special files are ignored.
 * A missing root yields no files.
 */
export function walkFiles(root: string, opts: WalkOptions = {}): string[] {
  const out: string[] = [];
  // The root itself was chosen by the caller and may be reached through a symlink; only what
  // lies inside it is guarded.
  if (!dirExists(root)) return out;
  walkInto(root, "", opts, out);
  return out;
}

function walkInto(abs: string, prefix: string, opts: WalkOptions, out: string[]): void {
  const entries = readdirSync(abs, { withFileTypes: true });
  entries.sort((x, y) => compareCodePoints(x.name, y.name));
  for (const e of entries) {
    const rel = prefix === "" ? e.name : `${prefix}/${e.name}`;
    if (e.isSymbolicLink()) opts.onSymlink?.(rel);
    else if (e.isDirectory()) {
      if (!opts.skipDirs?.has(e.name)) walkInto(join(abs, e.name), rel, opts, out);
    } else if (e.isFile()) out.push(rel);
  }
}

/** Reads `root/rel` as bytes; refuses escapes and a symlink at the path itself. */
export function readFileBytes(root: string, rel: string): Uint8Array {
  const path = safeJoin(root, rel);
  if (lstatSync(path).isSymbolicLink()) throw new SymlinkRefusedError(rel, root);
  return new Uint8Array(readFileSync(path));
}

/**
 * Creates `dir` (and its parents) unless `made` says this caller already did: writing a tree
 * file by file would otherwise ask the kernel for the same directories once per file.
 */
function makeDir(dir: string, made?: Set<string>): void {
  if (made?.has(dir)) return;
  mkdirSync(dir, { recursive: true });
  made?.add(dir);
}

/**
 * Writes `data` (a string is written as UTF-8) to `root/rel`, creating parent directories.
 * A symlink already at the path is replaced by a regular file, never written through; so are a
 * file shared by hard link (a candidate harness's file linked into evidence), a FIFO and a device
 * node, while a file that already holds exactly `data` is left as it is. `made`: directories the
 * caller has already created in this batch (see makeDir).
 */
export function writeFileSafe(
  root: string,
  rel: string,
  data: string | Uint8Array,
  made?: Set<string>,
): string {
  const path = safeJoin(root, rel);
  makeDir(dirname(path), made);
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  let fd = openNoFollow(path);
  try {
    const st = fstatSync(fd);
    const regular = st.isFile();
    if (regular && st.size === bytes.byteLength && st.size > 0 && sameBytes(fd, bytes)) return path;
    if (st.nlink > 1 || !regular) {
      closeSync(fd);
      fd = -1;
      // Shared with another name, or a FIFO or device: replaced, never written through.
      unlinkSync(path);
      fd = openNoFollow(path);
    } else if (st.size > 0) ftruncateSync(fd, 0);
    writeAll(fd, bytes);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  return path;
}

/** Writes all of `bytes` to `fd` from its start (a write may take only part of them). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.byteLength; ) {
    done += writeSync(fd, bytes, done, bytes.byteLength - done, done);
  }
}

/** Opens `path` for writing, creating it; a symlink at the path is unlinked first, never followed. */
function openNoFollow(path: string): number {
  try {
    return openSync(path, WRITE_NO_FOLLOW, 0o666);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ELOOP") throw err;
    unlinkSync(path); // a symlink sits at the path: it is replaced, never written through
    return openSync(path, WRITE_NO_FOLLOW, 0o666);
  }
}

/** Whether the open file `fd` (already known to be `bytes.byteLength` long) holds `bytes`. */
function sameBytes(fd: number, bytes: Uint8Array): boolean {
  const have = Buffer.allocUnsafe(bytes.byteLength);
  let got = 0;
  while (got < have.length) {
    const n = readSync(fd, have, got, have.length - got, got);
    if (n === 0) return false;
    got += n;
  }
  return have.equals(bytes);
}

/**
 * Puts `data` at `root/rel` as a hard link to `srcRoot/rel` when that is a regular file (never a
 * symlink) of the same size — an immutable file shared, not copied — and writes it otherwise
 * (another filesystem, no link permission, a differing file). The caller promises that `data` was
 * read from that file and that neither name is ever written in place afterwards (writeFileSafe
 * replaces a shared file, never writes through it). Returns the path.
 */
export function linkOrWriteSafe(
  srcRoot: string,
  root: string,
  rel: string,
  data: string | Uint8Array,
  made?: Set<string>,
): string {
  const from = safeJoin(srcRoot, rel);
  const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
  const st = lstatOrNull(from);
  if (!st?.isFile() || st.size !== size) return writeFileSafe(root, rel, data, made);
  const path = safeJoin(root, rel);
  makeDir(dirname(path), made);
  try {
    // Whatever sits at the path (a symlink included) is unlinked, never written through.
    if (lstatOrNull(path) !== null) unlinkSync(path);
    linkSync(from, path);
    return path;
  } catch {
    return writeFileSafe(root, rel, data, made);
  }
}

/**
 * Open-or-create for read and write that refuses (ELOOP) when the path itself is a symlink,
 * dangling or not. Not truncating: writeFileSafe first looks at what is there.
 */
const WRITE_NO_FOLLOW = fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_NOFOLLOW;

function removeIfSymlink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

export type CopyOptions = {
  /** Keep only the files for which this returns true (given the `/`-separated relative path). */
  filter?: (rel: string) => boolean;
  skipDirs?: ReadonlySet<string>;
  /**
   * Hard-link each file instead of copying it, where the filesystem allows (a copy otherwise).
   * Only for trees that neither side ever writes in place afterwards: a write through one name
   * is seen through the other.
   */
  link?: boolean;
};

export type CopyResult = {
  files: number;
  bytes: number;
  /** Relative paths of symlinks in the source that were skipped, never followed. */
  skippedSymlinks: string[];
};

/**
 * Copies every regular file under `src` to the same relative path under `dst` (creating `dst`).
 * Symlinks in `src` are skipped and reported; nothing is ever written outside `dst`.
 */
export function copyTreeSafe(src: string, dst: string, opts: CopyOptions = {}): CopyResult {
  const skippedSymlinks: string[] = [];
  const files = walkFiles(src, {
    skipDirs: opts.skipDirs,
    onSymlink: (rel) => skippedSymlinks.push(rel),
  });
  const made = new Set<string>();
  makeDir(dst, made);
  let count = 0;
  let bytes = 0;
  for (const rel of files) {
    if (opts.filter && !opts.filter(rel)) continue;
    const from = safeJoin(src, rel);
    if (lstatSync(from).isSymbolicLink()) {
      skippedSymlinks.push(rel); // swapped in after the walk: still never followed
      continue;
    }
    const to = safeJoin(dst, rel);
    makeDir(dirname(to), made);
    if (opts.link === true && tryLink(from, to)) {
      bytes += lstatSync(to).size;
      count++;
      continue;
    }
    try {
      // Destinations are normally fresh: an exclusive create never follows anything at `to`.
      copyFileSync(from, to, fsConstants.COPYFILE_EXCL);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      removeIfSymlink(to);
      copyFileSync(from, to);
    }
    bytes += lstatSync(to).size;
    count++;
  }
  return { files: count, bytes, skippedSymlinks };
}

/**
 * Links `to` to the regular file `from`; false when it cannot (another filesystem, no permission,
 * something already at `to`), for the caller to copy instead. link(2) never follows a symlink
 * at `to`: an existing entry there is EEXIST.
 */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch {
    return false;
  }
}

/** lstat that answers null for a missing path (a dangling symlink still counts as present). */
export function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/** True iff `path` exists as a regular file (a symlink does not count). */
export function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The names of the directories directly under `dir`, sorted, dot-directories left out; [] when `dir` is not one. */
export function subdirectories(dir: string): string[] {
  if (!dirExists(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort();
}

/** True iff `path` is a directory (following a symlink at `path` itself, as for a root). */
export function dirExists(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
