// The shared run store on PostgreSQL (docs/architecture.md "Many machines"): the event log every
// process appends to, in one global order, plus the sweep locks as advisory locks. Every table a
// command reads is derived from the log by the same applier as in SQLite (store/pg/store.ts), so
// the queries, the migrations and the read-only commands are the SQLite store's own.
//
// Through Bun's built-in SQL client. Connection failures, a missing database and a log written by
// a newer harness2 are each one PgStoreError line with its fix.

import { hostname as osHostname } from "node:os";
import { type ErrorKind, Harness2Error } from "../../src/core/lib/errors.ts";
import type { PgAddress } from "../../src/core/lib/store-url.ts";

/** The version of the PostgreSQL log's own tables (the SQLite projection has its own). */
export const PG_LOG_VERSION = 1;
const APP = "harness2";

/** A PostgreSQL store that cannot be used; the message names the server and the fix. */
export class PgStoreError extends Harness2Error {
  static override readonly errorKind = "environment";
  constructor(message: string, opts: { kind?: ErrorKind; fix?: string } = {}) {
    super(message, opts);
  }
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS harness2_meta (key text PRIMARY KEY, value text NOT NULL)`,
  // One row per recorded event, in the order PostgreSQL committed them. `origin` is the process
  // that recorded it and `origin_seq` its own count, so a retried append never doubles a row.
  `CREATE TABLE IF NOT EXISTS harness2_events (
     seq bigserial PRIMARY KEY,
     origin text NOT NULL,
     origin_seq integer NOT NULL,
     sweep_id text NOT NULL,
     type text NOT NULL,
     body text NOT NULL,
     UNIQUE (origin, origin_seq))`,
  // Who holds a lock key; the advisory lock of the same key says whether the holder is alive.
  `CREATE TABLE IF NOT EXISTS harness2_locks (
     key text PRIMARY KEY,
     sweep_id text NOT NULL,
     pid integer NOT NULL,
     hostname text NOT NULL,
     worker text NOT NULL,
     started_at bigint NOT NULL)`,
];

export type LoggedEvent = { seq: number; origin: string; body: string };
export type PgLockRow = {
  key: string;
  sweepId: string;
  pid: number;
  hostname: string;
  worker: string;
  startedAt: number;
};

type Sql = InstanceType<typeof Bun.SQL>;
type Reserved = Awaited<ReturnType<Sql["reserve"]>>;

function pgCode(err: unknown): { code: string; errno: string; message: string } {
  const e = err as { code?: unknown; errno?: unknown; message?: unknown };
  return {
    code: String(e?.code ?? ""),
    errno: String(e?.errno ?? ""),
    message: String(e?.message ?? err),
  };
}

/** One line for a failure to reach or use the server at `addr`. */
export function describePgFailure(err: unknown, addr: PgAddress): PgStoreError {
  if (err instanceof PgStoreError) return err;
  const { code, errno, message } = pgCode(err);
  const at = `${addr.host}:${addr.port}`;
  if (/CONNECTION_REFUSED|ECONNREFUSED|CONNECTION_CLOSED|ENOTFOUND|EAI_|TIMEOUT/i.test(code)) {
    return new PgStoreError(`cannot reach PostgreSQL at ${at} (${message.toLowerCase()})`, {
      fix: "start the server (pg_ctl start, or systemctl start postgresql) or correct the host and port in HARNESS2_DB",
    });
  }
  if (errno === "3D000") {
    return new PgStoreError(`PostgreSQL at ${at} has no database "${addr.database}"`, {
      fix: `create it (createdb -h ${addr.host} -p ${addr.port} ${addr.database}) or correct HARNESS2_DB`,
    });
  }
  if (errno === "28P01" || errno === "28000" || /AUTH/i.test(code)) {
    return new PgStoreError(`PostgreSQL at ${at} refused user "${addr.user}" (${message})`, {
      kind: "refusal",
      fix: "correct the user or password in HARNESS2_DB",
    });
  }
  return new PgStoreError(`PostgreSQL at ${addr.where}: ${message}`);
}

export class PgLog {
  private constructor(
    private readonly sql: Sql,
    readonly addr: PgAddress,
    /** This database's store id, the same for every process that opens it. */
    readonly storeId: string,
  ) {}

  /**
   * Connects and checks the log's version; `create` makes the tables (and the store id) when the
   * database has none yet. A database without them opened with `create` false is `null`.
   */
  static async open(addr: PgAddress, opts: { create: boolean }): Promise<PgLog | null> {
    const sql = new Bun.SQL(addr.url, { max: 4, connectionTimeout: 10, onclose: () => {} });
    try {
      const present = await sql`SELECT to_regclass('harness2_meta') IS NOT NULL AS present`;
      if (!present[0]?.present) {
        if (!opts.create) {
          await sql.close();
          return null;
        }
        await sql.begin(async (tx) => {
          await tx`SELECT pg_advisory_xact_lock(hashtextextended('harness2 schema', 0))`;
          for (const stmt of SCHEMA) await tx.unsafe(stmt);
          const id = `pgs_${crypto.randomUUID()}`;
          await tx`INSERT INTO harness2_meta VALUES ('app', ${APP}), ('version', ${String(PG_LOG_VERSION)}), ('store_id', ${id}) ON CONFLICT DO NOTHING`;
        });
      }
      const meta = new Map(
        ((await sql`SELECT key, value FROM harness2_meta`) as { key: string; value: string }[]).map(
          (r) => [r.key, r.value],
        ),
      );
      if (meta.get("app") !== APP) {
        throw new PgStoreError(
          `PostgreSQL database ${addr.where} has a harness2_meta table that is not harness2's`,
          { kind: "refusal", fix: "point HARNESS2_DB at another database" },
        );
      }
      const version = Number(meta.get("version") ?? 0);
      if (version > PG_LOG_VERSION) {
        throw new PgStoreError(
          `PostgreSQL database ${addr.where} was written by a newer harness2 (log schema ${version}; this build reads up to ${PG_LOG_VERSION})`,
          {
            kind: "refusal",
            fix: "upgrade harness2 on this machine, or point HARNESS2_DB at another database",
          },
        );
      }
      if (version < PG_LOG_VERSION) {
        throw new PgStoreError(
          `PostgreSQL database ${addr.where} has log schema ${version}, which this build cannot read (it reads ${PG_LOG_VERSION})`,
          { kind: "refusal", fix: "point HARNESS2_DB at another database" },
        );
      }
      return new PgLog(sql, addr, meta.get("store_id") ?? "");
    } catch (err) {
      await sql.close().catch(() => {});
      throw describePgFailure(err, addr);
    }
  }

  /** Appends `bodies` as events `firstSeq`, `firstSeq + 1`, … of `origin`; a repeat is a no-op. */
  async append(
    origin: string,
    firstSeq: number,
    events: readonly { sweep: string; type: string; body: string }[],
  ): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((e, i) => ({
      origin,
      origin_seq: firstSeq + i,
      sweep_id: e.sweep,
      type: e.type,
      body: e.body,
    }));
    try {
      for (let i = 0; i < rows.length; i += 1000) {
        await this
          .sql`INSERT INTO harness2_events ${this.sql(rows.slice(i, i + 1000))} ON CONFLICT (origin, origin_seq) DO NOTHING`;
      }
    } catch (err) {
      throw describePgFailure(err, this.addr);
    }
  }

  /** Events after `seq`, in log order, at most `limit`. */
  async since(seq: number, limit = 5000): Promise<LoggedEvent[]> {
    try {
      // Ordered by the column, not by its text alias: "10" sorts before "9".
      const rows = (await this.sql`SELECT e.seq::text AS seq, e.origin, e.body
        FROM harness2_events e WHERE e.seq > ${seq} ORDER BY e.seq LIMIT ${limit}`) as {
        seq: string;
        origin: string;
        body: string;
      }[];
      return rows.map((r) => ({ seq: Number(r.seq), origin: r.origin, body: r.body }));
    } catch (err) {
      throw describePgFailure(err, this.addr);
    }
  }

  /** Removes the sweeps' events (and lock rows) from the log: `runs --delete` on a shared store. */
  async forget(sweeps: readonly string[]): Promise<void> {
    if (sweeps.length === 0) return;
    try {
      await this.sql.begin(async (tx) => {
        for (const id of sweeps) {
          await tx`DELETE FROM harness2_events WHERE sweep_id = ${id}`;
          await tx`DELETE FROM harness2_locks WHERE sweep_id = ${id}`;
        }
      });
    } catch (err) {
      throw describePgFailure(err, this.addr);
    }
  }

  /** How many events the log holds. */
  async count(): Promise<number> {
    const rows = await this.sql`SELECT count(*)::int AS n FROM harness2_events`;
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Takes every key's advisory lock on one reserved connection, all or nothing: the locks live
   * as long as that connection, so a holder killed by any signal frees them at once. A key held
   * by a live process comes back as its row; nothing is taken then.
   */
  async lock(
    keys: readonly string[],
    holder: { sweep: string; worker: string },
  ): Promise<PgAdvisoryLock | PgLockRow> {
    const conn = await this.sql.reserve();
    const taken: string[] = [];
    try {
      for (const key of keys) {
        const got = await conn`SELECT pg_try_advisory_lock(hashtextextended(${key}, 0)) AS ok`;
        if (!got[0]?.ok) {
          const held = await this.holder(key);
          for (const k of taken) await conn`SELECT pg_advisory_unlock(hashtextextended(${k}, 0))`;
          conn.release();
          return (
            held ?? {
              key,
              sweepId: "?",
              pid: 0,
              hostname: "?",
              worker: "?",
              startedAt: Date.now(),
            }
          );
        }
        taken.push(key);
      }
      const now = Date.now();
      for (const key of keys) {
        await conn`INSERT INTO harness2_locks VALUES (${key}, ${holder.sweep}, ${process.pid},
          ${osHostname()}, ${holder.worker}, ${now})
          ON CONFLICT (key) DO UPDATE SET sweep_id = EXCLUDED.sweep_id, pid = EXCLUDED.pid,
          hostname = EXCLUDED.hostname, worker = EXCLUDED.worker, started_at = EXCLUDED.started_at`;
      }
      return new PgAdvisoryLock(conn, [...keys], holder.sweep);
    } catch (err) {
      conn.release();
      throw describePgFailure(err, this.addr);
    }
  }

  private async holder(key: string): Promise<PgLockRow | null> {
    const rows = (await this.sql`SELECT key, sweep_id AS "sweepId", pid, hostname, worker,
      started_at::text AS "startedAt" FROM harness2_locks WHERE key = ${key}`) as PgLockRow[];
    const row = rows[0];
    return row === undefined ? null : { ...row, startedAt: Number(row.startedAt) };
  }

  /** The lock rows whose holder is alive right now (its advisory lock cannot be taken). */
  async liveLocks(): Promise<PgLockRow[]> {
    const rows = (await this.sql`SELECT key, sweep_id AS "sweepId", pid, hostname, worker,
      started_at::text AS "startedAt" FROM harness2_locks ORDER BY key`) as PgLockRow[];
    if (rows.length === 0) return [];
    const conn = await this.sql.reserve();
    const live: PgLockRow[] = [];
    try {
      for (const row of rows) {
        const got = await conn`SELECT pg_try_advisory_lock(hashtextextended(${row.key}, 0)) AS ok`;
        if (got[0]?.ok) {
          await conn`SELECT pg_advisory_unlock(hashtextextended(${row.key}, 0))`;
        } else live.push({ ...row, startedAt: Number(row.startedAt) });
      }
    } finally {
      conn.release();
    }
    return live;
  }

  /** The underlying client, for the queue (which keeps its own connections) and the tests. */
  get client(): Sql {
    return this.sql;
  }

  async close(): Promise<void> {
    await this.sql.close().catch(() => {});
  }
}

/** Advisory locks held on one reserved connection; release() frees them and their rows. */
export class PgAdvisoryLock {
  private released = false;
  constructor(
    private readonly conn: Reserved,
    readonly keys: readonly string[],
    readonly sweep: string,
  ) {}

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      for (const key of this.keys) {
        await this.conn`DELETE FROM harness2_locks WHERE key = ${key} AND sweep_id = ${this.sweep}`;
        await this.conn`SELECT pg_advisory_unlock(hashtextextended(${key}, 0))`;
      }
    } catch {
      // The connection is gone: so are its locks.
    } finally {
      this.conn.release();
    }
  }
}
