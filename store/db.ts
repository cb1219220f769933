// Opens the one SQLite store of a runs directory: WAL, foreign keys, a busy timeout, migrations.
// A file this build cannot read (newer schema, not SQLite, another program's database, damaged)
// is refused with a named error and left exactly as it was — never recreated over user data.

import { constants, Database, SQLiteError } from "bun:sqlite";
import {
  accessSync,
  copyFileSync,
  existsSync,
  constants as fsConstants,
  mkdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import {
  isPgUrl,
  maskedStoreValue,
  type PgAddress,
  pgAddress,
  storeUrlProblem,
} from "../src/core/lib/store-url.ts";
import { ownedTempDir } from "../src/core/lib/temp-dirs.ts";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "./schema.ts";
import {
  RUNS_DIR_FIX,
  StoreCorruptError,
  StoreForeignError,
  StoreMissingError,
  StoreNewerError,
  StoreOlderError,
  StorePlaceError,
} from "./store-errors.ts";

export const DB_FILENAME = "harness2.db";
export const DEFAULT_RUNS_DIR = "runs";
/** How long a connection waits for another process's write transaction before giving up. */
export const DEFAULT_BUSY_TIMEOUT_MS = 15_000;

// The named errors a store's place or file can raise live in store-errors.ts (re-exported here).
export * from "./store-errors.ts";

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** True when this process may write into `path`. */
export function writable(path: string): boolean {
  try {
    accessSync(path, fsConstants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The nearest of `path` and its parents that exists. */
export function existingAncestor(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

/**
 * Why `dir` cannot be used as a directory (and, with `create`, written to or created), or null.
 * Checked before anything is created, so a refusal leaves nothing behind.
 */
export function directoryProblem(dir: string, create: boolean): string | null {
  if (existsSync(dir)) {
    if (!isDirectory(dir)) return `${dir} is not a directory`;
    if (create && !writable(dir)) return `${dir} is not writable`;
    return null;
  }
  const parent = existingAncestor(dir);
  if (!isDirectory(parent)) return `${dir} cannot be created: ${parent} is not a directory`;
  if (create && !writable(parent)) return `${dir} cannot be created under ${parent}`;
  return null;
}

/**
 * Whether the runs directory and the store file of `loc` can be used: read (`create` false; a
 * missing store is fine, it means no runs yet) or written (`create` true). Every command asks this
 * one question before it opens or creates anything, so they all say the same words.
 */
export function storePlaceProblem(
  loc: StoreLocation,
  opts: { create: boolean },
): StorePlaceError | null {
  const runs = directoryProblem(loc.runsDir, opts.create);
  if (runs !== null) return new StorePlaceError(loc.runsDir, runs, RUNS_DIR_FIX, "runs");
  if (loc.pg !== null) return null;
  const defaultDb = loc.dbPath === resolve(loc.runsDir, DB_FILENAME);
  if (existsSync(loc.dbPath)) {
    if (!isDirectory(loc.dbPath)) return null;
    const fix = defaultDb
      ? `move ${loc.dbPath} aside, or ${RUNS_DIR_FIX}`
      : "point HARNESS2_DB at a file";
    return new StorePlaceError(
      loc.dbPath,
      `${loc.dbPath} is a directory, not a store file`,
      fix,
      "db",
    );
  }
  if (!opts.create || defaultDb) return null;
  const place = directoryProblem(dirname(loc.dbPath), true);
  return place === null
    ? null
    : new StorePlaceError(loc.dbPath, place, "point HARNESS2_DB at a writable place", "db");
}

export type StoreLocation = {
  /** The runs directory (absolute). */
  runsDir: string;
  /** The database file (absolute); for a PostgreSQL store, its URL without the password. */
  dbPath: string;
  /** Set when the store is a PostgreSQL database (HARNESS2_DB=postgres://…). */
  pg: PgAddress | null;
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
  const url = storeUrlProblem(dbRaw);
  if (url !== null) {
    const [problem, fix] = url.split(". Set ");
    throw new StorePlaceError(
      maskedStoreValue(dbRaw ?? ""),
      problem ?? url,
      `set ${fix ?? "HARNESS2_DB to a file path"}`,
      "db",
      "refusal",
    );
  }
  if (dbRaw !== undefined && isPgUrl(dbRaw)) {
    const pg = pgAddress(dbRaw) as PgAddress;
    return { runsDir, dbPath: maskedStoreValue(dbRaw), pg };
  }
  const dbPath = dbRaw
    ? isAbsolute(dbRaw)
      ? dbRaw
      : resolve(opts.cwd, dbRaw)
    : resolve(runsDir, DB_FILENAME);
  return { runsDir, dbPath, pg: null };
}

export type OpenOptions = {
  /** Create the file (and its directory) when missing. Browsing commands pass false. */
  create?: boolean;
  /**
   * Open for reading only: never create, migrate or change the file (not even its journal mode).
   * An empty file (0 bytes, or SQLite with nothing in it) is no store yet: StoreMissingError.
   * An older schema is StoreOlderError. Implies `create: false`.
   */
  readonly?: boolean;
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

/**
 * Why this process may not use the store at `path`, or null: a folder on its way it may not
 * search, or a file it may not read (or, to write, write). A missing file is not a problem here.
 */
function accessProblem(path: string, readonly: boolean): string | null {
  try {
    statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES")
      return `${path} cannot be reached: permission denied on a folder on its way`;
    return null;
  }
  try {
    accessSync(path, readonly ? fsConstants.R_OK : fsConstants.R_OK | fsConstants.W_OK);
  } catch {
    return `${path} cannot be ${readonly ? "read" : "read and written"} by this user: permission denied`;
  }
  return null;
}

/** Opens (creating and migrating when allowed) the store at `path`, or throws a named error. */
export function openStore(path: string, opts: OpenOptions = {}): Database {
  const readonly = opts.readonly ?? false;
  const create = !readonly && (opts.create ?? true);
  if (existsSync(path) && isDirectory(path)) {
    throw new StorePlaceError(
      path,
      `${path} is a directory, not a store file`,
      "point HARNESS2_DB at a file, or choose another --runs",
      "db",
    );
  }
  // A store (or its folder) this user may not read is said so, never taken for a missing one.
  const denied = accessProblem(path, readonly);
  if (denied !== null) {
    throw new StorePlaceError(
      path,
      denied,
      `run as a user who may ${readonly ? "read" : "read and write"} it, or fix its permissions (e.g. chmod u+rw on the file, u+rx on its folders)`,
      "db",
    );
  }
  if (!existsSync(path)) {
    if (!create) throw new StoreMissingError(path);
    // A regular file on the way (`--runs FILE`) would otherwise be a raw EEXIST/ENOTDIR.
    const place = directoryProblem(dirname(path), true);
    if (place !== null) {
      throw new StorePlaceError(
        dirname(path),
        place,
        `${RUNS_DIR_FIX}, or point HARNESS2_DB elsewhere`,
        "db",
      );
    }
    mkdirSync(dirname(path), { recursive: true });
  }
  if (readonly && statSync(path).size === 0) throw new StoreMissingError(path);
  let db: Database;
  try {
    db = readonly
      ? new Database(path, { readonly: true, strict: true })
      : new Database(path, { create, readwrite: true, strict: true });
  } catch (err) {
    throw asStoreError(err, path);
  }
  try {
    db.run(`PRAGMA busy_timeout = ${Math.max(0, opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)}`);
    let found: { version: number; objects: number };
    try {
      found = inspect(db, path);
    } catch (err) {
      // Read-only media: a WAL store cannot make its -shm file beside it. A store with no pending
      // WAL is read as immutable (nothing can change it there); one with a WAL is read from a
      // private copy of both files.
      if (!readonly || !isCantOpen(err)) throw err;
      db.close();
      db = openOnReadOnlyMedia(path);
      found = inspect(db, path);
    }
    if (readonly) {
      if (found.version === 0 && found.objects === 0) throw new StoreMissingError(path);
      if (found.version < SCHEMA_VERSION) {
        throw new StoreOlderError(path, found.version, SCHEMA_VERSION);
      }
      db.run("PRAGMA query_only = ON");
      return db;
    }
    switchToWal(db, Math.max(0, opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
    db.run("PRAGMA synchronous = NORMAL");
    db.run("PRAGMA foreign_keys = ON");
    migrate(db, path);
    return db;
  } catch (err) {
    db.close();
    throw asStoreError(err, path);
  }
}

function isCantOpen(err: unknown): boolean {
  return err instanceof SQLiteError && /^SQLITE_CANTOPEN/.test(String(err.code));
}

/** A read-only connection to a store whose folder cannot be written (see openStore). */
function openOnReadOnlyMedia(path: string): Database {
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    const copy = join(ownedTempDir("store"), basename(path));
    copyFileSync(path, copy);
    copyFileSync(wal, `${copy}-wal`);
    const db = new Database(copy, { readonly: true, strict: true });
    process.once("exit", () => rmSync(dirname(copy), { recursive: true, force: true }));
    return db;
  }
  const uri = `file:${encodeURI(resolve(path))}?immutable=1`;
  return new Database(uri, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
}

/**
 * Puts the file in WAL mode (a setting the file keeps). Switching needs the file to itself, and
 * SQLite answers SQLITE_BUSY at once instead of waiting when another process is opening the
 * same new store, so the switch is retried until `timeoutMs`; a file already in WAL is left.
 */
function switchToWal(db: Database, timeoutMs: number): void {
  const started = Date.now();
  for (let round = 0; ; round++) {
    try {
      if (String(pragma(db, "journal_mode") ?? "").toLowerCase() === "wal") return;
      db.run("PRAGMA journal_mode = WAL");
      return;
    } catch (err) {
      const busy = err instanceof SQLiteError && /^SQLITE_(BUSY|LOCKED)/.test(String(err.code));
      if (!busy || Date.now() - started > timeoutMs) throw err;
      Bun.sleepSync(Math.min(50, 2 ** round));
    }
  }
}

/** The value a `PRAGMA name` query answers with, or undefined when it answers no row. */
function pragma(db: Database, name: string): unknown {
  const row = db.query(`PRAGMA ${name}`).get() as Record<string, unknown> | null;
  return row ? Object.values(row)[0] : undefined;
}

function pragmaNumber(db: Database, name: string): number {
  return Number(pragma(db, name) ?? 0);
}

/** Reads the header fields before anything is written, refusing what this build must not touch. */
function inspect(db: Database, path: string): { version: number; objects: number } {
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
  return { version, objects };
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
