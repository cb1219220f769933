// The sweep list: every sweep in the store with its counts, status and spend (newest first), and
// how a handle a user types (`last`, an id, a unique prefix) resolves to one sweep.

import type { Database } from "bun:sqlite";
import { roundUsd } from "../src/core/lib/money.ts";
import { liveSweepIds } from "./lock.ts";
import { iso, isoOrNull, num, numOrNull, parse, type Row, str } from "./rows.ts";
import type { SweepSummary } from "./views.ts";

export const SUMMARY_SQL = `
SELECT s.*, COALESCE(t.ok, 0) AS n_ok, COALESCE(t.failed, 0) AS n_failed,
       COALESCE(t.running, 0) AS n_running, COALESCE(t.skipped, 0) AS n_skipped,
       COALESCE(t.n, 0) AS n_rows, COALESCE(w.n, 0) AS n_problems,
       sp.improver_usd + sp.executor_usd AS spend,
       (SELECT e.ts FROM events e WHERE e.sweep_id = s.id ORDER BY e.seq DESC LIMIT 1) AS last_ts
FROM sweeps s
JOIN sweep_spend sp ON sp.sweep_id = s.id
LEFT JOIN (SELECT sweep_id, SUM(status = 'ok') AS ok, SUM(status IN ('partial', 'failed')) AS failed,
                  SUM(status = 'running') AS running, SUM(status = 'skipped') AS skipped,
                  COUNT(*) AS n
           FROM tasks GROUP BY sweep_id) t ON t.sweep_id = s.id
LEFT JOIN (SELECT x.sweep_id, COUNT(*) AS n FROM tasks x
           WHERE EXISTS (SELECT 1 FROM modes m WHERE m.task_id = x.id
                         AND (m.status = 'degraded' OR m.reflection_ok = 0))
              OR EXISTS (SELECT 1 FROM selections l WHERE l.task_id = x.id AND l.fallback = 1)
              OR EXISTS (SELECT 1 FROM rollouts r WHERE r.task_id = x.id
                         AND r.finished = 1 AND r.ok = 0)
           GROUP BY x.sweep_id) w ON w.sweep_id = s.id`;

export function summaryOf(row: Row, live: Set<string>, now: number): SweepSummary {
  const id = str(row.id);
  const ks = parse<number[]>(row.ks, []);
  const domains = parse<{ domain?: string; tasks: string[] }[]>(row.domains, []);
  const worker = parse<{ worker?: unknown }>(row.config, {}).worker;
  const declared = domains.reduce((n, d) => n + d.tasks.length, 0) * Math.max(1, ks.length);
  const raw = str(row.status);
  const status =
    raw === "running" ? (live.has(id) ? "running" : "unfinished") : (raw as SweepSummary["status"]);
  const started = num(row.started_at);
  const end =
    row.wall_s !== null && row.finished_at !== null
      ? started + num(row.wall_s) * 1000
      : row.finished_at !== null
        ? num(row.finished_at)
        : status === "running"
          ? now
          : num(row.last_ts ?? started);
  return {
    id,
    startedAt: iso(started),
    finishedAt: isoOrNull(row.finished_at),
    status,
    ...(row.stop_reason === "budget" ? { stopReason: "budget" as const } : {}),
    bench: str(row.bench),
    substrate: str(row.substrate),
    ks,
    modes: parse<string[]>(row.modes, []),
    seed: numOrNull(row.seed),
    tag: str(row.tag),
    tasks: {
      total: Math.max(declared, num(row.n_rows)),
      ok: num(row.n_ok),
      failed: num(row.n_failed),
      // A task still "running" in a sweep no live process holds was stopped midway.
      running: status === "running" ? num(row.n_running) : 0,
      interrupted: status === "running" ? 0 : num(row.n_running),
      skipped: num(row.n_skipped),
      withProblems: num(row.n_problems),
    },
    worker:
      typeof worker === "string" && worker !== ""
        ? { name: worker, domains: domains.map((d) => d.domain ?? "") }
        : null,
    usd: roundUsd(num(row.spend)),
    durationS: Math.max(0, Math.round(end - started) / 1000),
  };
}

/** Every sweep in the store, newest first. */
export function listSweeps(db: Database, opts: { limit?: number; now?: number } = {}) {
  const limit = opts.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(opts.limit))}` : "";
  const rows = db.query(`${SUMMARY_SQL} ORDER BY s.started_at DESC, s.id DESC${limit}`).all();
  const live = liveSweepIds(db);
  const now = opts.now ?? Date.now();
  const links = experimentLinks(db);
  return (rows as Row[]).map((r) => withLinks(summaryOf(r, live, now), links));
}

type Links = Map<string, { resumes: string | null; resumedBy: string | null }>;

/**
 * For every sweep, the sweep of the same experiment (bench, substrate, tag, seed and k values —
 * what the same command runs again) started just before it and just after it.
 */
export function experimentLinks(db: Database): Links {
  const rows = db
    .query("SELECT id, bench, substrate, tag, seed, ks FROM sweeps ORDER BY started_at, id")
    .all() as {
    id: string;
    bench: string;
    substrate: string;
    tag: string;
    seed: number | null;
    ks: string;
  }[];
  const last = new Map<string, string>();
  const links: Links = new Map();
  for (const r of rows) {
    const key = JSON.stringify([r.bench, r.substrate, r.tag, r.seed, r.ks]);
    const before = last.get(key) ?? null;
    links.set(r.id, { resumes: before, resumedBy: null });
    if (before !== null) {
      const prev = links.get(before);
      if (prev !== undefined) prev.resumedBy = r.id;
    }
    last.set(key, r.id);
  }
  return links;
}

export function withLinks(s: SweepSummary, links: Links): SweepSummary {
  const l = links.get(s.id);
  return { ...s, resumes: l?.resumes ?? null, resumedBy: l?.resumedBy ?? null };
}

export function countSweeps(db: Database): number {
  return (db.query("SELECT COUNT(*) AS n FROM sweeps").get() as { n: number }).n;
}

export type RunResolution =
  | { kind: "found"; id: string }
  | { kind: "none"; handle: string }
  | { kind: "ambiguous"; handle: string; candidates: string[] };

/** `last`, a full sweep id, or a unique prefix of one (with or without `swp_`, any case). */
export function resolveRun(db: Database, handle: string): RunResolution {
  const h = handle.trim().toLowerCase();
  if (h === "last" || h === "latest") {
    const row = db
      .query("SELECT id FROM sweeps ORDER BY started_at DESC, id DESC LIMIT 1")
      .get() as { id: string } | null;
    return row ? { kind: "found", id: row.id } : { kind: "none", handle };
  }
  if (h === "") return { kind: "none", handle };
  const exact = db.query("SELECT id FROM sweeps WHERE id = ?").get(h) as { id: string } | null;
  if (exact) return { kind: "found", id: exact.id };
  const prefixes = h.startsWith("swp_") ? [h] : [h, `swp_${h}`];
  const ids = new Set<string>();
  const stmt = db.query("SELECT id FROM sweeps WHERE substr(id, 1, ?) = ? ORDER BY id DESC");
  for (const p of prefixes) {
    for (const r of stmt.all(p.length, p) as { id: string }[]) ids.add(r.id);
  }
  if (ids.size === 1) return { kind: "found", id: [...ids][0] as string };
  if (ids.size === 0) return { kind: "none", handle };
  return { kind: "ambiguous", handle, candidates: [...ids].sort().reverse() };
}
