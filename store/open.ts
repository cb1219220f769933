// The run store a command works on, whichever backend holds it: the SQLite file of a runs
// directory (the embedded default), or a PostgreSQL database shared by many machines, seen
// through a private SQLite projection (store/pg/store.ts). Both give the command one `Database`
// of the same schema; only opening, writing's last step and the sweep lock differ.

import type { Database } from "bun:sqlite";
import { hostname as osHostname } from "node:os";
import { openStore, type StoreLocation, StoreMissingError } from "./db.ts";
import { acquireSweepLock, type LockRow, SweepLockedError } from "./lock.ts";
import { PgStore } from "./pg/store.ts";
import type { StoreWriterOptions } from "./writer.ts";

export type RunStore = {
  kind: "sqlite" | "postgres";
  db: Database;
  /** The PostgreSQL side, for a PostgreSQL store. */
  pg: PgStore | null;
  /** What a StoreWriter on this store needs besides the caller's own options. */
  writerOptions(base?: StoreWriterOptions): StoreWriterOptions;
  /** Closes the database (after pushing what the shared log has not got yet). */
  close(timeoutMs?: number): Promise<void>;
};

export type OpenRunStoreOptions = {
  /** Read only (the browsing commands): never create or migrate anything. */
  readonly?: boolean;
  /** Create the store when missing (sweep commands); ignored when readonly. */
  create?: boolean;
  onPushError?: (err: Error) => void;
};

/** Opens the store at `loc`; StoreMissingError when there is none and none may be made. */
export async function openRunStore(
  loc: StoreLocation,
  opts: OpenRunStoreOptions = {},
): Promise<RunStore> {
  const readonly = opts.readonly ?? false;
  if (loc.pg === null) {
    const db = readonly
      ? openStore(loc.dbPath, { readonly: true })
      : openStore(loc.dbPath, { create: opts.create ?? true });
    return {
      kind: "sqlite",
      db,
      pg: null,
      writerOptions: (base = {}) => base,
      async close() {
        db.close();
      },
    };
  }
  const pg = await PgStore.open(loc.pg, {
    create: !readonly && (opts.create ?? true),
    onPushError: opts.onPushError,
  });
  if (pg === null) throw new StoreMissingError(loc.dbPath);
  if (readonly) pg.db.run("PRAGMA query_only = ON");
  return {
    kind: "postgres",
    db: pg.db,
    pg,
    writerOptions: (base = {}) => ({
      ...base,
      onCommitted: (events) => {
        base.onCommitted?.(events);
        pg.committed(events);
      },
    }),
    async close(timeoutMs) {
      const left = await pg.close(timeoutMs);
      if (left > 0) {
        process.stderr.write(
          `harness2 store: ${left} event(s) did not reach PostgreSQL at ${loc.pg?.where}; the work they record runs again on resume\n`,
        );
      }
    },
  };
}

/** A held sweep lock, whichever backend holds it. */
export type HeldLock = { release(): Promise<void> };

/**
 * The sweep lock. On SQLite it is one `locks` row per namespace (store/lock.ts); on PostgreSQL
 * one advisory lock per namespace and domain, so shards and workers of one experiment that run
 * different domains never wait for each other, while two processes on one domain are refused.
 */
export async function takeSweepLock(
  store: RunStore,
  opts: {
    namespaces: readonly string[];
    domains: readonly string[];
    sweep: string;
    worker?: string;
  },
): Promise<HeldLock> {
  if (store.pg === null) {
    const lock = acquireSweepLock(store.db, { namespaces: opts.namespaces, sweep: opts.sweep });
    return {
      async release() {
        lock.release();
      },
    };
  }
  const keys = opts.namespaces.flatMap((ns) => opts.domains.map((d) => pgLockKey(ns, d)));
  const worker = opts.worker ?? `${osHostname()}:${process.pid}`;
  const got = await store.pg.log.lock(keys, { sweep: opts.sweep, worker });
  if ("release" in got) return got;
  const holder: LockRow = {
    namespace: got.key,
    sweepId: got.sweepId,
    pid: got.pid,
    hostname: got.hostname,
    startedAt: got.startedAt,
    heartbeatAt: Date.now(),
  };
  throw new SweepLockedError(holder);
}

/** The advisory lock key of one domain of a namespace. */
export function pgLockKey(namespace: string, domain: string): string {
  return `${namespace}#${domain}`;
}
