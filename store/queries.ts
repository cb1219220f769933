// The read side of the store: sweeps newest first, one sweep in full, one task's record, handle
// resolution, and the task records resume consults. Read-only SQL, a fixed number of queries per
// call (never one per row); returns store/views.ts values.

import type { Database } from "bun:sqlite";
import { expectedRollouts, expectedSessions } from "../src/core/events/budget.ts";
import { liveSweepIds } from "./lock.ts";
import {
  bool,
  iso,
  isoOrNull,
  num,
  numOrNull,
  parse,
  type Row,
  str,
  strOrNull,
  verdictOf,
} from "./rows.ts";
import { experimentLinks, SUMMARY_SQL, summaryOf, withLinks } from "./sweep-list.ts";
import type {
  ModeView,
  RolloutView,
  SelectionView,
  StageView,
  SweepDetail,
  TaskView,
  TripwireView,
} from "./views.ts";

type Params = (string | number | null)[];

/** The budget identity (docs/method.md §6) shown while a mode has not reported its own counts. */

function tripwireOf(r: Row): TripwireView {
  return {
    kind: str(r.kind),
    path: str(r.path),
    marker: str(r.marker),
    where: str(r.stage),
    message: str(r.message),
    task: strOrNull(r.task),
    mode: strOrNull(r.mode),
    at: iso(r.at),
  };
}

function selectionOf(r: Row): SelectionView {
  return {
    chosenLabel: str(r.chosen_label),
    anonId: str(r.anon_id),
    idMap: parse<Record<string, string>>(r.id_map, {}),
    why: str(r.why),
    ok: bool(r.ok),
    fallback: bool(r.fallback),
    trivial: bool(r.trivial),
    dropped: parse<string[]>(r.dropped, []),
    usd: num(r.usd),
    error: str(r.error),
    chosenRunId: strOrNull(r.chosen_run_id),
    chosenRunDir: strOrNull(r.chosen_run_dir),
    harnessFingerprint: strOrNull(r.harness_fingerprint),
    evidence: strOrNull(r.evidence),
  };
}

function stageOf(r: Row, live: boolean): StageView {
  const finished = bool(r.finished);
  const fellBack = bool(r.fell_back);
  const keptBase = bool(r.kept_base);
  const status: StageView["status"] = !finished
    ? live
      ? "running"
      : "interrupted"
    : fellBack
      ? "fell back"
      : keptBase
        ? "kept base"
        : "ok";
  return {
    label: str(r.label),
    dim: str(r.dim),
    status,
    fellBack,
    keptBase,
    attempts: numOrNull(r.attempts),
    usd: num(r.usd),
    cached: bool(r.cached),
    error: str(r.error),
    notes: str(r.notes),
    harnessDir: str(r.harness_dir),
  };
}

function rolloutOf(r: Row, live: boolean): RolloutView {
  const finished = bool(r.finished);
  return {
    label: str(r.label),
    runId: str(r.run_id),
    runDir: str(r.run_dir),
    status: !finished ? (live ? "running" : "interrupted") : bool(r.ok) ? "ok" : "dead",
    delivered: bool(r.delivered),
    usd: num(r.usd),
    wallS: numOrNull(r.wall_s),
    reused: bool(r.reused),
    error: str(r.error),
    priced: r.priced === undefined || r.priced === null ? true : bool(r.priced),
  };
}

function groupBy<T>(rows: Row[], key: (r: Row) => string, map: (r: Row) => T): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(map(r));
    else out.set(k, [map(r)]);
  }
  return out;
}

const byTaskMode = (r: Row) => `${str(r.task_id)}\u0000${str(r.mode)}`;
const byTask = (r: Row) => str(r.task_id);

/**
 * Loads full TaskViews for the task records selected by `idsSql` (a SELECT of task ids taking
 * `params`), in start order. `live` says which sweeps still have a running process.
 */
function loadTasks(db: Database, idsSql: string, params: Params, live: Set<string>): TaskView[] {
  const q = (sql: string) => db.query(sql.replace("$IDS", idsSql)).all(...params) as Row[];
  const tasks = q("SELECT * FROM tasks WHERE id IN ($IDS) ORDER BY started_at, id");
  if (tasks.length === 0) return [];
  const modes = q("SELECT * FROM modes WHERE task_id IN ($IDS)");
  const stages = groupBy(
    q("SELECT * FROM stages WHERE task_id IN ($IDS) ORDER BY rowid"),
    byTaskMode,
    (r) => r,
  );
  const ledger = groupBy(
    q(`SELECT task_id, mode, kind, label, usd, cached, attempts FROM ledger_entries
       WHERE task_id IN ($IDS) ORDER BY task_id, mode, seq`),
    byTaskMode,
    (r) => ({
      kind: str(r.kind) as "rollout" | "session",
      label: str(r.label),
      usd: num(r.usd),
      cached: bool(r.cached),
      attempts: num(r.attempts),
    }),
  );
  const selections = new Map(
    q("SELECT * FROM selections WHERE task_id IN ($IDS)").map((r) => [byTaskMode(r), r]),
  );
  const tripRows = q("SELECT * FROM tripwires WHERE task_id IN ($IDS) ORDER BY id");
  const tripsByMode = groupBy(
    tripRows.filter((r) => r.mode !== null),
    byTaskMode,
    tripwireOf,
  );
  const tripsByTask = groupBy(
    tripRows.filter((r) => r.mode === null),
    byTask,
    tripwireOf,
  );
  const library = groupBy(
    q("SELECT * FROM library_entries WHERE task_id IN ($IDS) ORDER BY id"),
    byTaskMode,
    (r) => ({
      entry: str(r.entry),
      cue: str(r.cue),
      lesson: str(r.lesson),
      confidence: str(r.confidence),
      path: str(r.path),
    }),
  );
  const judgments = groupBy(
    q("SELECT * FROM judgments WHERE task_id IN ($IDS) ORDER BY at"),
    byTaskMode,
    verdictOf,
  );
  const rollouts = groupBy(
    q("SELECT * FROM rollouts WHERE task_id IN ($IDS) ORDER BY rowid"),
    byTask,
    (r) => r,
  );
  const calls = groupBy(
    q("SELECT * FROM proposer_calls WHERE task_id IN ($IDS) ORDER BY id"),
    byTask,
    (r) => ({
      mode: strOrNull(r.mode),
      label: str(r.label),
      purpose: str(r.purpose),
      attempts: num(r.attempts),
      channel: str(r.channel),
      model: str(r.model),
      cached: bool(r.cached),
      wallS: num(r.wall_s),
      usd: num(r.usd),
      error: str(r.error),
      auditPath: str(r.audit_path),
    }),
  );
  const modesByTask = groupBy(modes, byTask, (r) => r);

  return tasks.map((t) => {
    const id = str(t.id);
    const isLive = live.has(str(t.sweep_id));
    const k = num(t.k);
    const declared = parse<string[]>(t.modes, []);
    const modeRows = modesByTask.get(id) ?? [];
    const order = (m: string) => (declared.includes(m) ? declared.indexOf(m) : 99);
    modeRows.sort((a, b) => order(str(a.mode)) - order(str(b.mode)));
    const modeViews: ModeView[] = modeRows.map((m) => {
      const key = `${id}\u0000${str(m.mode)}`;
      const entries = ledger.get(key) ?? [];
      const raw = str(m.status);
      const sel = selections.get(key);
      return {
        mode: str(m.mode),
        status: raw === "running" && !isLive ? "interrupted" : (raw as ModeView["status"]),
        phase: strOrNull(m.phase),
        R: m.r !== null ? num(m.r) : entries.filter((e) => e.kind === "rollout").length,
        P: m.p !== null ? num(m.p) : entries.filter((e) => e.kind === "session").length,
        expectedR: m.expected_r !== null ? num(m.expected_r) : expectedRollouts(k),
        expectedP: m.expected_p !== null ? num(m.expected_p) : expectedSessions(k),
        usd: num(m.usd),
        error: str(m.error),
        fellBack: parse<string[]>(m.fell_back, []),
        keptBase: parse<string[]>(m.kept_base, []),
        stages: (stages.get(key) ?? []).map((s) => stageOf(s, isLive)),
        ledger: entries,
        selection: sel ? selectionOf(sel) : null,
        reflection:
          m.reflection_ok === null
            ? null
            : {
                ok: bool(m.reflection_ok),
                noEntry: bool(m.reflection_no_entry),
                usd: num(m.reflection_usd),
                error: str(m.reflection_error),
              },
        tripwires: tripsByMode.get(key) ?? [],
        library: library.get(key) ?? [],
        judgments: judgments.get(key) ?? [],
        finishedAt: isoOrNull(m.finished_at),
      };
    });
    const raw = str(t.status);
    return {
      id,
      sweepId: str(t.sweep_id),
      domain: str(t.domain),
      task: str(t.task),
      k,
      status: raw === "running" && !isLive ? "interrupted" : (raw as TaskView["status"]),
      position: numOrNull(t.position),
      of: numOrNull(t.of),
      taskDir: str(t.task_dir),
      usd: num(t.usd),
      wallS: numOrNull(t.wall_s),
      error: str(t.error),
      skipReason: str(t.skip_reason),
      startedAt: iso(t.started_at),
      finishedAt: isoOrNull(t.finished_at),
      modes: modeViews,
      rollouts: (rollouts.get(id) ?? []).map((r) => rolloutOf(r, isLive)),
      calls: calls.get(id) ?? [],
      tripwires: tripsByTask.get(id) ?? [],
    };
  });
}

/** One sweep in full, or null when no sweep has this exact id. */
export function sweepDetail(
  db: Database,
  id: string,
  opts: { task?: string; now?: number } = {},
): SweepDetail | null {
  const row = db.query(`${SUMMARY_SQL} WHERE s.id = ?`).get(id) as Row | null;
  if (!row) return null;
  const live = liveSweepIds(db);
  const summary = withLinks(summaryOf(row, live, opts.now ?? Date.now()), experimentLinks(db));
  const idsSql =
    opts.task === undefined
      ? "SELECT id FROM tasks WHERE sweep_id = ?"
      : "SELECT id FROM tasks WHERE sweep_id = ? AND task = ?";
  const params: Params = opts.task === undefined ? [id] : [id, opts.task];
  const tasks = loadTasks(db, idsSql, params, live);
  const tripwires = (
    db
      .query("SELECT * FROM tripwires WHERE sweep_id = ? AND task_id IS NULL ORDER BY id")
      .all(id) as Row[]
  ).map(tripwireOf);
  const notes = (
    db
      .query("SELECT * FROM notes WHERE sweep_id = ? AND level != 'info' ORDER BY id")
      .all(id) as Row[]
  ).map((r) => ({
    task: strOrNull(r.task),
    level: str(r.level),
    message: str(r.message),
    at: iso(r.at),
  }));
  const earlier = db.query(
    `SELECT s.id FROM tasks t JOIN sweeps s ON s.id = t.sweep_id
     WHERE s.bench = ? AND s.substrate = ? AND s.tag = ? AND s.seed IS ? AND s.id != ?
       AND s.started_at <= ? AND t.task = ? AND t.k = ? AND t.status != 'skipped'
     ORDER BY s.started_at DESC, s.id DESC LIMIT 1`,
  );
  for (const t of tasks) {
    if (t.status !== "skipped") continue;
    const hit = earlier.get(
      str(row.bench),
      str(row.substrate),
      str(row.tag),
      numOrNull(row.seed),
      id,
      num(row.started_at),
      t.task,
      t.k,
    ) as { id: string } | null;
    t.resultsIn = hit?.id ?? null;
  }
  return {
    sweep: {
      ...summary,
      argv: parse<string[]>(row.argv, []),
      config: parse<Record<string, unknown>>(row.config, {}),
      identity: parse<Record<string, unknown>>(row.identity, {}),
      runsRoot: str(row.runs_root),
      domains: parse<{ domain: string; tasks: string[] }[]>(row.domains, []),
    },
    tasks,
    tripwires: opts.task === undefined ? tripwires : [],
    notes: opts.task === undefined ? notes : notes.filter((n) => n.task === opts.task),
  };
}

/** The records of one task in a sweep (one per k the sweep ran), or [] when it has none. */
export function taskDetail(db: Database, sweepId: string, task: string): TaskView[] {
  return sweepDetail(db, sweepId, { task })?.tasks ?? [];
}

/** Task names of a sweep (for "did you mean" messages). */
export function sweepTaskNames(db: Database, sweepId: string): string[] {
  return (
    db.query("SELECT DISTINCT task FROM tasks WHERE sweep_id = ? ORDER BY task").all(sweepId) as {
      task: string;
    }[]
  ).map((r) => r.task);
}

/** A namespace's coordinates without its mode: what a namespace name is built from (docs/method.md §10). */
export type NamespaceKey = {
  bench: string;
  substrate: string;
  seed: number | null;
  tag: string;
};

export type ModeRecord = ModeView & { sweepId: string; taskRecordId: string };

export type TaskRecord = {
  task: string;
  k: number;
  /** The newest finished record of the task (not skipped, not running), with all its modes. */
  latest: TaskView | null;
  /** Per mode, the newest record in which that mode finished — modes may come from different sweeps. */
  modes: Record<string, ModeRecord>;
};

const RECORD_LIMIT = 50;

/**
 * What resume consults (docs/method.md §11): the task's finished records in one sweep, or in every
 * sweep of a namespace, newest first. Skipped and running records never count as evidence.
 */
export function taskRecord(
  db: Database,
  scope: { sweep: string } | NamespaceKey,
  task: string,
  k: number,
): TaskRecord {
  const finished = "t.status NOT IN ('running', 'skipped')";
  const [idsSql, params]: [string, Params] =
    "sweep" in scope
      ? [
          `SELECT t.id FROM tasks t WHERE t.sweep_id = ? AND t.task = ? AND t.k = ? AND ${finished}`,
          [scope.sweep, task, k],
        ]
      : [
          `SELECT t.id FROM tasks t JOIN sweeps s ON s.id = t.sweep_id
           WHERE s.bench = ? AND s.substrate = ? AND s.seed IS ? AND s.tag = ?
             AND t.task = ? AND t.k = ? AND ${finished}
           ORDER BY t.finished_at DESC, t.id DESC LIMIT ${RECORD_LIMIT}`,
          [scope.bench, scope.substrate, scope.seed, scope.tag, task, k],
        ];
  const views = loadTasks(db, idsSql, params, liveSweepIds(db)).sort(
    (a, b) => (b.finishedAt ?? "").localeCompare(a.finishedAt ?? "") || b.id.localeCompare(a.id),
  );
  const modes: Record<string, ModeRecord> = {};
  for (const v of views) {
    for (const m of v.modes) {
      if (m.finishedAt === null || modes[m.mode] !== undefined) continue;
      modes[m.mode] = { ...m, sweepId: v.sweepId, taskRecordId: v.id };
    }
  }
  return { task, k, latest: views[0] ?? null, modes };
}
