// Resume wired to the store: the record source the scheduler's skip decision reads (store rows
// only; summary.json is an export and never decides), and the sink that makes finished work and
// adoption facts durable at once. The facts arrive as `adoption.recorded` events, applied by the
// store's one writer like every other event (docs/architecture.md, "Files and the store").

import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NamespaceKey } from "../../../store/queries.ts";
import { storedTaskRecord } from "../../../store/resume-queries.ts";
import type { EventSink } from "../../core/events/sink.ts";
import { describeError } from "../../core/lib/errors.ts";
import type { TaskRecordSource } from "../../core/resume/resume.ts";
import {
  computeStatus,
  SUMMARY_FILE,
  TaskSummary,
  writeSummary,
} from "../../core/resume/summary.ts";

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
 * The store's sink for a sweep: every event to `writer`; a finished task or mode and each
 * adoption's facts reach the database before anything else happens, so a process killed right
 * after still resumes from them.
 */
export function durableSink(writer: EventSink & { flush(): number }): EventSink {
  return {
    emit(event) {
      writer.emit(event);
      switch (event.type) {
        case "task.finished":
        case "mode.finished":
        case "adoption.recorded":
        case "sweep.finished":
          writer.flush();
      }
    },
  };
}
