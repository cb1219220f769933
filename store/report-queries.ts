// Read queries for judge and report: a sweep's picks, bases, fallbacks, similarity and spend per
// task × mode × k (tasks skipped on resume carry their earlier record), stored judgments and the
// experiment's judges. Read-only SQL, a fixed number of queries per call; never writes or scores.

import type { Database } from "bun:sqlite";
import type { Judgment } from "../src/core/events/registry.ts";
import type {
  Similarity,
  StoredBase,
  StoredCell,
  StoredRollout,
  StoredSelection,
} from "../src/core/report/records.ts";
import { bool, num, numOrNull, parse, type Row, str, strOrNull } from "./rows.ts";

export type SweepRow = {
  id: string;
  bench: string;
  substrate: string;
  seed: number | null;
  tag: string;
  ks: number[];
  modes: string[];
  startedAt: number;
  status: string;
  /** The sweep's resolved configuration as recorded by sweep.started. */
  config: Record<string, unknown>;
  /** Its experiment identity (models, endpoints, the partition it ran on, …). */
  identity: Record<string, unknown>;
  runsRoot: string;
};

export type RolloutRow = StoredRollout;
export type SelectionRow = StoredSelection;
export type { Similarity } from "../src/core/report/records.ts";

/** One task × mode × k, with the task record it came from. */
export type ModeCellRow = StoredCell & { recordId: string };

/** The base rollouts of one task and k, with the task record they came from. */
export type BaseCellRow = StoredBase & { recordId: string };

export type SweepRecords = { sweep: SweepRow; cells: ModeCellRow[]; bases: BaseCellRow[] };

/** A stored judgment; its `metric` comes from the recorded event (the table has no column for it). */
export type JudgmentRow = Judgment & {
  subject: string;
  sweepId: string;
  task: string;
  mode: string;
  k: number;
  label: string;
  runId: string;
  at: number;
};

function sweepOf(r: Row): SweepRow {
  return {
    id: str(r.id),
    bench: str(r.bench),
    substrate: str(r.substrate),
    seed: numOrNull(r.seed),
    tag: str(r.tag),
    ks: parse<number[]>(r.ks, []),
    modes: parse<string[]>(r.modes, []),
    startedAt: num(r.started_at),
    status: str(r.status),
    config: parse<Record<string, unknown>>(r.config, {}),
    identity: parse<Record<string, unknown>>(r.identity, {}),
    runsRoot: str(r.runs_root),
  };
}

/** One sweep's header, or null when there is no sweep with this exact id. */
export function sweepRow(db: Database, id: string): SweepRow | null {
  const r = db.query("SELECT * FROM sweeps WHERE id = ?").get(id) as Row | null;
  return r ? sweepOf(r) : null;
}

export type SweepFilter = {
  bench?: string;
  substrate?: string;
  seed?: number | null;
  tag?: string;
  k?: number;
};

/** Ids of the announced sweeps matching every given field, newest first. */
export function findSweeps(db: Database, f: SweepFilter): string[] {
  const where = ["announced = 1"];
  const params: (string | number | null)[] = [];
  const fields = [
    ["bench", f.bench],
    ["substrate", f.substrate],
    ["seed", f.seed],
    ["tag", f.tag],
  ] as const;
  for (const [column, value] of fields) {
    if (value === undefined) continue;
    where.push(`${column} IS ?`);
    params.push(value);
  }
  const rows = db
    .query(
      `SELECT id, ks FROM sweeps WHERE ${where.join(" AND ")} ORDER BY started_at DESC, id DESC`,
    )
    .all(...params) as Row[];
  return rows
    .filter((r) => f.k === undefined || parse<number[]>(r.ks, []).includes(f.k))
    .map((r) => str(r.id));
}

type TaskRecordRow = {
  id: string;
  sweepId: string;
  domain: string;
  task: string;
  k: number;
  modes: string[];
  /** Sort key: newer records first. */
  order: [number, string, number, string];
};

type RecordData = {
  modes: Map<string, Row>;
  selections: Map<string, Row>;
  rollouts: Map<string, RolloutRow[]>;
  calls: Map<string, { stages: number; selection: number; reflection: number }>;
  executor: Map<string, number>;
  baseExecutor: Map<string, number>;
};

const key2 = (a: string, b: string) => `${a}\u0000${b}`;
const isBase = (label: string) => /^base\d+$/.test(label);

/** Every row the report needs of the task records `idsSql` selects (one query per table). */
function loadRecordData(db: Database, idsSql: string, params: (string | number | null)[]) {
  const q = (sql: string) => db.query(sql.replace("$IDS", idsSql)).all(...params) as Row[];
  const data: RecordData = {
    modes: new Map(),
    selections: new Map(),
    rollouts: new Map(),
    calls: new Map(),
    executor: new Map(),
    baseExecutor: new Map(),
  };
  for (const r of q("SELECT * FROM modes WHERE task_id IN ($IDS)")) {
    data.modes.set(key2(str(r.task_id), str(r.mode)), r);
  }
  for (const r of q("SELECT * FROM selections WHERE task_id IN ($IDS)")) {
    data.selections.set(key2(str(r.task_id), str(r.mode)), r);
  }
  for (const r of q(`SELECT task_id, label, run_id, run_dir, finished, ok, usd, reused
      FROM rollouts WHERE task_id IN ($IDS) ORDER BY rowid`)) {
    const id = str(r.task_id);
    const list = data.rollouts.get(id) ?? [];
    const label = str(r.label);
    list.push({
      label,
      runId: str(r.run_id),
      runDir: str(r.run_dir),
      finished: bool(r.finished),
      ok: bool(r.ok),
    });
    data.rollouts.set(id, list);
    if (isBase(label) && !bool(r.reused)) {
      data.baseExecutor.set(id, (data.baseExecutor.get(id) ?? 0) + num(r.usd));
    }
  }
  for (const r of q(`SELECT task_id, mode, purpose, SUM(usd) AS usd FROM proposer_calls
      WHERE task_id IN ($IDS) AND cached = 0 AND mode IS NOT NULL
      GROUP BY task_id, mode, purpose`)) {
    const k = key2(str(r.task_id), str(r.mode));
    const spend = data.calls.get(k) ?? { stages: 0, selection: 0, reflection: 0 };
    const purpose = str(r.purpose);
    if (purpose === "selection") spend.selection += num(r.usd);
    else if (purpose === "reflection") spend.reflection += num(r.usd);
    else spend.stages += num(r.usd);
    data.calls.set(k, spend);
  }
  for (const r of q(`SELECT task_id, mode, label, SUM(usd) AS usd FROM ledger_entries
      WHERE task_id IN ($IDS) AND kind = 'rollout' AND cached = 0 GROUP BY task_id, mode, label`)) {
    if (isBase(str(r.label))) continue;
    const k = key2(str(r.task_id), str(r.mode));
    data.executor.set(k, (data.executor.get(k) ?? 0) + num(r.usd));
  }
  return data;
}

function recordOf(r: Row, sweepStarted: number): TaskRecordRow {
  return {
    id: str(r.id),
    sweepId: str(r.sweep_id),
    domain: str(r.domain),
    task: str(r.task),
    k: num(r.k),
    modes: parse<string[]>(r.modes, []),
    order: [sweepStarted, str(r.sweep_id), num(r.started_at), str(r.id)],
  };
}

const newerFirst = (a: TaskRecordRow, b: TaskRecordRow): number => {
  for (let i = 0; i < 4; i++) {
    const x = a.order[i] as number | string;
    const y = b.order[i] as number | string;
    if (x !== y) return x < y ? 1 : -1;
  }
  return 0;
};

function selectionOf(r: Row): SelectionRow {
  return {
    chosenLabel: str(r.chosen_label),
    ok: bool(r.ok),
    fallback: bool(r.fallback),
    trivial: bool(r.trivial),
    error: str(r.error),
    chosenRunId: strOrNull(r.chosen_run_id),
    chosenRunDir: strOrNull(r.chosen_run_dir),
  };
}

/**
 * The sweep's tasks × modes × k with everything the judge and the report read, or null when there
 * is no such sweep. A (task, k) the sweep skipped (or ran without some mode) takes that mode from
 * the newest earlier record of the same experiment (bench, substrate, seed, tag).
 */
export function sweepRecords(db: Database, sweepId: string): SweepRecords | null {
  const sweep = sweepRow(db, sweepId);
  if (sweep === null) return null;
  const own = (
    db.query("SELECT * FROM tasks WHERE sweep_id = ? ORDER BY started_at, id").all(sweepId) as Row[]
  ).map((r) => recordOf(r, sweep.startedAt));
  const ownData = loadRecordData(db, "SELECT id FROM tasks WHERE sweep_id = ?", [sweepId]);

  const needsEarlier = own.some((t) => {
    const modes = t.modes.length > 0 ? t.modes : sweep.modes;
    const hasBase = (ownData.rollouts.get(t.id) ?? []).some((r) => isBase(r.label) && r.finished);
    return !hasBase || modes.some((m) => !ownData.selections.has(key2(t.id, m)));
  });
  let earlier: TaskRecordRow[] = [];
  let earlierData: RecordData | null = null;
  if (needsEarlier) {
    const idsSql = `SELECT t.id FROM tasks t JOIN sweeps s ON s.id = t.sweep_id
      WHERE s.bench = ? AND s.substrate = ? AND s.tag = ? AND s.seed IS ? AND s.id != ?
        AND (s.started_at < ? OR (s.started_at = ? AND s.id < ?))`;
    const params = [
      sweep.bench,
      sweep.substrate,
      sweep.tag,
      sweep.seed,
      sweep.id,
      sweep.startedAt,
      sweep.startedAt,
      sweep.id,
    ];
    earlier = (
      db
        .query(`SELECT t.*, s.started_at AS sweep_started FROM tasks t
          JOIN sweeps s ON s.id = t.sweep_id WHERE t.id IN (${idsSql})`)
        .all(...params) as Row[]
    ).map((r) => recordOf(r, num(r.sweep_started)));
    earlierData = loadRecordData(db, idsSql, params);
  }
  const earlierByTask = new Map<string, TaskRecordRow[]>();
  for (const r of earlier) {
    const k = key2(r.task, String(r.k));
    earlierByTask.set(k, [...(earlierByTask.get(k) ?? []), r]);
  }
  for (const list of earlierByTask.values()) list.sort(newerFirst);

  const cells: ModeCellRow[] = [];
  const bases: BaseCellRow[] = [];
  for (const t of own) {
    const chain: [TaskRecordRow, RecordData][] = [
      [t, ownData],
      ...(earlierByTask.get(key2(t.task, String(t.k))) ?? []).map(
        (r) => [r, earlierData as RecordData] as [TaskRecordRow, RecordData],
      ),
    ];
    const modes = t.modes.length > 0 ? t.modes : sweep.modes;
    for (const mode of modes) {
      const [rec, data] =
        chain.find(([r, d]) => d.selections.has(key2(r.id, mode))) ??
        chain.find(([r, d]) => d.modes.has(key2(r.id, mode))) ??
        chain[0]!;
      const m = data.modes.get(key2(rec.id, mode));
      const sel = data.selections.get(key2(rec.id, mode));
      cells.push({
        sweepId: rec.sweepId,
        recordId: rec.id,
        domain: rec.domain || t.domain,
        task: t.task,
        k: t.k,
        mode,
        carried: rec !== t,
        modeStatus: m ? str(m.status) : null,
        modeError: m ? str(m.error) : "",
        fellBack: m ? parse<string[]>(m.fell_back, []) : [],
        similarity: m ? parse<Similarity | null>(m.similarity, null) : null,
        selection: sel ? selectionOf(sel) : null,
        rollouts: data.rollouts.get(rec.id) ?? [],
        improver: data.calls.get(key2(rec.id, mode)) ?? { stages: 0, selection: 0, reflection: 0 },
        executor: data.executor.get(key2(rec.id, mode)) ?? 0,
      });
    }
    const withBases = chain.find(([r, d]) =>
      (d.rollouts.get(r.id) ?? []).some((x) => isBase(x.label) && x.finished),
    );
    if (withBases) {
      const [rec, data] = withBases;
      bases.push({
        sweepId: rec.sweepId,
        recordId: rec.id,
        domain: rec.domain || t.domain,
        task: t.task,
        k: t.k,
        modes,
        carried: rec !== t,
        rollouts: (data.rollouts.get(rec.id) ?? []).filter((x) => isBase(x.label) && x.finished),
        executor: data.baseExecutor.get(rec.id) ?? 0,
      });
    }
  }
  return { sweep, cells, bases };
}

/**
 * Rollouts of these sweeps that ran (not reused) with no known cost: an executor model without a
 * price (Codex, HARNESS2_CODEX_PRICES). 0 for a store from before the `priced` column.
 */
export function unpricedRollouts(db: Database, sweepIds: readonly string[]): number {
  if (sweepIds.length === 0) return 0;
  const cols = db.query("SELECT name FROM pragma_table_info('rollouts')").all() as Row[];
  if (!cols.some((c) => c.name === "priced")) return 0;
  const marks = sweepIds.map(() => "?").join(", ");
  const row = db
    .query(`SELECT COUNT(*) AS n FROM rollouts r JOIN tasks t ON t.id = r.task_id
      WHERE t.sweep_id IN (${marks}) AND r.finished = 1 AND r.priced = 0
        AND COALESCE(r.reused, 0) = 0`)
    .get(...sweepIds) as Row | null;
  return num(row?.n);
}
