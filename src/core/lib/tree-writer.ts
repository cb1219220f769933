// Writing many files into one folder with the rules of safe-fs.ts and fewer system calls (issue 36:
// building evidence trees was most of the demo's own CPU). A writer remembers every folder under its
// root it has made, or found to be a real directory (never a symlink), so each later file under it
// needs no walk up its parents; a new file is created exclusively (O_EXCL, never following a link),
// so nothing already there is ever written through. Anything already at a path — a file, a link, a
// FIFO — goes the careful way of writeFileSafe / linkOrWriteSafe.

import {
  closeSync,
  constants as fsConstants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
} from "node:fs";
import { join } from "node:path";
import {
  linkOrWriteSafe,
  lstatOrNull,
  PathEscapeError,
  relSegments,
  safeJoin,
  writeAll,
  writeFileSafe,
} from "./safe-fs.ts";

const CREATE_NEW =
  fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** Writes files under one root (chosen by the caller, as for safeJoin). */
export class TreeWriter {
  /** Folders under the root known to be real directories, as `/`-joined relative paths. */
  readonly #dirs = new Set<string>([""]);

  constructor(readonly root: string) {}

  /**
   * Makes the folders of `segs` (all but the last) under the root, each a real directory: made
   * here, or found as one. False when one is something else (a symlink above all): the caller then
   * takes the careful path, which refuses or replaces as safe-fs does.
   */
  #parents(segs: readonly string[]): boolean {
    let rel = "";
    for (let i = 0; i < segs.length - 1; i++) {
      rel = rel === "" ? (segs[i] as string) : `${rel}/${segs[i]}`;
      if (this.#dirs.has(rel)) continue;
      const path = join(this.root, rel);
      try {
        mkdirSync(path);
      } catch (err) {
        if (errno(err) !== "EEXIST") throw err;
        const st = lstatSync(path);
        if (!st.isDirectory()) return false;
      }
      this.#dirs.add(rel);
    }
    return true;
  }

  #segments(rel: string): string[] {
    const segs = relSegments(rel);
    if (segs.length === 0) throw new PathEscapeError(rel, "it names the root itself", this.root);
    return segs;
  }

  /** Writes `data` to `root/rel` (see writeFileSafe for what happens to what is already there). */
  write(rel: string, data: string | Uint8Array): string {
    const segs = this.#segments(rel);
    if (!this.#parents(segs)) return writeFileSafe(this.root, rel, data);
    const path = join(this.root, ...segs);
    let fd: number;
    try {
      fd = openSync(path, CREATE_NEW, 0o666);
    } catch (err) {
      if (errno(err) === "EEXIST" || errno(err) === "ELOOP") {
        return writeFileSafe(this.root, rel, data);
      }
      throw err;
    }
    try {
      writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
    } finally {
      closeSync(fd);
    }
    return path;
  }

  /**
   * Hard-links `srcRoot/rel` to `root/rel` when it is a regular file of `data`'s size (the caller
   * read `data` from it), else writes `data` (see linkOrWriteSafe).
   */
  link(srcRoot: string, rel: string, data: string | Uint8Array): string {
    const segs = this.#segments(rel);
    if (!this.#parents(segs)) return linkOrWriteSafe(srcRoot, this.root, rel, data);
    const from = safeJoin(srcRoot, rel);
    const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    const st = lstatOrNull(from);
    if (!st?.isFile() || st.size !== size) return this.write(rel, data);
    const path = join(this.root, ...segs);
    try {
      linkSync(from, path);
      return path;
    } catch {
      // Something already there, another filesystem, no right to link: the careful way.
      return linkOrWriteSafe(srcRoot, this.root, rel, data);
    }
  }
}
