// The named errors of a store's place and file (store/db.ts raises them; the CLI turns each into
// one line with its fix). Each says what is wrong with which path, and what to do.

import { type ErrorKind, Harness2Error } from "../src/core/lib/errors.ts";

export class StoreNewerError extends Harness2Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `${path} was written by a newer harness2 (store schema ${found}; this build reads up to ${supported}). Upgrade harness2, or point HARNESS2_DB at another file.`,
    );
  }
}

export class StoreCorruptError extends Harness2Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(
      `${path} is not a readable harness2 store (${detail}). It was left untouched; move it aside (or restore a backup) and run again, or point HARNESS2_DB at another file.`,
    );
  }
}

export class StoreForeignError extends Harness2Error {
  constructor(
    readonly path: string,
    readonly applicationId: number,
  ) {
    super(
      `${path} is an SQLite database that belongs to another program (application id ${applicationId}), not a harness2 store. It was left untouched; point HARNESS2_DB at another file.`,
    );
  }
}

export class StoreMissingError extends Harness2Error {
  constructor(readonly path: string) {
    super(`no harness2 store at ${path}`);
  }
}

/**
 * A store of an older schema met by a read-only open: reading it would need a migration, and the
 * read-only commands never write, so the file is left as it is.
 */
export class StoreOlderError extends Harness2Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `${path} was written by an older harness2 (store schema ${found}; this build reads ${supported}) and the read-only commands never upgrade a store. Fix: start a sweep (harness2 run or demo) or run 'harness2 judge' once; either upgrades it in place.`,
    );
  }
}

/** The fix for a runs directory that cannot hold the store: the same words wherever it is met. */
export const RUNS_DIR_FIX = "choose a writable directory with --runs or HARNESS2_RUNS_DIR";

/**
 * The runs directory or the store file's place cannot be used (a regular file where a directory
 * must be, a directory where the store file must be, nothing writable to create it under).
 * `what` says which of the two: a bad runs directory may come from a `--runs` flag.
 */
export class StorePlaceError extends Harness2Error {
  static override readonly errorKind = "environment";
  constructor(
    readonly path: string,
    readonly problem: string,
    fix: string,
    readonly what: "runs" | "db",
    kind?: ErrorKind,
  ) {
    super(problem, { fix, kind });
  }
}
