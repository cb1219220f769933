// The event applier's prepared statements, one per row change an event makes (an INSERT or an
// UPSERT keyed like the table), prepared once per connection, and how values become their
// parameters (JSON text, 0/1 flags, whole milliseconds). Only the applier runs them.

import type { Database, Statement } from "bun:sqlite";

export type Statements = Record<string, Statement>;

export const json = (v: unknown): string => JSON.stringify(v);
export const flag = (b: boolean | undefined): number | null => (b === undefined ? null : b ? 1 : 0);
export const ms = (ts: number): number => Math.round(ts);

export function prepareStatements(db: Database): Statements {
  const p = (sql: string) => db.prepare(sql);
  return {
    event: p("INSERT INTO events (sweep_id, type, ts, body) VALUES (?, ?, ?, ?)"),
    ensureSweep: p("INSERT INTO sweeps (id, started_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING"),
    sweepStarted: p(`INSERT INTO sweeps (id, bench, substrate, ks, modes, seed, tag, argv, config,
        identity, runs_root, domains, announced, started_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
      ON CONFLICT (id) DO UPDATE SET bench = excluded.bench, substrate = excluded.substrate,
        ks = excluded.ks, modes = excluded.modes, seed = excluded.seed, tag = excluded.tag,
        argv = excluded.argv, config = excluded.config, identity = excluded.identity,
        runs_root = excluded.runs_root, domains = excluded.domains, announced = 1,
        started_at = excluded.started_at`),
    sweepFinished: p(`UPDATE sweeps SET status = ?, stop_reason = ?, finished_at = ?, tasks_ok = ?,
        tasks_failed = ?, tasks_skipped = ?, usd = ?, wall_s = ? WHERE id = ?`),
    taskStarted: p(`INSERT INTO tasks (id, sweep_id, domain, task, k, modes, position, of,
        task_dir, status, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)
      ON CONFLICT (sweep_id, task, k) DO UPDATE SET domain = excluded.domain,
        modes = excluded.modes, position = excluded.position, of = excluded.of,
        task_dir = excluded.task_dir, status = 'running', started_at = excluded.started_at,
        finished_at = NULL, error = '', skip_reason = ''
      RETURNING id`),
    ensureTask: p(`INSERT INTO tasks (id, sweep_id, domain, task, k, started_at)
        VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (sweep_id, task, k) DO UPDATE SET id = id RETURNING id`),
    findTask: p("SELECT id FROM tasks WHERE sweep_id = ? AND task = ? AND k = ?"),
    latestTask: p(`SELECT id FROM tasks WHERE sweep_id = ? AND task = ?
        ORDER BY started_at DESC, id DESC LIMIT 1`),
    taskSkipped: p(`UPDATE tasks SET status = 'skipped', skip_reason = ?, finished_at = ?
        WHERE id = ?`),
    taskFinished: p(`UPDATE tasks SET status = ?, mode_status = ?, usd = ?, wall_s = ?,
        error = ?, finished_at = ? WHERE id = ?`),
    modeStarted: p(`INSERT INTO modes (task_id, mode, started_at) VALUES (?, ?, ?)
      ON CONFLICT (task_id, mode) DO UPDATE SET status = 'running', phase = NULL,
        started_at = excluded.started_at, finished_at = NULL, r = NULL, p = NULL,
        expected_r = NULL, expected_p = NULL, error = ''`),
    clearLedger: p("DELETE FROM ledger_entries WHERE task_id = ? AND mode = ?"),
    modeFinished: p(`INSERT INTO modes (task_id, mode, status, r, p, expected_r, expected_p,
        fell_back, kept_base, similarity, usd, error, started_at, finished_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (task_id, mode) DO UPDATE SET status = excluded.status, r = excluded.r,
        p = excluded.p, expected_r = excluded.expected_r, expected_p = excluded.expected_p,
        fell_back = excluded.fell_back, kept_base = excluded.kept_base,
        similarity = excluded.similarity, usd = excluded.usd, error = excluded.error,
        finished_at = excluded.finished_at`),
    phase: p(`INSERT INTO modes (task_id, mode, phase, started_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (task_id, mode) DO UPDATE SET phase = excluded.phase`),
    stageStarted: p(`INSERT INTO stages (task_id, mode, label, dim, evidence_dir, started_at)
        VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (task_id, mode, label) DO UPDATE SET dim = excluded.dim,
        evidence_dir = excluded.evidence_dir, started_at = excluded.started_at, finished = 0,
        finished_at = NULL`),
    stageFinished: p(`INSERT INTO stages (task_id, mode, label, dim, finished, fell_back,
        kept_base, attempts, usd, cached, error, notes, harness_dir, finished_at)
        VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (task_id, mode, label) DO UPDATE SET dim = excluded.dim, finished = 1,
        fell_back = excluded.fell_back, kept_base = excluded.kept_base,
        attempts = excluded.attempts, usd = excluded.usd, cached = excluded.cached,
        error = excluded.error, notes = excluded.notes, harness_dir = excluded.harness_dir,
        finished_at = excluded.finished_at`),
    proposerCall: p(`INSERT INTO proposer_calls (sweep_id, task_id, mode, label, purpose,
        attempts, channel, model, cached, wall_s, usd, error, audit_path, at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    rolloutStarted: p(`INSERT INTO rollouts (task_id, label, run_id, started_at)
        VALUES (?, ?, ?, ?)
      ON CONFLICT (task_id, run_id) DO UPDATE SET label = excluded.label, finished = 0,
        started_at = excluded.started_at, finished_at = NULL`),
    rolloutFinished: p(`INSERT INTO rollouts (task_id, label, run_id, finished, run_dir, ok,
        delivered, usd, wall_s, reused, error, finished_at, priced, tokens)
        VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (task_id, run_id) DO UPDATE SET label = excluded.label, finished = 1,
        run_dir = excluded.run_dir, ok = excluded.ok, delivered = excluded.delivered,
        usd = excluded.usd, wall_s = excluded.wall_s, reused = excluded.reused,
        error = excluded.error, finished_at = excluded.finished_at, priced = excluded.priced,
        tokens = excluded.tokens`),
    ledger: p(`INSERT OR REPLACE INTO ledger_entries (task_id, mode, seq, kind, label, usd,
        cached, attempts, r, p, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    tripwire: p(`INSERT INTO tripwires (sweep_id, task_id, domain, task, mode, kind, path,
        marker, stage, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    selection: p(`INSERT OR REPLACE INTO selections (task_id, mode, k, anon_id, chosen_label,
        id_map, why, ok, fallback, trivial, dropped, usd, error, chosen_run_id,
        chosen_run_dir, at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // Only the selection of the same chosen label and run takes the facts, so they never land
    // on another pick.
    adoption: p(`UPDATE selections SET harness_fingerprint = ?, output_digest = ?,
        chosen_tree_is_base = ?, evidence = ?, experience = ?, chosen_run_dir = ?, adopted_at = ?
      WHERE task_id = ? AND mode = ? AND chosen_label = ?
        AND COALESCE(chosen_run_id, '') IN ('', ?)`),
    reflection: p(`INSERT INTO modes (task_id, mode, reflection_ok, reflection_no_entry,
        reflection_usd, reflection_error, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (task_id, mode) DO UPDATE SET reflection_ok = excluded.reflection_ok,
        reflection_no_entry = excluded.reflection_no_entry,
        reflection_usd = excluded.reflection_usd, reflection_error = excluded.reflection_error`),
    library: p(`INSERT INTO library_entries (task_id, mode, entry, cue, lesson, confidence,
        path, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (task_id, mode, entry) DO UPDATE SET cue = excluded.cue,
        lesson = excluded.lesson, confidence = excluded.confidence, path = excluded.path,
        at = excluded.at`),
    judgment: p(`INSERT INTO judgments (subject, sweep_id, task_id, domain, task, mode, k,
        label, run_id, graded, score, passed, total, reason, judge, at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (subject) DO UPDATE SET sweep_id = excluded.sweep_id,
        task_id = COALESCE(excluded.task_id, judgments.task_id), domain = excluded.domain,
        task = excluded.task, mode = excluded.mode, k = excluded.k, label = excluded.label,
        graded = excluded.graded, score = excluded.score, passed = excluded.passed,
        total = excluded.total, reason = excluded.reason, judge = excluded.judge,
        at = excluded.at
      WHERE excluded.graded = 1 OR judgments.graded = 0`),
    note: p("INSERT INTO notes (sweep_id, task, level, message, at) VALUES (?, ?, ?, ?, ?)"),
  };
}
