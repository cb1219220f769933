// The fleet as the store records it (`harness2 watch`): for each domain of a queued plan, which
// of its tasks have finished and which one runs, counted from the sweeps that workers ran for it
// (each records its plan and worker in its configuration). Reads only; never writes.

import type { Database } from "bun:sqlite";
import { liveSweepIds } from "./lock.ts";

export type FleetDomain = {
  domain: string;
  /** Distinct tasks with a finished record (ok, partial, failed or skipped). */
  finished: number;
  failed: number;
  /** The task a live sweep is running now, and that sweep's worker. */
  running: { task: string; worker: string } | null;
  /** How many sweeps ran this domain for the plan (more than one: it was retried or resumed). */
  attempts: number;
  /** The worker of the newest sweep that ran this domain for the plan. */
  lastWorker: string;
};

/** Per domain of `plan`, in name order. */
export function fleetDomains(db: Database, plan: string): FleetDomain[] {
  const live = liveSweepIds(db);
  const rows = db
    .query(
      `SELECT t.domain, t.task, t.status, s.id AS sweep,
              COALESCE(json_extract(s.config, '$.worker'), '') AS worker
       FROM tasks t JOIN sweeps s ON s.id = t.sweep_id
       WHERE json_extract(s.config, '$.plan') = ?
       ORDER BY s.started_at, t.started_at`,
    )
    .all(plan) as { domain: string; task: string; status: string; sweep: string; worker: string }[];
  const byDomain = new Map<string, typeof rows>();
  for (const r of rows) byDomain.set(r.domain, [...(byDomain.get(r.domain) ?? []), r]);
  return [...byDomain.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([domain, rs]) => {
      const last = new Map<string, string>();
      for (const r of rs) if (r.status !== "running") last.set(r.task, r.status);
      const running = rs.find((r) => r.status === "running" && live.has(r.sweep)) ?? null;
      return {
        domain,
        finished: last.size,
        failed: [...last.values()].filter((s) => s === "failed").length,
        running: running === null ? null : { task: running.task, worker: running.worker },
        attempts: new Set(rs.map((r) => r.sweep)).size,
        lastWorker: rs.at(-1)?.worker ?? "",
      };
    });
}

/**
 * The sweeps that stand for `plan`: per domain, the newest sweep a worker ran for it (a retried
 * domain's earlier sweeps are folded into it, since a sweep's records take the tasks it skipped
 * from earlier ones), oldest first. Empty when no sweep of the plan is recorded.
 */
export function planSweeps(db: Database, plan: string): string[] {
  const rows = db
    .query(
      `SELECT id, domains FROM sweeps WHERE json_extract(config, '$.plan') = ?
       ORDER BY started_at DESC, id DESC`,
    )
    .all(plan) as { id: string; domains: string }[];
  const newest = new Map<string, string>();
  for (const r of rows) if (!newest.has(r.domains)) newest.set(r.domains, r.id);
  return [...newest.values()].reverse();
}
