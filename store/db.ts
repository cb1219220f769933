// Opens the one SQLite store of a runs directory: WAL, foreign keys, a busy timeout, migrations.
// A file this build cannot read (newer schema, not SQLite, another program's database, damaged)
// is refused with a named error and left exactly as it was — never recreated over user data.

import { Database, SQLiteError } from "bun:sqlite";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "./schema.ts";

export const DB_FILENAME = "harness2.db";
export const DEFAULT_RUNS_DIR = "runs";
/** How long a connection waits for another process's write transaction before giving up. */
export const DEFAULT_BUSY_TIMEOUT_MS = 15_000;

export class StoreNewerError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `${path} was written by a newer harness2 (store schema ${found}; this build reads up to ${supported}). Upgrade harness2, or point HARNESS2_DB at another file.`,
    );
    this.name = "StoreNewerError";
  }
}

export class StoreCorruptError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(
      `${path} is not a readable harness2 store (${detail}). It was left untouched; move it aside (or restore a backup) and run again, or point HARNESS2_DB at another file.`,
    );
    this.name = "StoreCorruptError";
  }
}

export class StoreForeignError extends Error {
  constructor(
    readonly path: string,
    readonly applicationId: number,
  ) {
    super(
      `${path} is an SQLite database that belongs to another program (application id ${applicationId}), not a harness2 store. It was left untouched; point HARNESS2_DB at another file.`,
    );
    this.name = "StoreForeignError";
  }
}

export class StoreMissingError extends Error {
  constructor(readonly path: string) {
    super(`no harness2 store at ${path}`);
    this.name = "StoreMissingError";
  }
}

export type StoreLocation = {
  /** The runs directory (absolute). */
  runsDir: string;
  /** The database file (absolute). */
  dbPath: string;
};

/**
 * Where the store lives: `HARNESS2_DB` when set, else `<runs dir>/harness2.db`. The runs dir is the
 * explicit one (a `--runs` flag), else `HARNESS2_RUNS_DIR`, else `runs`, relative to `cwd`.
 */
export function storeLocation(opts: {
  runsDir?: string;
  env: Record<string, string | undefined>;
  cwd: string;
}): StoreLocation {
  const runsRaw = opts.runsDir || opts.env.HARNESS2_RUNS_DIR || DEFAULT_RUNS_DIR;
  const runsDir = isAbsolute(runsRaw) ? runsRaw : resolve(opts.cwd, runsRaw);
  const dbRaw = opts.env.HARNESS2_DB;
  const dbPath = dbRaw
    ? isAbsolute(dbRaw)
      ? dbRaw
      : resolve(opts.cwd, dbRaw)
    : resolve(runsDir, DB_FILENAME);
  return { runsDir, dbPath };
}

export type OpenOptions = {
  /** Create the file (and its directory) when missing. Browsing commands pass false. */
  create?: boolean;
  busyTimeoutMs?: number;
};

const CORRUPT_CODES = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_CORRUPT_INDEX"]);

/** Whether an error from bun:sqlite means the file itself is damaged or not a database. */
export function isCorruption(err: unknown): boolean {
  return (
    err instanceof SQLiteError &&
    (CORRUPT_CODES.has(String(err.code)) || String(err.code).startsWith("SQLITE_CORRUPT"))
  );
}

/** Turns a damaged-file error met while reading into StoreCorruptError; other errors pass. */
export function asStoreError(err: unknown, path: string): unknown {
  if (isCorruption(err)) return new StoreCorruptError(path, (err as Error).message);
  return err;
}

/** Opens (creating and migrating when allowed) the store at `path`, or throws a named error. */
export function openStore(path: string, opts: OpenOptions = {}): Database {
  const create = opts.create ?? true;
  if (!existsSync(path)) {
    if (!create) throw new StoreMissingError(path);
    mkdirSync(dirname(path), { recursive: true });
  }
  let db: Database;
  try {
    db = new Database(path, { create, readwrite: true, strict: true });
  } catch (err) {
    throw asStoreError(err, path);
  }
  try {
    db.run(`PRAGMA busy_timeout = ${Math.max(0, opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)}`);
    inspect(db, path);
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    db.run("PRAGMA foreign_keys = ON");
    migrate(db, path);
    return db;
  } catch (err) {
    db.close();
    throw asStoreError(err, path);
  }
}

function pragmaNumber(db: Database, name: string): number {
  const row = db.query(`PRAGMA ${name}`).get() as Record<string, number> | null;
  return row ? Number(Object.values(row)[0]) : 0;
}

/** Reads the header fields before anything is written, refusing what this build must not touch. */
function inspect(db: Database, path: string): void {
  // One read transaction, so the three reads see one snapshot: read one by one, they could see
  // another process's migration half before and half after its commit (tables but no id yet)
  // and take a fresh harness2 store for a foreign file.
  const { version, appId, objects } = db.transaction(() => ({
    objects: (db.query("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n,
    version: pragmaNumber(db, "user_version"),
    appId: pragmaNumber(db, "application_id"),
  }))();
  if (appId !== APPLICATION_ID && !(appId === 0 && version === 0 && objects === 0)) {
    throw new StoreForeignError(path, appId);
  }
  if (version > SCHEMA_VERSION) throw new StoreNewerError(path, version, SCHEMA_VERSION);
}

function migrate(db: Database, path: string): void {
  if (pragmaNumber(db, "user_version") === SCHEMA_VERSION) return;
  db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated in the meantime.
    const current = pragmaNumber(db, "user_version");
    if (current > SCHEMA_VERSION) throw new StoreNewerError(path, current, SCHEMA_VERSION);
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      db.run(m.sql);
      db.run(`PRAGMA user_version = ${m.version}`);
    }
    db.run(`PRAGMA application_id = ${APPLICATION_ID}`);
  }).immediate();
}

/** SQLite's own integrity check; `["ok"]` for a healthy file. */
export function integrityCheck(db: Database): string[] {
  return (db.query("PRAGMA integrity_check").all() as { integrity_check: string }[]).map(
    (r) => r.integrity_check,
  );
}

/** The schema version recorded in an open store. */
export function schemaVersion(db: Database): number {
  return pragmaNumber(db, "user_version");
}
