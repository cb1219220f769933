// Content digests of directories and files (harness trees, rollout outputs, evidence folders).
// Streams every file through the hash in fixed-size chunks — never holds a file or a tree in
// memory — and never follows a symlink: a link is hashed as its link text.

import { createHash, type Hash } from "node:crypto";
import { closeSync, constants, openSync, readlinkSync, readSync } from "node:fs";
import { join } from "node:path";
import { dirExists, sortPaths, walkFiles } from "./safe-fs.ts";

export type HashAlgorithm = "sha1" | "sha256";

/** The completion marker's file name; never part of any fingerprint (see runmark.ts). */
export const RUN_MARK_FILE = ".adapt_complete";

const CHUNK = 1 << 20;
const NUL = new Uint8Array([0]);
const UNREADABLE = new TextEncoder().encode("<unreadable>");
const SKIP_DIRS: ReadonlySet<string> = new Set(["__pycache__"]);

/**
 * True for files no fingerprint includes: the run mark (and its in-flight temp files), Python
 * bytecode and `__pycache__`, and `.DS_Store`. The temp-file exclusion is ours, so a marker
 * caught mid-write is never hashed (docs/differences.md X11).
 */
export function isFingerprintExcluded(rel: string): boolean {
  const segs = rel.split("/");
  const base = segs[segs.length - 1] ?? "";
  return (
    segs.includes("__pycache__") ||
    base === RUN_MARK_FILE ||
    (base.startsWith(`${RUN_MARK_FILE}.`) && base.endsWith(".tmp")) ||
    base.endsWith(".pyc") ||
    base === ".DS_Store"
  );
}

/** How long hashing may hold the event loop before it lets timers, signals and renders run. */
const YIELD_AFTER_MS = 20;

/** Hands the event loop a turn when hashing has held it for YIELD_AFTER_MS. */
class Pacer {
  private since = performance.now();

  async maybeYield(): Promise<void> {
    if (performance.now() - this.since < YIELD_AFTER_MS) return;
    await new Promise<void>((done) => setImmediate(done));
    this.since = performance.now();
  }
}

/**
 * Feeds one file's bytes into `hash` in CHUNK-sized reads. The reads are synchronous (an open,
 * a read and a close through the thread pool cost more than reading a small file), and `pacer`
 * yields between chunks. Throws when the file cannot be opened.
 */
async function streamInto(hash: Hash, path: string, buf: Uint8Array, pacer: Pacer): Promise<void> {
  // O_NONBLOCK: a FIFO swapped in after the walk reads as empty instead of blocking the process.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    for (;;) {
      const bytesRead = readSync(fd, buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      hash.update(buf.subarray(0, bytesRead));
      await pacer.maybeYield();
    }
  } finally {
    closeSync(fd);
  }
}

/** A read buffer left unfilled: a small file touches only the pages it is read into. */
function readBuffer(): Uint8Array {
  return Buffer.allocUnsafe(CHUNK);
}

export type HashDirectoryOptions = {
  algorithm?: HashAlgorithm;
  /** Extra exclusions on top of isFingerprintExcluded, given the `/`-separated relative path. */
  exclude?: (rel: string) => boolean;
};

/**
 * Full hex digest of every file under `dir`, in path-segment order (`a/b` < `a-b` < `a.b`, as
 * Python's Path sort). Per file: relative path (UTF-8), NUL, content bytes, NUL. A file that
 * cannot be opened contributes the literal `<unreadable>`; a symlink contributes
 * `<symlink> <target>` and is never followed (so a link out of the tree cannot pull in what it
 * points at). A missing directory hashes as empty.
 */
export async function hashDirectory(dir: string, opts: HashDirectoryOptions = {}): Promise<string> {
  const links: string[] = [];
  const files = walkFiles(dir, { skipDirs: SKIP_DIRS, onSymlink: (rel) => links.push(rel) });
  const linkSet = new Set(links);
  const hash = createHash(opts.algorithm ?? "sha1");
  const buf = readBuffer();
  const pacer = new Pacer();
  for (const rel of sortPaths([...files, ...links])) {
    if (isFingerprintExcluded(rel) || opts.exclude?.(rel)) continue;
    hash.update(rel, "utf8");
    hash.update(NUL);
    const abs = join(dir, rel);
    if (linkSet.has(rel)) {
      hash.update(`<symlink> ${readLinkOrEmpty(abs)}`, "utf8");
    } else {
      await streamInto(hash, abs, buf, pacer).catch(() => hash.update(UNREADABLE));
    }
    hash.update(NUL);
  }
  return hash.digest("hex");
}

function readLinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

/** Full hex digest of one file's bytes, streamed. Throws when the file cannot be opened. */
export async function hashFile(path: string, algorithm: HashAlgorithm = "sha256"): Promise<string> {
  const hash = createHash(algorithm);
  await streamInto(hash, path, readBuffer(), new Pacer());
  return hash.digest("hex");
}

/**
 * The fingerprint of a harness (or output) directory: `"base"` for null (the adapter's own,
 * unmodified base harness), `"absent"` when `dir` is not a directory, else the first 16 hex of the
 * SHA-1 of hashDirectory — byte-identical to the original's fingerprints for regular files.
 * "base" is a constant whatever the base harness holds (docs/differences.md R11): a caller that
 * wants base rollouts re-rolled when the base harness changes fingerprints the base directory
 * instead.
 */
export async function treeFingerprint(dir: string | null): Promise<string> {
  if (dir === null) return "base";
  if (!dirExists(dir)) return "absent";
  return (await hashDirectory(dir, { algorithm: "sha1" })).slice(0, 16);
}
