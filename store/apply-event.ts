// Turns one validated event into row changes, with prepared statements: the only place in the
// codebase that writes the store's tables. It must be called inside the writer's transaction and
// never commits, buffers or validates by itself.

import type { Database } from "bun:sqlite";
import type { EventOf, HarnessEvent } from "../src/core/events/registry.ts";
import { Harness2Error } from "../src/core/lib/errors.ts";
import { newTaskRecordId } from "./ids.ts";
import { flag, json, ms, prepareStatements, type Statements } from "./statements.ts";

/** A task-level event arrived for a task the store has no record of and cannot place. */
export class OrphanEventError extends Harness2Error {
  static override readonly errorKind = "bug";
  constructor(
    readonly eventType: string,
    readonly sweep: string,
    readonly task: string,
  ) {
    super(
      `${eventType} for task '${task}' of sweep ${sweep} arrived before any task.started and carries no k, so it cannot be placed`,
    );
  }
}

/** Prepared statements and the small caches that map (sweep, task, k) to a task record id. */
export class EventApplier {
  private readonly s: Statements;
  private readonly knownSweeps = new Set<string>();
  private readonly taskIds = new Map<string, string>();
  private readonly latestTask = new Map<string, string>();

  constructor(db: Database) {
    this.s = prepareStatements(db);
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
          ...[ev.status, ev.reason ?? "", ms(ev.ts), ev.tasksOk, ev.tasksFailed, ev.tasksSkipped],
          ...[ev.usd, ev.wallS, ev.sweep],
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
      flag(ev.priced ?? true),
      ev.tokens ?? 0,
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
