// Resume wired to the store (ARCHITECTURE §5): the record source the scheduler's skip decision
// reads (store rows only — summary.json is an export and never decides), and the recorder that
// copies each mode's adoption facts into the store once core has checkpointed them.

import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NamespaceKey } from "../../store/queries.ts";
import { recordAdoption, storedTaskRecord } from "../../store/resume-queries.ts";
import type { EventSink, HarnessEvent, ModeToken } from "../core/events/registry.ts";
import { describeError } from "../core/recursion/records.ts";
import type { TaskRecordSource } from "../core/resume/resume.ts";
import {
  computeStatus,
  readSummary,
  SUMMARY_FILE,
  TaskSummary,
  writeSummary,
} from "../core/resume/summary.ts";

/**
 * The store decides resume. A task the store has no finished mode of has no record, even when a
 * summary.json sits in its folder (a run directory from before the store, or one copied from
 * elsewhere): it runs, and its run marks and the proposer cache make that cheap. When the store
 * has a record and the task's summary.json is missing, the export is written again from it, so
 * the modes this run does not re-run stay in the file.
 */
export function storeRecordSource(
  db: Database,
  key: NamespaceKey,
  k: number,
  onExportError: (message: string) => void = () => {},
): TaskRecordSource {
  return {
    async read(taskId, taskDir) {
      const stored = storedTaskRecord(db, key, taskId, k);
      if (stored === null) return { kind: "missing" };
      const parsed = TaskSummary.safeParse({ ...stored, status: computeStatus(stored) });
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const where = first?.path.join(".") ?? "";
        return {
          kind: "unreadable",
          reason: `the store's record does not parse: ${where} ${first?.message ?? ""}`.trim(),
        };
      }
      if (!existsSync(join(taskDir, SUMMARY_FILE))) {
        try {
          await writeSummary(taskDir, parsed.data);
        } catch (err) {
          // Only the export is lost; the store still holds the record and the decision.
          onExportError(`could not write ${taskDir}/${SUMMARY_FILE} again: ${describeError(err)}`);
        }
      }
      return { kind: "summary", summary: parsed.data };
    },
  };
}

/**
 * Copies adoption facts (harness fingerprint, output digest, evidence kind, lesson) from the
 * record core checkpoints after each mode into that mode's selection row. Core writes the
 * checkpoint after `mode.finished` and before the task's next `mode.started`, its
 * `task.finished` or (when a graceful stop ends the task in hand) the `sweep.finished`, so those
 * events are where the facts are taken. Call `observe` after the event reached the store (the
 * selection row must exist). A mode whose facts never arrive (the process died first) has no
 * adoption in the store and re-runs.
 */
export class AdoptionRecorder {
  private readonly taskDirs = new Map<string, string>();
  private readonly pending = new Map<string, Set<ModeToken>>();

  constructor(
    private readonly db: Database,
    private readonly onError: (message: string) => void = () => {},
  ) {}

  observe(event: HarnessEvent): void {
    switch (event.type) {
      case "task.started":
        this.taskDirs.set(this.key(event.task, event.k), event.taskDir);
        return;
      case "mode.finished": {
        const key = this.key(event.task, event.k);
        const modes = this.pending.get(key) ?? new Set<ModeToken>();
        modes.add(event.mode);
        this.pending.set(key, modes);
        return;
      }
      case "mode.started":
      case "task.finished":
        this.record(event.sweep, event.task, event.k, event.ts);
        return;
      case "sweep.finished":
        for (const key of [...this.pending.keys()]) {
          const [task, k] = key.split("\u0000") as [string, string];
          this.record(event.sweep, task, Number(k), event.ts);
        }
        return;
    }
  }

  /** Whether facts are still waiting for a checkpoint. */
  get waiting(): number {
    let n = 0;
    for (const modes of this.pending.values()) n += modes.size;
    return n;
  }

  private key(task: string, k: number): string {
    return `${task}\u0000${k}`;
  }

  private record(sweep: string, task: string, k: number, at: number): void {
    const key = this.key(task, k);
    const modes = this.pending.get(key);
    const dir = this.taskDirs.get(key);
    if (modes === undefined || modes.size === 0 || dir === undefined) return;
    this.pending.delete(key);
    const read = readSummary(dir);
    if (read.kind !== "summary") {
      this.onError(`no adoption recorded for ${task}: its checkpoint is ${read.kind}`);
      return;
    }
    for (const mode of modes) {
      const sel = read.summary.selections[mode];
      if (sel === undefined) continue; // the mode failed before it selected anything
      try {
        recordAdoption(this.db, { sweep, task, k, mode }, sel, at);
      } catch (err) {
        this.onError(`no adoption recorded for ${task} ${mode}: ${(err as Error).message}`);
      }
    }
  }
}

/**
 * The store's sink for a sweep: every event to `writer`; a finished task or mode, and each
 * checkpoint's adoption facts, reach the database before anything else happens, so a process
 * killed right after still resumes from them.
 */
export function durableSink(
  writer: EventSink & { flush(): number },
  recorder: AdoptionRecorder,
): EventSink {
  return {
    emit(event) {
      writer.emit(event);
      switch (event.type) {
        case "task.finished":
        case "mode.finished":
        case "mode.started":
        case "sweep.finished":
          writer.flush();
          recorder.observe(event);
          return;
        case "task.started":
          recorder.observe(event);
          return;
      }
    },
  };
}
