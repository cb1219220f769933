// The sweep lock: one live sweep per namespace of a runs directory, held as a `locks` row with pid,
// hostname and a heartbeat. A row whose process is gone (same host) or whose heartbeat is old is
// stale and is taken over; a live one refuses the second sweep with SweepLockedError.

import type { Database } from "bun:sqlite";
import { hostname as osHostname } from "node:os";
import { Harness2Error } from "../src/core/lib/errors.ts";
import { pidAlive } from "../src/core/lib/pid.ts";
import { killOwnedBy } from "../src/core/lib/reaper.ts";

/** A heartbeat older than this marks the holder dead even when its pid cannot be checked. */
export const DEFAULT_STALE_AFTER_MS = 60_000;
export const DEFAULT_HEARTBEAT_MS = 10_000;

export type LockRow = {
  namespace: string;
  sweepId: string;
  pid: number;
  hostname: string;
  startedAt: number;
  heartbeatAt: number;
};

export class SweepLockedError extends Harness2Error {
  constructor(readonly holder: LockRow) {
    super(
      `namespace ${holder.namespace} is being run by sweep ${holder.sweepId} (pid ${holder.pid} on ${holder.hostname}, started ${new Date(holder.startedAt).toISOString()}); wait for it to finish or stop it, then run again`,
    );
  }
}

export type LockOptions = {
  namespaces: readonly string[];
  sweep: string;
  staleAfterMs?: number;
  heartbeatMs?: number;
  /** Called once if another process took the lock over (this one looked dead to it). */
  onLost?: (namespace: string) => void;
  now?: () => number;
};

export function isLockStale(
  row: LockRow,
  now: number,
  staleAfterMs = DEFAULT_STALE_AFTER_MS,
): boolean {
  if (now - row.heartbeatAt > staleAfterMs) return true;
  return row.hostname === osHostname() && !pidAlive(row.pid);
}

const SELECT_LOCK = `SELECT namespace, sweep_id AS sweepId, pid, hostname, started_at AS startedAt,
  heartbeat_at AS heartbeatAt FROM locks`;

export function readLocks(db: Database): LockRow[] {
  return db.query(SELECT_LOCK).all() as LockRow[];
}

/** Sweep ids whose lock is held by a live process right now. */
export function liveSweepIds(db: Database, now = Date.now()): Set<string> {
  return new Set(
    readLocks(db)
      .filter((r) => !isLockStale(r, now))
      .map((r) => r.sweepId),
  );
}

export class SweepLock {
  private timer: ReturnType<typeof setInterval> | undefined;
  private released = false;
  private lostNamespace: string | undefined;

  constructor(
    private readonly db: Database,
    readonly sweep: string,
    readonly namespaces: readonly string[],
    /** Locks that belonged to dead sweeps and were taken over. */
    readonly tookOver: readonly LockRow[],
    private readonly opts: LockOptions,
  ) {}

  /** The namespace another process took over, if any. */
  get lost(): string | undefined {
    return this.lostNamespace;
  }

  startHeartbeat(intervalMs: number): void {
    this.timer = setInterval(() => this.heartbeat(), intervalMs);
    this.timer.unref?.();
  }

  /** Refreshes the heartbeat; notices when the row is no longer ours. */
  heartbeat(): void {
    if (this.released || this.lostNamespace !== undefined) return;
    const now = (this.opts.now ?? Date.now)();
    const stmt = this.db.prepare(
      "UPDATE locks SET heartbeat_at = ? WHERE namespace = ? AND sweep_id = ?",
    );
    for (const ns of this.namespaces) {
      if (stmt.run(now, ns, this.sweep).changes === 0) {
        this.lostNamespace = ns;
        this.opts.onLost?.(ns);
        return;
      }
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    const stmt = this.db.prepare("DELETE FROM locks WHERE namespace = ? AND sweep_id = ?");
    this.db.transaction(() => {
      for (const ns of this.namespaces) stmt.run(ns, this.sweep);
    })();
  }
}

/** SIGTERM to what a dead process left running, SIGKILL two seconds later to what is still there. */
function stopSurvivorsOf(pid: number): void {
  if (killOwnedBy(pid, "SIGTERM") === 0) return;
  setTimeout(() => killOwnedBy(pid, "SIGKILL"), 2000).unref?.();
}

/**
 * Takes the lock on every namespace a sweep will write, all or nothing, or throws
 * SweepLockedError naming the live holder. Stale holders are replaced.
 */
export function acquireSweepLock(db: Database, opts: LockOptions): SweepLock {
  const now = (opts.now ?? Date.now)();
  const staleAfter = opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const host = osHostname();
  const find = db.prepare(`${SELECT_LOCK} WHERE namespace = ?`);
  const put = db.prepare(`INSERT OR REPLACE INTO locks
    (namespace, sweep_id, pid, hostname, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)`);
  const tookOver: LockRow[] = [];
  db.transaction(() => {
    for (const ns of opts.namespaces) {
      const row = find.get(ns) as LockRow | null;
      if (row && row.sweepId !== opts.sweep) {
        if (!isLockStale(row, now, staleAfter)) throw new SweepLockedError(row);
        tookOver.push(row);
      }
      put.run(
        ns,
        opts.sweep,
        process.pid,
        host,
        row?.sweepId === opts.sweep ? row.startedAt : now,
        now,
      );
    }
  }).immediate();
  // A process that held a lock and is gone may have left children running (killed so hard that
  // neither its exit hooks nor its reaper ran): they carry its pid, and are ended now.
  for (const pid of new Set(tookOver.filter((r) => r.hostname === host).map((r) => r.pid))) {
    if (pid !== process.pid && !pidAlive(pid)) stopSurvivorsOf(pid);
  }
  const lock = new SweepLock(db, opts.sweep, [...opts.namespaces], tookOver, opts);
  lock.startHeartbeat(opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  return lock;
}
