// The one way harness2 replaces a file whole (docs/architecture.md "Files and the store"): the new content goes
// to a temporary file beside it, then a rename puts it in place, so a reader — or a process killed
// halfway — sees the old file or the new one, never half of either. The temporary name is unique
// per call (two writers in one process never share it) and is removed when anything fails.

import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export type AtomicWriteOptions = {
  /** Make the folder first (default false: a missing folder is the caller's error). */
  mkdir?: boolean;
  /** Give the new file the mode of the one it replaces (default false: the process's default). */
  keepMode?: boolean;
  /** The new file's mode (wins over keepMode). */
  mode?: number;
};

/** Replaces `path` with `data` in one rename; throws what went wrong, leaving no temporary file. */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): void {
  if (opts.mkdir) mkdirSync(dirname(path), { recursive: true });
  let mode = opts.mode;
  if (mode === undefined && opts.keepMode) {
    try {
      mode = lstatSync(path).mode & 0o777;
    } catch {
      mode = undefined;
    }
  }
  const tmp = `${path}.${process.pid}.${crypto.randomUUID()}.tmp`;
  try {
    writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
