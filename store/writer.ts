// The store's EventSink: validates each event against the event union, buffers a burst, and
// records the burst in one write transaction (event log row + the table rows it updates).
// emit() never throws back into the method; failures go to onError and into `stats`.

import type { Database } from "bun:sqlite";
import { SQLiteError } from "bun:sqlite";
import { HarnessEvent } from "../src/core/events/registry.ts";
import { type EventSink, isValidated } from "../src/core/events/sink.ts";
import { Harness2Error } from "../src/core/lib/errors.ts";
import { EventApplier } from "./apply-event.ts";
import { openStore } from "./db.ts";

/** An emitted value that is not a valid event; it was not recorded. */
export class InvalidEventError extends Harness2Error {
  static override readonly errorKind = "bug";
  constructor(
    readonly eventType: string,
    readonly issues: string,
  ) {
    super(`invalid ${eventType} event not recorded: ${issues}`);
  }
}

/** A valid event the store could not record (its transaction rolled back). */
export class StoreWriteError extends Harness2Error {
  static override readonly errorKind = "environment";
  /** What went wrong, without the event: the same for every event a full disk loses. */
  readonly reason: string;
  constructor(
    readonly eventType: string,
    override readonly cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`could not record ${eventType}: ${reason}`);
    this.reason = reason;
  }
}

export type StoreWriterOptions = {
  /** How long the first event of a burst waits for company before the burst is written. */
  flushDelayMs?: number;
  /** A burst this large is written at once, inside emit(). */
  maxBatch?: number;
  /** Told about every event that was not recorded. Default: one stderr line per cause. */
  onError?: (err: InvalidEventError | StoreWriteError) => void;
  /**
   * Told about every burst right after it is committed, in order (a PostgreSQL store appends
   * them to its shared log there, store/pg/store.ts). Must not throw.
   */
  onCommitted?: (events: readonly HarnessEvent[]) => void;
};

export type WriterStats = {
  /** Events committed to the store. */
  recorded: number;
  /** Write transactions committed. */
  transactions: number;
  /** Events refused (invalid) or lost (their transaction failed). */
  rejected: number;
};

const DEFAULT_FLUSH_DELAY_MS = 5;
const DEFAULT_MAX_BATCH = 4096;
const BUSY_RETRY_MS = 50;

function isBusy(err: unknown): boolean {
  return err instanceof SQLiteError && /^SQLITE_(BUSY|LOCKED)/.test(String(err.code));
}

/**
 * The default report of lost events: the first of each cause, on stderr, once (a full disk would
 * otherwise repeat one line for every event after it); close() says how many more went unsaid.
 */
function onceEachCause(): {
  report: (err: InvalidEventError | StoreWriteError) => void;
  finish: () => void;
} {
  const seen = new Set<string>();
  let repeats = 0;
  return {
    report(err) {
      const cause = err instanceof StoreWriteError ? err.reason : err.message;
      if (seen.has(cause)) {
        repeats++;
        return;
      }
      seen.add(cause);
      process.stderr.write(`harness2 store: ${err.message}\n`);
    },
    finish() {
      if (repeats > 0) {
        process.stderr.write(
          `harness2 store: ${repeats} more event(s) were not recorded, for the same reason\n`,
        );
      }
      repeats = 0;
    },
  };
}

export class StoreWriter implements EventSink {
  private buffer: HarnessEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly applier: EventApplier;
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;
  private readonly onError: (err: InvalidEventError | StoreWriteError) => void;
  private readonly finishErrors: () => void = () => {};
  private readonly writeBatch: (events: HarnessEvent[]) => void;
  private readonly onCommitted: (events: readonly HarnessEvent[]) => void;
  private readonly counters: WriterStats = { recorded: 0, transactions: 0, rejected: 0 };
  /** Whatever is still buffered when the process exits normally is written synchronously. */
  private readonly onExit = () => {
    this.drain(true);
    this.finishErrors();
  };

  /** Opens (creating and migrating) the store at `path`; close() then closes the database too. */
  static open(path: string, opts: StoreWriterOptions = {}): StoreWriter {
    return new StoreWriter(openStore(path), opts, true);
  }

  constructor(
    readonly db: Database,
    opts: StoreWriterOptions = {},
    private readonly ownsDb = false,
  ) {
    this.applier = new EventApplier(db);
    this.flushDelayMs = opts.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
    this.maxBatch = Math.max(1, opts.maxBatch ?? DEFAULT_MAX_BATCH);
    this.onCommitted = opts.onCommitted ?? (() => {});
    if (opts.onError) this.onError = opts.onError;
    else {
      const reporter = onceEachCause();
      this.onError = reporter.report;
      this.finishErrors = reporter.finish;
    }
    const tx = db.transaction((events: HarnessEvent[]) => {
      for (const ev of events) this.applier.apply(ev);
    });
    this.writeBatch = (events) => tx.immediate(events);
    process.on("exit", this.onExit);
  }

  get stats(): Readonly<WriterStats> {
    return { ...this.counters };
  }

  /** Events accepted but not yet written. */
  get pending(): number {
    return this.buffer.length;
  }

  emit(event: HarnessEvent): void {
    // An event built by core's `emit` was validated there; anything else is checked here.
    const parsed = isValidated(event)
      ? ({ success: true, data: event } as const)
      : HarnessEvent.safeParse(event);
    if (!parsed.success) {
      const type = typeof event?.type === "string" ? event.type : "untyped";
      const issues = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(event)"}: ${i.message}`)
        .join("; ");
      this.reject(new InvalidEventError(type, issues));
      return;
    }
    if (this.closed) {
      this.reject(new StoreWriteError(parsed.data.type, new Error("the store writer is closed")));
      return;
    }
    this.buffer.push(parsed.data);
    if (this.buffer.length >= this.maxBatch) this.flush();
    else this.schedule(this.flushDelayMs);
  }

  /** Writes everything buffered now; returns how many events were recorded. */
  flush(): number {
    return this.drain(this.closed);
  }

  /**
   * One transaction for the whole buffer. When another process holds the write lock past the
   * busy timeout the burst is kept and retried later — unless this is the last chance (close or
   * process exit), when it is tried once more and then reported lost.
   */
  private drain(final: boolean): number {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.buffer.length === 0) return 0;
    const batch = this.buffer;
    this.buffer = [];
    try {
      return this.commit(batch);
    } catch (err) {
      this.applier.reset();
      if (!isBusy(err)) return this.writeOneByOne(batch);
      if (!final) {
        this.buffer = batch.concat(this.buffer);
        this.schedule(BUSY_RETRY_MS);
        return 0;
      }
      try {
        return this.commit(batch);
      } catch (again) {
        this.applier.reset();
        for (const ev of batch) this.reject(new StoreWriteError(ev.type, again));
        return 0;
      }
    }
  }

  private commit(batch: HarnessEvent[]): number {
    this.writeBatch(batch);
    this.onCommitted(batch);
    this.counters.transactions++;
    this.counters.recorded += batch.length;
    return batch.length;
  }

  /** Flushes, stops accepting events and (when it opened it) closes the database. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    this.finishErrors();
    process.off("exit", this.onExit);
    if (this.ownsDb) this.db.close();
  }

  /** After a failed burst: each event in its own transaction, so one bad event loses only itself. */
  private writeOneByOne(batch: HarnessEvent[]): number {
    let written = 0;
    for (const ev of batch) {
      try {
        written += this.commit([ev]);
      } catch (err) {
        this.applier.reset();
        this.reject(new StoreWriteError(ev.type, err));
      }
    }
    return written;
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, delayMs);
    this.timer.unref?.();
  }

  private reject(err: InvalidEventError | StoreWriteError): void {
    this.counters.rejected++;
    try {
      this.onError(err);
    } catch {
      // A failing error callback must not reach the method either.
    }
  }
}
