// The store test suite's two backends: the embedded SQLite file, and PostgreSQL (a private
// cluster this test file starts, tests/helpers/postgres.ts) read through a projection. A test
// written against `TestStore` runs the same queries on both; on PostgreSQL `view()` is a fresh
// projection of the shared log, exactly what another process's read-only command would see.

import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type PgAddress, pgAddress } from "../../src/core/lib/store-url.ts";
import { openStore } from "../../store/db.ts";
import { acquireSweepLock } from "../../store/lock.ts";
import { pgLockKey } from "../../store/open.ts";
import { PgStore } from "../../store/pg/store.ts";
import { StoreWriter } from "../../store/writer.ts";
import { type PgCluster, startPgCluster } from "../helpers/postgres.ts";
import { tempDir } from "./samples.ts";

export type TestStore = {
  /** A writer as a sweep gets one. */
  writer(): StoreWriter;
  /** The store as a reading command sees it now. */
  view(): Promise<Database>;
  /** Holds the sweep lock of one namespace and domain as a running sweep does. */
  lock(namespace: string, domain: string, sweep: string): Promise<{ release(): Promise<void> }>;
  close(): Promise<void>;
};

export type TestBackend = { name: "sqlite" | "postgres"; open(): Promise<TestStore> };

let cluster: Promise<PgCluster> | null = null;

/** The file's one PostgreSQL cluster, started on first use and stopped when the process exits. */
export function sharedCluster(): Promise<PgCluster> {
  cluster ??= startPgCluster();
  return cluster;
}

export async function freshPgAddress(): Promise<PgAddress> {
  const url = await (await sharedCluster()).freshDatabase();
  return pgAddress(url) as PgAddress;
}

const sqlite: TestBackend = {
  name: "sqlite",
  async open() {
    const { dir, cleanup } = tempDir();
    const db = openStore(join(dir, "harness2.db"));
    return {
      writer: () => new StoreWriter(db),
      view: async () => db,
      async lock(namespace, _domain, sweep) {
        const l = acquireSweepLock(db, { namespaces: [namespace], sweep });
        return { release: async () => l.release() };
      },
      async close() {
        db.close();
        cleanup();
      },
    };
  },
};

const postgres: TestBackend = {
  name: "postgres",
  async open() {
    const addr = await freshPgAddress();
    const home = (await PgStore.open(addr, { create: true })) as PgStore;
    const views: PgStore[] = [];
    return {
      writer: () => new StoreWriter(home.db, { onCommitted: home.committed }),
      async view() {
        if ((await home.drain()) > 0) throw new Error("events did not reach PostgreSQL");
        const v = (await PgStore.open(addr, { create: false })) as PgStore;
        views.push(v);
        return v.db;
      },
      async lock(namespace, domain, sweep) {
        const got = await home.log.lock([pgLockKey(namespace, domain)], { sweep, worker: "test" });
        if (!("release" in got)) throw new Error(`lock held by ${got.sweepId}`);
        return got;
      },
      async close() {
        for (const v of views) await v.close();
        await home.close();
      },
    };
  },
};

export const BACKENDS: readonly TestBackend[] = [sqlite, postgres];
