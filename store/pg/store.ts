// A PostgreSQL store as a process sees it: the shared log (store/pg/log.ts) and a private SQLite
// projection of it, made by replaying the log through the one event applier into a store file of
// the same schema, so every query and read-only command is the SQLite store's own. The process's
// own events are applied to the projection at once (the method reads its own writes without
// waiting for the network) and appended to the log in their order right after; events of other
// processes arrive by catchUp(). Domains are independent and a domain is run by one process at a
// time, so the projections of two processes differ only in how their domains interleave.

import type { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { HarnessEvent } from "../../src/core/events/registry.ts";
import type { PgAddress } from "../../src/core/lib/store-url.ts";
import { ownedTempDir } from "../../src/core/lib/temp-dirs.ts";
import { EventApplier } from "../apply-event.ts";
import { openStore } from "../db.ts";
import { type PgLockRow, PgLog, PgStoreError } from "./log.ts";

export type PgStoreOptions = {
  /** Make the log's tables when the database has none (sweep commands); false for browsing. */
  create: boolean;
  /** Told once about each failed append (the events stay queued and are tried again). */
  onPushError?: (err: Error) => void;
};

/** How long a failed append waits before it is tried again. */
const RETRY_MS = 1000;

export class PgStore {
  /** This process's name in the log: its own events are never applied twice. */
  readonly origin = `o_${crypto.randomUUID()}`;
  private nextOriginSeq = 1;
  private lastSeq = 0;
  private readonly applier: EventApplier;
  private readonly queue: { sweep: string; type: string; body: string }[] = [];
  private pushing: Promise<void> | null = null;
  private closed = false;
  private readonly reported = new Set<string>();

  private constructor(
    readonly log: PgLog,
    /** The projection: a SQLite store of the current schema, private to this process. */
    readonly db: Database,
    private readonly folder: string,
    private readonly opts: PgStoreOptions,
  ) {
    this.applier = new EventApplier(db);
  }

  /** Connects, replays the whole log into a fresh projection; null when no log exists yet. */
  static async open(addr: PgAddress, opts: PgStoreOptions): Promise<PgStore | null> {
    const log = await PgLog.open(addr, { create: opts.create });
    if (log === null) return null;
    const folder = ownedTempDir("store");
    const db = openStore(join(folder, "projection.db"));
    const store = new PgStore(log, db, folder, opts);
    try {
      await store.catchUp();
      await store.refreshLocks();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  get storeId(): string {
    return this.log.storeId;
  }

  /** Applies every event of other processes recorded since the last call; returns how many. */
  async catchUp(): Promise<number> {
    let applied = 0;
    for (;;) {
      const rows = await this.log.since(this.lastSeq);
      if (rows.length === 0) return applied;
      const events: HarnessEvent[] = [];
      for (const row of rows) {
        this.lastSeq = row.seq;
        if (row.origin === this.origin) continue;
        events.push(HarnessEvent.parse(JSON.parse(row.body)));
      }
      this.applyAll(events);
      applied += events.length;
    }
  }

  private applyAll(events: readonly HarnessEvent[]): void {
    if (events.length === 0) return;
    try {
      this.db.transaction(() => {
        for (const ev of events) this.applier.apply(ev);
      })();
    } catch {
      // One event the projection cannot take must not hide the others: each on its own.
      this.applier.reset();
      for (const ev of events) {
        try {
          this.db.transaction(() => this.applier.apply(ev))();
        } catch (err) {
          this.applier.reset();
          this.report(new Error(`could not apply ${ev.type} from the shared log: ${String(err)}`));
        }
      }
    }
  }

  /** The writer's hook: events just committed to the projection go to the log, in order. */
  readonly committed = (events: readonly HarnessEvent[]): void => {
    for (const ev of events) {
      this.queue.push({ sweep: ev.sweep, type: ev.type, body: JSON.stringify(ev) });
    }
    this.kick();
  };

  private kick(): void {
    if (this.pushing !== null || this.queue.length === 0) return;
    this.pushing = this.pushLoop().finally(() => {
      this.pushing = null;
      if (this.queue.length > 0 && !this.closed) this.kick();
    });
  }

  private async pushLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, 2000);
      try {
        await this.log.append(this.origin, this.nextOriginSeq, batch);
      } catch (err) {
        this.report(err as Error);
        if (this.closed) return;
        await Bun.sleep(RETRY_MS);
        continue;
      }
      this.queue.splice(0, batch.length);
      this.nextOriginSeq += batch.length;
    }
  }

  /** Events recorded here and not yet in the shared log. */
  get unpushed(): number {
    return this.queue.length;
  }

  /** Waits until every event so far is in the shared log, or `timeoutMs` passes; returns what is left. */
  async drain(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length > 0 && Date.now() < deadline) {
      this.kick();
      const current = this.pushing;
      if (current === null) break;
      // A timer that is cleared once the push settles: a pending sleep would hold the process
      // open until the deadline after everything is done.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        current,
        new Promise<void>((done) => {
          timer = setTimeout(done, Math.max(1, deadline - Date.now()));
        }),
      ]);
      clearTimeout(timer);
    }
    return this.queue.length;
  }

  /**
   * The live holders of sweep locks, written into the projection's `locks` table (which `runs`
   * reads for "running"); returned too, for the fleet view.
   */
  async refreshLocks(): Promise<PgLockRow[]> {
    const live = await this.log.liveLocks();
    const now = Date.now();
    const put = this.db.prepare(`INSERT OR REPLACE INTO locks
      (namespace, sweep_id, pid, hostname, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)`);
    this.db.transaction(() => {
      this.db.run("DELETE FROM locks");
      for (const r of live) put.run(r.key, r.sweepId, r.pid, r.hostname, r.startedAt, now);
    })();
    return live;
  }

  private report(err: Error): void {
    const line = err.message;
    if (this.reported.has(line)) return;
    this.reported.add(line);
    this.opts.onPushError?.(err);
  }

  /** Pushes what is left (within `timeoutMs`), closes the projection and the connection. */
  async close(timeoutMs = 30_000): Promise<number> {
    const left = await this.drain(timeoutMs);
    this.closed = true;
    try {
      this.db.close();
    } catch {
      // already closed by its writer
    }
    await this.log.close();
    rmSync(this.folder, { recursive: true, force: true });
    return left;
  }
}

export { PgStoreError };
