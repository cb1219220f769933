// Finds the store a browsing command reads (--runs DIR, HARNESS2_RUNS_DIR, HARNESS2_DB) and the
// sweep a RUN argument names: `last`, a full id, or a unique prefix. Every failure becomes one
// CliError line; it never creates a store, and only judge (which records) may migrate or write.

import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import {
  asStoreError,
  openStore,
  type StoreLocation,
  StoreMissingError,
  StorePlaceError,
  storeLocation,
  storePlaceProblem,
} from "../../../store/db.ts";
import { openRunStore, type RunStore } from "../../../store/open.ts";
import { resolveRun } from "../../../store/sweep-list.ts";
import type { StoreWriterOptions } from "../../../store/writer.ts";
import type { CliIO } from "../command.ts";
import { CliError } from "../errors.ts";

/** The `--runs DIR` option every browsing command accepts. */
export const RUNS_OPTION = {
  type: "string",
  valueName: "DIR",
  description:
    "Runs directory (default: $HARNESS2_RUNS_DIR, else ./runs); $HARNESS2_DB overrides the database file",
} as const;

/** A command line with `--runs` (every command that reads or writes the store has it). */
export type RunsArgs = { opts: { runs?: string | undefined } };

/**
 * Where the store of this command line lives, refused in one line when the runs directory or the
 * store file cannot be used (a regular file given as --runs, a directory as the store file): exit
 * 2 when the bad runs directory came from --runs, 4 (environment) otherwise. `create`
 * asks also that it can be created and written (the sweep commands).
 */
export function checkedLocation(
  args: RunsArgs,
  io: CliIO,
  opts: { create: boolean } = { create: false },
): StoreLocation {
  let loc: StoreLocation;
  try {
    loc = storeLocation({ runsDir: args.opts.runs, env: io.env, cwd: io.cwd });
  } catch (err) {
    if (err instanceof StorePlaceError) throw placeError(err, false);
    throw err;
  }
  const problem = storePlaceProblem(loc, opts);
  if (problem !== null) throw placeError(problem, args.opts.runs !== undefined);
  return loc;
}

function placeError(err: StorePlaceError, runsFromFlag: boolean): CliError {
  const usage = err.what === "runs" && runsFromFlag;
  return new CliError(err.message, { kind: usage ? "usage" : err.errorKind, fix: err.fix });
}

/**
 * Where a browsing command reads. A missing runs directory is "no runs yet", except when it was
 * named (--runs or HARNESS2_RUNS_DIR) and not even its parent exists: that is a mistyped path,
 * and saying "no runs yet" would read like lost data (exit 2 from the flag, 1 from the env).
 */
export function browseLocation(args: RunsArgs, io: CliIO): StoreLocation {
  const loc = checkedLocation(args, io, { create: false });
  const flag = args.opts.runs;
  const named = flag !== undefined || Boolean(io.env.HARNESS2_RUNS_DIR);
  if (
    named &&
    !io.env.HARNESS2_DB &&
    !existsSync(loc.runsDir) &&
    !existsSync(dirname(loc.runsDir))
  ) {
    throw new CliError(
      `the runs directory ${loc.runsDir} does not exist, nor does ${dirname(loc.runsDir)}. Fix: check the path given by ${flag !== undefined ? "--runs" : "HARNESS2_RUNS_DIR"}`,
      flag !== undefined ? { kind: "usage" } : undefined,
    );
  }
  return loc;
}

/**
 * The store at `loc`, or null when there is none yet (no file, or an empty one). Files the store
 * refuses become CliErrors. Read-only by default: `runs`, `show`, `browse` and `report` never
 * create, migrate or write the store. `write` (judge, which records judgments) opens it for
 * writing and may upgrade its schema, but still never creates it.
 */
export async function openForBrowsing(
  loc: StoreLocation,
  opts: { write?: boolean } = {},
): Promise<Database | null> {
  if (loc.pg !== null) return await openSharedForBrowsing(loc, opts.write ?? false);
  try {
    return opts.write
      ? openStore(loc.dbPath, { create: false })
      : openStore(loc.dbPath, { readonly: true });
  } catch (err) {
    if (err instanceof StoreMissingError) return null;
    throw asStoreError(err, loc.dbPath);
  }
}

/** The PostgreSQL stores behind projections handed out by openForBrowsing. */
const shared = new WeakMap<Database, RunStore>();

/**
 * A PostgreSQL store for a browsing command: its projection, made once. Read-only commands let go
 * of the server at once (the projection is all they read); a writing one keeps it until
 * closeBrowsing, which pushes what it recorded.
 */
async function openSharedForBrowsing(loc: StoreLocation, write: boolean): Promise<Database | null> {
  let store: RunStore;
  try {
    store = await openRunStore(loc, { readonly: !write, create: false });
  } catch (err) {
    if (err instanceof StoreMissingError) return null;
    throw err;
  }
  if (!write) await store.pg?.log.close();
  shared.set(store.db, store);
  return store.db;
}

/** What a StoreWriter on a browsing command's store needs (a shared store's log hook). */
export function browsingWriterOptions(db: Database, base: StoreWriterOptions): StoreWriterOptions {
  return shared.get(db)?.writerOptions(base) ?? base;
}

/** The shared store behind a browsing command's database, when it is one. */
export function sharedStoreOf(db: Database): RunStore | null {
  return shared.get(db) ?? null;
}

/** Closes a browsing command's store; a shared one pushes what was recorded first. */
export async function closeBrowsing(db: Database): Promise<void> {
  const store = shared.get(db);
  if (store === undefined) {
    db.close();
    return;
  }
  shared.delete(db);
  await store.close();
}

/** Runs a read against the store, turning a damaged file met mid-read into one clear line. */
export function readStore<T>(loc: StoreLocation, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw asStoreError(err, loc.dbPath);
  }
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
    );
  }
  const lower = handle.trim().toLowerCase();
  if (lower === "last" || lower === "latest") {
    throw new CliError(`no sweeps recorded in ${loc.dbPath} yet`);
  }
  throw new CliError(`no sweep '${handle}' in ${loc.dbPath} (list them with 'harness2 runs')`);
}
