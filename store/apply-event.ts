// Turns one validated event into row changes, with prepared statements: the only place in the
// codebase that writes the store's tables. It must be called inside the writer's transaction and
// never commits, buffers or validates by itself.

import type { Database, Statement } from "bun:sqlite";
import type { EventOf, HarnessEvent } from "../src/core/events/registry.ts";
import { newTaskRecordId } from "./ids.ts";

/** A task-level event arrived for a task the store has no record of and cannot place. */
export class OrphanEventError extends Error {
  constructor(
    readonly eventType: string,
    readonly sweep: string,
    readonly task: string,
  ) {
    super(
      `${eventType} for task '${task}' of sweep ${sweep} arrived before any task.started and carries no k, so it cannot be placed`,
    );
    this.name = "OrphanEventError";
  }
}

type Stmt = Statement;

const json = (v: unknown): string => JSON.stringify(v);
const flag = (b: boolean | undefined): number | null => (b === undefined ? null : b ? 1 : 0);
const ms = (ts: number): number => Math.round(ts);

/** Prepared statements and the small caches that map (sweep, task, k) to a task record id. */
export class EventApplier {
  private readonly s: Record<string, Stmt>;
  private readonly knownSweeps = new Set<string>();
  private readonly taskIds = new Map<string, string>();
  private readonly latestTask = new Map<string, string>();

  constructor(db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      event: p("INSERT INTO events (sweep_id, type, ts, body) VALUES (?, ?, ?, ?)"),
      ensureSweep: p(
        "INSERT INTO sweeps (id, started_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
      ),
      sweepStarted: p(`INSERT INTO sweeps (id, bench, substrate, ks, modes, seed, tag, argv, config,
          identity, runs_root, domains, announced, started_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
        ON CONFLICT (id) DO UPDATE SET bench = excluded.bench, substrate = excluded.substrate,
          ks = excluded.ks, modes = excluded.modes, seed = excluded.seed, tag = excluded.tag,
          argv = excluded.argv, config = excluded.config, identity = excluded.identity,
          runs_root = excluded.runs_root, domains = excluded.domains, announced = 1,
          started_at = excluded.started_at`),
      sweepFinished: p(`UPDATE sweeps SET status = ?, finished_at = ?, tasks_ok = ?,
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
          delivered, usd, wall_s, reused, error, finished_at)
          VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (task_id, run_id) DO UPDATE SET label = excluded.label, finished = 1,
          run_dir = excluded.run_dir, ok = excluded.ok, delivered = excluded.delivered,
          usd = excluded.usd, wall_s = excluded.wall_s, reused = excluded.reused,
          error = excluded.error, finished_at = excluded.finished_at`),
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

  /** Forgets cached ids; called after a rolled-back transaction, whose inserts no longer exist. */
  reset(): void {
    this.knownSweeps.clear();
    this.taskIds.clear();
    this.latestTask.clear();
  }

  /** Records `ev` in the event log and updates the tables it touches. */
  apply(ev: HarnessEvent): void {
    this.s.event!.run(ev.sweep, ev.type, ms(ev.ts), json(ev));
    if (ev.type !== "judgment.recorded") this.ensureSweep(ev.sweep, ev.ts);
    switch (ev.type) {
      case "sweep.started":
        this.sweepStarted(ev);
        return;
      case "sweep.finished":
        this.s.sweepFinished!.run(
          ev.status,
          ms(ev.ts),
          ev.tasksOk,
          ev.tasksFailed,
          ev.tasksSkipped,
          ev.usd,
          ev.wallS,
          ev.sweep,
        );
        return;
      case "task.started":
        this.taskStarted(ev);
        return;
      case "task.skipped": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.taskSkipped!.run(ev.reason, ms(ev.ts), id);
        return;
      }
      case "task.finished": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.taskFinished!.run(
          ev.status,
          json(ev.modes),
          ev.usd,
          ev.wallS,
          ev.error,
          ms(ev.ts),
          id,
        );
        return;
      }
      case "mode.started": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.modeStarted!.run(id, ev.mode, ms(ev.ts));
        // A mode that starts again keeps one ledger: the entries of the run that is now going.
        this.s.clearLedger!.run(id, ev.mode);
        return;
      }
      case "mode.finished":
        this.modeFinished(ev);
        return;
      case "phase.started": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.phase!.run(id, ev.mode, ev.phase, ms(ev.ts));
        return;
      }
      case "stage.started": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.stageStarted!.run(id, ev.mode, ev.label, ev.dim, ev.evidenceDir, ms(ev.ts));
        return;
      }
      case "stage.finished":
        this.stageFinished(ev);
        return;
      case "proposer.call":
        this.proposerCall(ev);
        return;
      case "rollout.started": {
        const id = this.placedTask(ev);
        this.s.rolloutStarted!.run(id, ev.label, ev.runId, ms(ev.ts));
        return;
      }
      case "rollout.finished":
        this.rolloutFinished(ev);
        return;
      case "ledger.recorded": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.ledger!.run(
          id,
          ev.mode,
          ev.R + ev.P,
          ev.kind,
          ev.label,
          ev.usd,
          flag(ev.cached),
          ev.attempts,
          ev.R,
          ev.P,
          ms(ev.ts),
        );
        return;
      }
      case "tripwire.fired":
        this.tripwire(ev);
        return;
      case "selection.made":
        this.selection(ev);
        return;
      case "adoption.recorded":
        this.adoption(ev);
        return;
      case "reflection.finished": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.reflection!.run(
          id,
          ev.mode,
          flag(ev.ok),
          flag(ev.noEntry),
          ev.usd,
          ev.error,
          ms(ev.ts),
        );
        return;
      }
      case "library.added": {
        const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
        this.s.library!.run(
          id,
          ev.mode,
          ev.entry,
          ev.cue,
          ev.lesson,
          ev.confidence,
          ev.path,
          ms(ev.ts),
        );
        return;
      }
      case "judgment.recorded":
        this.judgment(ev);
        return;
      case "note":
        this.s.note!.run(ev.sweep, ev.task ?? null, ev.level, ev.message, ms(ev.ts));
        return;
      default:
        // Every event type has a case: a new event fails typechecking here until it has one.
        ev satisfies never;
    }
  }

  private ensureSweep(sweep: string, ts: number): void {
    if (this.knownSweeps.has(sweep)) return;
    this.s.ensureSweep!.run(sweep, ms(ts));
    this.knownSweeps.add(sweep);
  }

  private sweepStarted(ev: EventOf<"sweep.started">): void {
    this.s.sweepStarted!.run(
      ev.sweep,
      ev.bench,
      ev.substrate,
      json(ev.ks),
      json(ev.modes),
      ev.seed,
      ev.tag,
      json(ev.argv),
      json(ev.config),
      json(ev.identity),
      ev.runsRoot,
      json(ev.domains),
      ms(ev.ts),
    );
  }

  private taskStarted(ev: EventOf<"task.started">): void {
    const row = this.s.taskStarted!.get(
      newTaskRecordId(),
      ev.sweep,
      ev.domain,
      ev.task,
      ev.k,
      json(ev.modes),
      ev.index,
      ev.of,
      ev.taskDir,
      ms(ev.ts),
    ) as { id: string };
    this.remember(ev.sweep, ev.task, ev.k, row.id);
  }

  private remember(sweep: string, task: string, k: number, id: string): void {
    this.taskIds.set(`${sweep}\u0000${task}\u0000${k}`, id);
    this.latestTask.set(`${sweep}\u0000${task}`, id);
  }

  /** The record id of (sweep, task, k), creating a bare record when no task.started was seen. */
  private task(sweep: string, task: string, k: number, domain: string, ts: number): string {
    const key = `${sweep}\u0000${task}\u0000${k}`;
    const cached = this.taskIds.get(key);
    if (cached) return cached;
    const row = this.s.ensureTask!.get(newTaskRecordId(), sweep, domain, task, k, ms(ts)) as {
      id: string;
    };
    this.remember(sweep, task, k, row.id);
    return row.id;
  }

  /** The record of an event whose k may be absent: its (sweep, task, k), else the latest one. */
  private looseTask(ev: {
    sweep: string;
    task?: string;
    k?: number;
    domain?: string;
    ts: number;
  }): string | null {
    if (ev.task === undefined) return null;
    if (ev.k !== undefined) return this.task(ev.sweep, ev.task, ev.k, ev.domain ?? "", ev.ts);
    const key = `${ev.sweep}\u0000${ev.task}`;
    const cached = this.latestTask.get(key);
    if (cached) return cached;
    const row = this.s.latestTask!.get(ev.sweep, ev.task) as { id: string } | null;
    if (row) this.latestTask.set(key, row.id);
    return row?.id ?? null;
  }

  private placedTask(ev: EventOf<"rollout.started"> | EventOf<"rollout.finished">): string {
    const id = this.looseTask(ev);
    if (id === null) throw new OrphanEventError(ev.type, ev.sweep, ev.task);
    return id;
  }

  private modeFinished(ev: EventOf<"mode.finished">): void {
    const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
    this.s.modeFinished!.run(
      id,
      ev.mode,
      ev.status,
      ev.R,
      ev.P,
      ev.expectedR,
      ev.expectedP,
      json(ev.fellBack),
      json(ev.keptBase),
      ev.similarity === null ? null : json(ev.similarity),
      ev.usd,
      ev.error,
      ms(ev.ts),
      ms(ev.ts),
    );
  }

  private stageFinished(ev: EventOf<"stage.finished">): void {
    const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
    this.s.stageFinished!.run(
      id,
      ev.mode,
      ev.label,
      ev.dim,
      flag(ev.fellBack),
      flag(ev.keptBase),
      ev.attempts,
      ev.usd,
      flag(ev.cached),
      ev.error,
      ev.notes,
      ev.harnessDir,
      ms(ev.ts),
    );
  }

  private proposerCall(ev: EventOf<"proposer.call">): void {
    this.s.proposerCall!.run(
      ev.sweep,
      this.looseTask(ev),
      ev.mode ?? null,
      ev.label,
      ev.purpose,
      ev.attempts,
      ev.channel,
      ev.model,
      flag(ev.cached),
      ev.wallS,
      ev.usd,
      ev.error,
      ev.auditPath,
      ms(ev.ts),
    );
  }

  private rolloutFinished(ev: EventOf<"rollout.finished">): void {
    this.s.rolloutFinished!.run(
      this.placedTask(ev),
      ev.label,
      ev.runId,
      ev.runDir,
      flag(ev.ok),
      flag(ev.delivered),
      ev.usd,
      ev.wallS,
      flag(ev.reused),
      ev.error,
      ms(ev.ts),
    );
  }

  private tripwire(ev: EventOf<"tripwire.fired">): void {
    this.s.tripwire!.run(
      ev.sweep,
      this.looseTask(ev),
      ev.domain ?? null,
      ev.task ?? null,
      ev.mode ?? null,
      ev.kind,
      ev.path,
      ev.marker,
      ev.stage,
      ev.message,
      ms(ev.ts),
    );
  }

  private selection(ev: EventOf<"selection.made">): void {
    const id = this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts);
    this.s.selection!.run(
      id,
      ev.mode,
      ev.k,
      ev.anonId,
      ev.chosenLabel,
      json(ev.idMap),
      ev.why,
      flag(ev.ok),
      flag(ev.fallback),
      flag(ev.trivial),
      json(ev.dropped),
      ev.usd,
      ev.error,
      ev.chosenRunId ?? null,
      ev.chosenRunDir ?? null,
      ms(ev.ts),
    );
  }

  private adoption(ev: EventOf<"adoption.recorded">): void {
    this.s.adoption!.run(
      ev.harnessFingerprint,
      ev.outputDigest,
      flag(ev.chosenTreeIsBase),
      ev.evidence,
      ev.experience === null ? null : json(ev.experience),
      ev.chosenRunDir,
      ms(ev.ts),
      this.task(ev.sweep, ev.task, ev.k, ev.domain, ev.ts),
      ev.mode,
      ev.chosenLabel,
      ev.chosenRunId,
    );
  }

  private judgment(ev: EventOf<"judgment.recorded">): void {
    const subject = ev.runId || `${ev.sweep}:${ev.task}:${ev.mode}:${ev.k}`;
    const key = `${ev.sweep}\u0000${ev.task}\u0000${ev.k}`;
    let taskId = this.taskIds.get(key) ?? null;
    if (taskId === null) {
      const row = this.s.findTask!.get(ev.sweep, ev.task, ev.k) as { id: string } | null;
      taskId = row?.id ?? null;
    }
    this.s.judgment!.run(
      subject,
      ev.sweep,
      taskId,
      ev.domain,
      ev.task,
      ev.mode,
      ev.k,
      ev.label,
      ev.runId,
      flag(ev.graded),
      ev.score,
      ev.passed,
      ev.total,
      ev.reason,
      ev.judge,
      ms(ev.ts),
    );
  }
}
