// StoreWriter: every event type lands in the log and its rows; bursts, refusals, busy retries.
import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  EVENT_TYPES,
  type EventOf,
  type EventType,
  type HarnessEvent,
} from "../../src/core/events/registry.ts";
import { openStore } from "../../store/db.ts";
import { InvalidEventError, StoreWriteError, StoreWriter } from "../../store/writer.ts";
import { SAMPLES, SWEEP, tempDir } from "./samples.ts";

type Row = Record<string, unknown>;
const one = (db: Database, sql: string, ...params: (string | number)[]) =>
  db.query(sql).get(...params) as Row;
const taskId = (db: Database, task: string) =>
  (one(db, "SELECT id FROM tasks WHERE sweep_id = ? AND task = ?", SWEEP, task) as { id: string })
    .id;

/** For each event type: the rows it must have produced. */
const CHECKS: { [T in EventType]: (db: Database, ev: EventOf<T>) => void } = {
  "sweep.started": (db, ev) => {
    const r = one(db, "SELECT * FROM sweeps WHERE id = ?", ev.sweep);
    expect(r.bench).toBe(ev.bench);
    expect(r.substrate).toBe(ev.substrate);
    expect(JSON.parse(String(r.ks))).toEqual(ev.ks);
    expect(JSON.parse(String(r.modes))).toEqual(ev.modes);
    expect(r.seed).toBe(7);
    expect(JSON.parse(String(r.argv))).toEqual(ev.argv);
    expect(JSON.parse(String(r.config))).toEqual(ev.config);
    expect(JSON.parse(String(r.identity))).toEqual(ev.identity);
    expect(JSON.parse(String(r.domains))).toEqual(ev.domains);
    expect(r.runs_root).toBe(ev.runsRoot);
    expect(r.announced).toBe(1);
    expect(r.started_at).toBe(ev.ts);
  },
  "sweep.finished": (db, ev) => {
    const r = one(db, "SELECT * FROM sweeps WHERE id = ?", ev.sweep);
    expect(r.status).toBe("failed");
    expect(r.finished_at).toBe(ev.ts);
    expect([r.tasks_ok, r.tasks_failed, r.tasks_skipped]).toEqual([0, 1, 1]);
    expect(r.usd).toBe(1.25);
    expect(r.wall_s).toBe(19);
  },
  "task.started": (db, ev) => {
    const r = one(db, "SELECT * FROM tasks WHERE sweep_id = ? AND task = ?", ev.sweep, ev.task);
    expect(String(r.id)).toMatch(/^tsk_/);
    expect([r.domain, r.k, r.position, r.of, r.task_dir]).toEqual(["finance", 2, 1, 1, ev.taskDir]);
    expect(r.started_at).toBe(ev.ts);
  },
  "task.skipped": (db, ev) => {
    const r = one(db, "SELECT * FROM tasks WHERE sweep_id = ? AND task = ?", ev.sweep, ev.task);
    expect(r.status).toBe("skipped");
    expect(r.skip_reason).toBe(ev.reason);
    expect(r.finished_at).toBe(ev.ts);
  },
  "task.finished": (db, ev) => {
    const r = one(db, "SELECT * FROM tasks WHERE sweep_id = ? AND task = ?", ev.sweep, ev.task);
    expect(r.status).toBe("partial");
    expect(JSON.parse(String(r.mode_status))).toEqual(ev.modes);
    expect([r.usd, r.wall_s, r.error, r.finished_at]).toEqual([1.25, 300, ev.error, ev.ts]);
  },
  "mode.started": (db, ev) => {
    const r = one(
      db,
      "SELECT * FROM modes WHERE task_id = ? AND mode = ?",
      taskId(db, ev.task),
      "agg",
    );
    expect(r.started_at).toBe(ev.ts);
  },
  "mode.finished": (db, ev) => {
    const r = one(db, "SELECT * FROM modes WHERE task_id = ?", taskId(db, ev.task));
    expect([r.status, r.r, r.p, r.expected_r, r.expected_p]).toEqual(["degraded", 8, 6, 8, 6]);
    expect(JSON.parse(String(r.fell_back))).toEqual(["inv1"]);
    expect(JSON.parse(String(r.kept_base))).toEqual(["dom1"]);
    expect(JSON.parse(String(r.similarity))).toEqual(ev.similarity);
    expect([r.usd, r.finished_at]).toEqual([0.75, ev.ts]);
  },
  "phase.started": (db, ev) => {
    expect(one(db, "SELECT phase FROM modes WHERE task_id = ?", taskId(db, ev.task)).phase).toBe(
      "proposals",
    );
  },
  "stage.started": (db, ev) => {
    const r = one(db, "SELECT * FROM stages WHERE label = ?", ev.label);
    expect([r.dim, r.evidence_dir, r.started_at]).toEqual(["INV", ev.evidenceDir, ev.ts]);
  },
  "stage.finished": (db, ev) => {
    const r = one(
      db,
      "SELECT * FROM stages WHERE task_id = ? AND label = ?",
      taskId(db, ev.task),
      ev.label,
    );
    expect([r.finished, r.fell_back, r.kept_base, r.attempts, r.usd, r.cached]).toEqual([
      1, 1, 0, 2, 0.125, 0,
    ]);
    expect([r.error, r.notes, r.harness_dir, r.finished_at]).toEqual([
      ev.error,
      ev.notes,
      ev.harnessDir,
      ev.ts,
    ]);
  },
  "proposer.call": (db, ev) => {
    const r = one(db, "SELECT * FROM proposer_calls WHERE label = ?", ev.label);
    expect(r.task_id).toBe(taskId(db, "t-001"));
    expect([r.mode, r.purpose, r.attempts, r.channel, r.model, r.cached]).toEqual([
      "agg",
      "stage",
      2,
      "opencode",
      "a/improve",
      0,
    ]);
    expect([r.wall_s, r.usd, r.error, r.audit_path]).toEqual([12.5, 0.125, "", ev.auditPath]);
  },
  "rollout.started": (db, ev) => {
    const r = one(db, "SELECT * FROM rollouts WHERE run_id = ?", ev.runId);
    expect([r.task_id, r.label, r.started_at]).toEqual([taskId(db, ev.task), "inv1", ev.ts]);
  },
  "rollout.finished": (db, ev) => {
    const r = one(db, "SELECT * FROM rollouts WHERE run_id = ?", ev.runId);
    expect([r.finished, r.run_dir, r.ok, r.delivered, r.usd, r.wall_s, r.reused]).toEqual([
      1,
      "/exec/inv1",
      1,
      0,
      0.5,
      30,
      0,
    ]);
  },
  "ledger.recorded": (db, ev) => {
    const r = one(db, "SELECT * FROM ledger_entries WHERE task_id = ?", taskId(db, ev.task));
    expect([r.mode, r.seq, r.kind, r.label, r.usd, r.cached, r.attempts, r.r, r.p]).toEqual([
      "agg",
      3,
      "session",
      "inv1",
      0.125,
      0,
      2,
      2,
      1,
    ]);
  },
  "tripwire.fired": (db, ev) => {
    const r = one(db, "SELECT * FROM tripwires WHERE sweep_id = ?", ev.sweep);
    expect([r.task_id, r.mode, r.kind, r.path, r.marker, r.stage, r.message]).toEqual([
      taskId(db, "t-001"),
      "agg",
      "grader_verdict",
      ev.path,
      "PASS:",
      "inv1",
      ev.message,
    ]);
  },
  "selection.made": (db, ev) => {
    const r = one(db, "SELECT * FROM selections WHERE task_id = ?", taskId(db, ev.task));
    expect([r.mode, r.k, r.anon_id, r.chosen_label, r.why]).toEqual([
      "agg",
      2,
      "B",
      "agg2",
      ev.why,
    ]);
    expect(JSON.parse(String(r.id_map))).toEqual(ev.idMap);
    expect(JSON.parse(String(r.dropped))).toEqual(["agg1"]);
    expect([r.ok, r.fallback, r.trivial, r.usd, r.error]).toEqual([1, 0, 0, 0.25, ""]);
    expect([r.chosen_run_id, r.chosen_run_dir]).toEqual([ev.chosenRunId, ev.chosenRunDir]);
  },
  "adoption.recorded": (db, ev) => {
    const r = one(db, "SELECT * FROM selections WHERE task_id = ?", taskId(db, ev.task));
    expect([r.chosen_label, r.harness_fingerprint, r.output_digest, r.evidence]).toEqual([
      ev.chosenLabel,
      ev.harnessFingerprint,
      ev.outputDigest,
      "deliverable",
    ]);
    expect([r.chosen_tree_is_base, r.chosen_run_dir, r.adopted_at]).toEqual([
      0,
      ev.chosenRunDir,
      ev.ts,
    ]);
    expect(JSON.parse(String(r.experience))).toEqual(ev.experience);
  },
  "reflection.finished": (db, ev) => {
    const r = one(db, "SELECT * FROM modes WHERE task_id = ?", taskId(db, ev.task));
    expect([r.reflection_ok, r.reflection_no_entry, r.reflection_usd, r.reflection_error]).toEqual([
      1,
      0,
      0.0625,
      "",
    ]);
  },
  "library.added": (db, ev) => {
    const r = one(db, "SELECT * FROM library_entries WHERE task_id = ?", taskId(db, ev.task));
    expect([r.mode, r.entry, r.cue, r.lesson, r.confidence, r.path]).toEqual([
      "agg",
      "t-001",
      ev.cue,
      ev.lesson,
      "high",
      ev.path,
    ]);
  },
  "judgment.recorded": (db, ev) => {
    const r = one(db, "SELECT * FROM judgments WHERE subject = ?", ev.runId);
    expect([r.task_id, r.mode, r.k, r.label, r.graded, r.score, r.passed, r.total]).toEqual([
      taskId(db, ev.task),
      "agg",
      2,
      "agg2",
      1,
      0.75,
      3,
      4,
    ]);
    expect([r.reason, r.judge]).toEqual([ev.reason, "a/judge"]);
  },
  note: (db, ev) => {
    const r = one(db, "SELECT * FROM notes WHERE sweep_id = ?", ev.sweep);
    expect([r.task, r.level, r.message, r.at]).toEqual(["t-001", "warn", ev.message, ev.ts]);
  },
};

let dir: string;
let cleanup: () => void;
let db: Database;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  db = openStore(join(dir, "harness2.db"));
});
afterEach(() => {
  db.close();
  cleanup();
});

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("StoreWriter", () => {
  test("by default a store that cannot record says so once per cause, then how many more it lost", () => {
    // Every write fails the same way (as on a full disk): one line, not one per event.
    db.run(`CREATE TRIGGER full BEFORE INSERT ON events
      BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const w = new StoreWriter(db);
      for (const type of EVENT_TYPES.slice(0, 5)) w.emit(SAMPLES[type]);
      w.close();
      expect(w.stats.rejected).toBe(5);
    } finally {
      process.stderr.write = write;
    }
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^harness2 store: could not record sweep\.started: database or disk is full\n$/,
    );
    expect(lines[1]).toBe(
      "harness2 store: 4 more event(s) were not recorded, for the same reason\n",
    );
  });

  test("every event type round-trips into the event log and its table rows", () => {
    const errors: Error[] = [];
    const w = new StoreWriter(db, { onError: (e) => errors.push(e) });
    for (const type of EVENT_TYPES) w.emit(SAMPLES[type]);
    w.close();
    expect(errors).toEqual([]);
    expect(w.stats).toEqual({ recorded: EVENT_TYPES.length, transactions: 1, rejected: 0 });
    const logged = db.query("SELECT type, body FROM events ORDER BY seq").all() as {
      type: string;
      body: string;
    }[];
    expect(logged.map((r) => r.type)).toEqual([...EVENT_TYPES]);
    for (const r of logged) expect(JSON.parse(r.body)).toEqual(SAMPLES[r.type as EventType]);
    for (const type of EVENT_TYPES) {
      (CHECKS[type] as (db: Database, ev: HarnessEvent) => void)(db, SAMPLES[type]);
    }
  });

  test("a burst of 100 events is written in one transaction after the burst", async () => {
    const w = new StoreWriter(db, { flushDelayMs: 0 });
    w.emit(SAMPLES["sweep.started"]);
    for (let i = 0; i < 99; i++) w.emit({ ...SAMPLES.note, message: `n${i}` });
    expect(w.stats.transactions).toBe(0);
    expect(w.pending).toBe(100);
    await tick();
    expect(w.pending).toBe(0);
    expect(w.stats).toEqual({ recorded: 100, transactions: 1, rejected: 0 });
    expect(one(db, "SELECT COUNT(*) AS n FROM events").n).toBe(100);
    expect(one(db, "SELECT COUNT(*) AS n FROM notes").n).toBe(99);
    w.close();
  });

  test("a burst larger than maxBatch is written in slices inside emit", () => {
    const w = new StoreWriter(db, { maxBatch: 4 });
    for (let i = 0; i < 10; i++) w.emit({ ...SAMPLES.note, message: `n${i}` });
    expect(w.stats.transactions).toBe(2);
    expect(w.pending).toBe(2);
    w.close();
    expect(w.stats.transactions).toBe(3);
    expect(one(db, "SELECT COUNT(*) AS n FROM notes").n).toBe(10);
  });

  test("an invalid event is refused with the field named, and never reaches the store", () => {
    const errors: Error[] = [];
    const w = new StoreWriter(db, { onError: (e) => errors.push(e) });
    const bad = { ...SAMPLES["stage.finished"], attempts: -1 } as HarnessEvent;
    w.emit(bad);
    w.emit({ type: "no.such" } as unknown as HarnessEvent);
    w.close();
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeInstanceOf(InvalidEventError);
    expect(errors[0]?.message).toContain("stage.finished");
    expect(errors[0]?.message).toContain("attempts");
    expect(w.stats).toEqual({ recorded: 0, transactions: 0, rejected: 2 });
    expect(one(db, "SELECT COUNT(*) AS n FROM events").n).toBe(0);
  });

  test("an event that cannot be placed loses only itself; the rest of its burst is written", () => {
    const errors: Error[] = [];
    const w = new StoreWriter(db, { onError: (e) => errors.push(e) });
    const { k: _k, ...orphan } = SAMPLES["rollout.finished"];
    w.emit(SAMPLES["sweep.started"]);
    w.emit({ ...orphan, task: "never-started" });
    w.emit(SAMPLES["task.started"]);
    w.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StoreWriteError);
    expect(errors[0]?.message).toContain("never-started");
    expect(w.stats.recorded).toBe(2);
    expect(one(db, "SELECT COUNT(*) AS n FROM events").n).toBe(2);
    expect(one(db, "SELECT COUNT(*) AS n FROM rollouts").n).toBe(0);
    expect(one(db, "SELECT COUNT(*) AS n FROM tasks").n).toBe(1);
  });

  test("events without k attach to the latest record of their task", () => {
    const w = new StoreWriter(db);
    const { k: _k, ...rollout } = SAMPLES["rollout.finished"];
    w.emit(SAMPLES["sweep.started"]);
    w.emit(SAMPLES["task.started"]);
    w.emit({ ...SAMPLES["task.started"], k: 3, ts: SAMPLES["task.started"].ts + 1 });
    w.emit(rollout);
    w.close();
    const r = one(
      db,
      "SELECT t.k FROM rollouts r JOIN tasks t ON t.id = r.task_id WHERE r.run_id = ?",
      rollout.runId,
    );
    expect(r.k).toBe(3);
  });

  test("a graded judgment is never replaced by a later ungraded one; the reverse replaces", () => {
    const w = new StoreWriter(db);
    const graded = SAMPLES["judgment.recorded"];
    const ungraded = {
      ...graded,
      ts: graded.ts + 1,
      graded: false,
      score: null,
      passed: null,
      total: null,
      reason: "judge timed out",
    };
    w.emit(SAMPLES["sweep.started"]);
    w.emit(graded);
    w.emit(ungraded);
    w.flush();
    expect(one(db, "SELECT graded, score, reason FROM judgments").reason).toBe("3 of 4 criteria");
    const other = { ...ungraded, runId: "tasks-oc-agg2-s7/t-001/agg1", label: "agg1" };
    w.emit(other);
    w.emit({ ...other, ts: other.ts + 1, graded: true, score: 0.5, reason: "2 of 4" });
    w.close();
    const rows = db.query("SELECT subject, graded, score FROM judgments ORDER BY subject").all();
    expect(rows).toEqual([
      { subject: "tasks-oc-agg2-s7/t-001/agg1", graded: 1, score: 0.5 },
      { subject: "tasks-oc-agg2-s7/t-001/agg2", graded: 1, score: 0.75 },
    ]);
    // Every judgment event is still in the raw log.
    expect(one(db, "SELECT COUNT(*) AS n FROM events WHERE type = 'judgment.recorded'").n).toBe(4);
  });

  test("a mode that starts again starts its ledger afresh", () => {
    const w = new StoreWriter(db);
    for (const t of ["sweep.started", "task.started", "mode.started", "ledger.recorded"] as const) {
      w.emit(SAMPLES[t]);
    }
    w.emit(SAMPLES["mode.started"]);
    w.emit({ ...SAMPLES["ledger.recorded"], kind: "rollout", label: "base1", R: 1, P: 0 });
    w.close();
    expect(db.query("SELECT kind, label, seq FROM ledger_entries").all()).toEqual([
      { kind: "rollout", label: "base1", seq: 1 },
    ]);
  });

  test("a task started twice in one sweep keeps one record and its id", () => {
    const w = new StoreWriter(db);
    w.emit(SAMPLES["sweep.started"]);
    w.emit(SAMPLES["task.started"]);
    w.flush();
    const first = taskId(db, "t-001");
    w.emit(SAMPLES["task.finished"]);
    w.emit({ ...SAMPLES["task.started"], ts: SAMPLES["task.started"].ts + 100 });
    w.close();
    const rows = db.query("SELECT id, status FROM tasks WHERE task = 't-001'").all();
    expect(rows).toEqual([{ id: first, status: "running" }]);
  });

  test("events for a sweep whose start was never seen make a bare sweep row", () => {
    const w = new StoreWriter(db);
    w.emit(SAMPLES.note);
    w.close();
    const r = one(db, "SELECT announced, status, started_at FROM sweeps WHERE id = ?", SWEEP);
    expect(r).toEqual({ announced: 0, status: "running", started_at: SAMPLES.note.ts });
  });

  test("a burst that meets another process's write lock is kept and written later", () => {
    const path = join(dir, "busy.db");
    const mine = openStore(path, { busyTimeoutMs: 20 });
    const other = openStore(path);
    const errors: Error[] = [];
    const w = new StoreWriter(mine, { onError: (e) => errors.push(e) });
    other.run("BEGIN IMMEDIATE");
    w.emit(SAMPLES["sweep.started"]);
    w.emit(SAMPLES["task.started"]);
    expect(w.flush()).toBe(0);
    expect(w.pending).toBe(2);
    expect(errors).toEqual([]);
    other.run("COMMIT");
    expect(w.flush()).toBe(2);
    expect(one(mine, "SELECT COUNT(*) AS n FROM tasks").n).toBe(1);
    // On close there is no later: a burst still locked out is reported lost, not dropped silently.
    other.run("BEGIN IMMEDIATE");
    w.emit(SAMPLES["task.finished"]);
    w.close();
    other.run("COMMIT");
    expect(errors.map((e) => e.name)).toEqual(["StoreWriteError"]);
    expect(errors[0]?.message).toContain("task.finished");
    expect(w.stats).toEqual({ recorded: 2, transactions: 1, rejected: 1 });
    other.close();
    mine.close();
  });

  test("after close, emit is refused and reported", () => {
    const errors: Error[] = [];
    const w = new StoreWriter(db, { onError: (e) => errors.push(e) });
    w.close();
    w.emit(SAMPLES.note);
    expect(errors[0]?.message).toContain("closed");
    expect(w.stats.rejected).toBe(1);
  });
});
