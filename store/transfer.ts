// Moving sweeps between stores without a service (docs/architecture.md "Files and the store"): a
// sweep leaves a store as its own recorded events, in order (the store's event log is the record;
// every table is derived from it by the applier), and enters another by replaying them through the
// same applier in one transaction. Import refuses a sweep the target already holds, an experiment
// whose identity differs from the target's, and a task the target already finished differently.

import type { Database } from "bun:sqlite";
import { basename } from "node:path";
import { z } from "zod";
import { type EventOf, HarnessEvent } from "../src/core/events/registry.ts";
import { Harness2Error } from "../src/core/lib/errors.ts";
import { EventApplier } from "./apply-event.ts";
import { BUNDLE_MAX_BYTES, eventProblem, readBounded } from "./bundle-bounds.ts";
import { schemaVersion } from "./db.ts";
import { assertContinuesExperiment, IdentityMismatchError } from "./identity.ts";

export const BUNDLE_FORMAT = "harness2-sweep";
export const BUNDLE_VERSION = 1;

const Header = z.object({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(BUNDLE_VERSION),
  /** The schema of the store it was exported from (events are the same across schemas). */
  schema: z.number().int(),
  sweep: z.string().min(1),
  events: z.number().int().nonnegative(),
});

/** A sweep as a portable value: its header and its events in the order they were recorded. */
export type SweepBundle = { sweep: string; schema: number; events: HarnessEvent[] };

/** A bundle or a store cannot be moved as asked; the message says what is wrong and what to do. */
export class TransferError extends Harness2Error {
  constructor(message: string) {
    super(message);
  }
}

/** The sweep's events, in the order the store recorded them; null when it has no such sweep. */
export function sweepBundle(db: Database, sweepId: string): SweepBundle | null {
  const rows = db
    .query("SELECT seq, body FROM events WHERE sweep_id = ? ORDER BY seq")
    .all(sweepId) as { seq: number; body: string }[];
  if (rows.length === 0) return null;
  return {
    sweep: sweepId,
    schema: schemaVersion(db),
    events: rows.map((r) => storedEvent(sweepId, r)),
  };
}

/** One stored event row; a damaged one is a TransferError naming the sweep and the row. */
function storedEvent(sweepId: string, row: { seq: number; body: string }): HarnessEvent {
  const parsed = HarnessEvent.safeParse(safeJson(row.body));
  if (parsed.success) return parsed.data;
  throw new TransferError(
    `sweep ${sweepId}: event row ${row.seq} of the store is damaged (not a valid harness2 event); nothing was written — repair or leave out that store`,
  );
}

/** Every sweep id of a store that has recorded events, oldest first. */
export function sweepIds(db: Database): string[] {
  const rows = db
    .query("SELECT sweep_id, MIN(seq) AS first FROM events GROUP BY sweep_id ORDER BY first")
    .all() as { sweep_id: string }[];
  return rows.map((r) => r.sweep_id);
}

/** The bundle as a file's text: one header line, then one event per line. */
export function bundleText(b: SweepBundle): string {
  const header = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    schema: b.schema,
    sweep: b.sweep,
    events: b.events.length,
  };
  return `${[header, ...b.events].map((x) => JSON.stringify(x)).join("\n")}\n`;
}

/**
 * Reads a bundle file within bounds (store/bundle-bounds.ts), checking its header, its event
 * count, every event's numbers and names, and every event against its schema.
 */
export function readBundle(path: string, maxBytes = BUNDLE_MAX_BYTES): SweepBundle {
  const read = readBounded(path, maxBytes);
  if ("problem" in read) throw new TransferError(read.problem);
  const text = read.text;
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const bad = (what: string) =>
    new TransferError(
      `${path} is not a sweep harness2 exported (${what}); export it again with harness2 export RUN FILE`,
    );
  let header: z.infer<typeof Header>;
  try {
    header = Header.parse(JSON.parse(lines[0] ?? ""));
  } catch {
    throw bad("no harness2-sweep header line");
  }
  if (lines.length - 1 !== header.events) {
    throw bad(
      `the header counts ${header.events} events, the file holds ${lines.length - 1}: it is torn`,
    );
  }
  const events = lines.slice(1).map((l, i) => {
    const raw = safeJson(l);
    // Before the schema: a number too large for JSON (1e999) parses as Infinity and must be named.
    const problem = eventProblem(raw);
    if (problem !== null) throw bad(`event ${i + 1}: ${problem}`);
    const parsed = HarnessEvent.safeParse(raw);
    if (!parsed.success) throw bad(`event ${i + 1} is not a valid harness2 event`);
    if (parsed.data.sweep !== header.sweep) throw bad(`event ${i + 1} belongs to another sweep`);
    return parsed.data;
  });
  if (events[0]?.type !== "sweep.started")
    throw bad("it does not start with the sweep's sweep.started");
  return { sweep: header.sweep, schema: header.schema, events };
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/**
 * Rewrites every string of the events that starts with `from` to start with `to` instead: run
 * folders recorded on another machine, where the runs directory sat elsewhere.
 */
export function rebase(events: HarnessEvent[], from: string, to: string): HarnessEvent[] {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string")
      return v === from || v.startsWith(`${from}/`) ? to + v.slice(from.length) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return events.map((e) => HarnessEvent.parse(walk(e)));
}

/** Where an imported sweep's `sweep.started.config` says it came from (store/transfer.ts markImported). */
export const IMPORTED_KEY = "imported";

/**
 * The events with `sweep.started.config.imported` naming the file: the store then knows the sweep
 * is data from elsewhere, and `harness2 judge` trusts none of the paths it recorded (a task folder
 * or a checkout whose scripts it would run) — only this installation's own (docs/differences.md X41).
 */
export function markImported(events: HarnessEvent[], file: string): HarnessEvent[] {
  return events.map((e) =>
    e.type === "sweep.started"
      ? { ...e, config: { ...e.config, [IMPORTED_KEY]: { file: basename(file) } } }
      : e,
  );
}

export type ImportResult = { sweep: string; events: number; tasks: number };

type FinishedTask = { domain: string; task: string; k: number; status: string; sweep: string };

/**
 * Replays a bundle into `db` in one transaction. Refuses (TransferError, nothing written): a sweep
 * the store already holds; an experiment whose identity differs from the one the store records;
 * a task the store already has a result for (ok or partial) that the bundle finished again.
 */
export function importBundle(db: Database, b: SweepBundle): ImportResult {
  const known = db.query("SELECT 1 FROM events WHERE sweep_id = ? LIMIT 1").get(b.sweep);
  if (known !== null) {
    throw new TransferError(
      `this store already holds sweep ${b.sweep}: nothing was imported (each sweep is imported once)`,
    );
  }
  const started = b.events[0] as EventOf<"sweep.started">;
  try {
    assertContinuesExperiment(db, {
      bench: started.bench,
      substrate: started.substrate,
      tag: started.tag,
      seed: started.seed,
      identity: started.identity,
      domains: started.domains,
    });
  } catch (err) {
    if (err instanceof IdentityMismatchError) {
      const what = err.differences.map((d) => d.field).join(", ");
      throw new TransferError(
        `sweep ${b.sweep} is another experiment than the one this store records (sweep ${err.previousSweep}; different: ${what}): import it into another store`,
      );
    }
    throw err;
  }
  const incoming = finishedTasks(b.events);
  for (const t of incoming) {
    const there = db
      .query(
        `SELECT t.status, t.sweep_id FROM tasks t JOIN sweeps s ON s.id = t.sweep_id
         WHERE s.bench = ? AND s.substrate = ? AND s.tag = ? AND t.domain = ? AND t.task = ? AND t.k = ?
           AND t.status IN ('ok', 'partial') ORDER BY t.sweep_id DESC LIMIT 1`,
      )
      .get(started.bench, started.substrate, started.tag, t.domain, t.task, t.k) as {
      status: string;
      sweep_id: string;
    } | null;
    // A task this store already adopted a result for, finished again elsewhere: two records of one
    // task's result would disagree (or double-count). A task that failed here may be retried.
    if (there !== null) {
      throw new TransferError(
        `task ${t.task} (k=${t.k}) was finished twice: ${there.status} in this store's sweep ${there.sweep_id}, ${t.status} in sweep ${b.sweep}; merge stores of disjoint shards (run with --only-domains)`,
      );
    }
  }
  const applier = new EventApplier(db);
  db.transaction(() => {
    for (const ev of b.events) applier.apply(ev);
  }).immediate();
  return { sweep: b.sweep, events: b.events.length, tasks: incoming.length };
}

function finishedTasks(events: readonly HarnessEvent[]): FinishedTask[] {
  const out: FinishedTask[] = [];
  for (const e of events) {
    if (e.type === "task.finished") {
      out.push({ domain: e.domain, task: e.task, k: e.k, status: e.status, sweep: e.sweep });
    }
  }
  return out;
}
