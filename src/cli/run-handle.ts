// Finds the store a browsing command reads (--runs DIR, HARNESS2_RUNS_DIR, HARNESS2_DB) and the
// sweep a RUN argument names: `last`, a full id, or a unique prefix. Every failure becomes one
// CliError line; it never creates a store, migrates nothing it may not, and never writes rows.

import type { Database } from "bun:sqlite";
import {
  asStoreError,
  openStore,
  StoreCorruptError,
  StoreForeignError,
  type StoreLocation,
  StoreMissingError,
  StoreNewerError,
  storeLocation,
} from "../../store/db.ts";
import { resolveRun } from "../../store/queries.ts";
import { type CliIO, type ParsedArgs, stringOpt } from "./command.ts";
import { CliError } from "./errors.ts";
import { EXIT } from "./exit-codes.ts";

/** The `--runs DIR` option every browsing command accepts. */
export const RUNS_OPTION = {
  type: "string",
  valueName: "DIR",
  description:
    "Runs directory (default: $HARNESS2_RUNS_DIR, else ./runs); $HARNESS2_DB overrides the database file",
} as const;

export function browseLocation(args: ParsedArgs, io: CliIO): StoreLocation {
  return storeLocation({ runsDir: stringOpt(args, "runs"), env: io.env, cwd: io.cwd });
}

/** The store at `loc`, or null when there is none yet. Files the store refuses become CliErrors. */
export function openForBrowsing(loc: StoreLocation): Database | null {
  try {
    return openStore(loc.dbPath, { create: false });
  } catch (err) {
    if (err instanceof StoreMissingError) return null;
    throw toCliError(err, loc.dbPath);
  }
}

/** Runs a read against the store, turning a damaged file met mid-read into one clear line. */
export function readStore<T>(loc: StoreLocation, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw toCliError(err, loc.dbPath);
  }
}

function toCliError(err: unknown, path: string): unknown {
  const mapped = asStoreError(err, path);
  if (
    mapped instanceof StoreNewerError ||
    mapped instanceof StoreCorruptError ||
    mapped instanceof StoreForeignError
  ) {
    return new CliError(mapped.message, EXIT.failed);
  }
  return mapped;
}

/** The sweep id RUN names, or a CliError (exit 1) saying why there is none or which it could be. */
export function resolveRunHandle(db: Database, handle: string, loc: StoreLocation): string {
  const r = resolveRun(db, handle);
  if (r.kind === "found") return r.id;
  if (r.kind === "ambiguous") {
    const shown = r.candidates.slice(0, 8).join(", ");
    const more = r.candidates.length > 8 ? `, … (${r.candidates.length - 8} more)` : "";
    throw new CliError(
      `'${handle}' matches ${r.candidates.length} sweeps: ${shown}${more}; give more of the id`,
      EXIT.failed,
    );
  }
  const lower = handle.trim().toLowerCase();
  if (lower === "last" || lower === "latest") {
    throw new CliError(`no sweeps recorded in ${loc.dbPath} yet`, EXIT.failed);
  }
  throw new CliError(
    `no sweep '${handle}' in ${loc.dbPath} (list them with 'harness2 runs')`,
    EXIT.failed,
  );
}
