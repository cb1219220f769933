// What a sweep command keeps of its own events while it runs: only the few kinds its ending reads
// (the sweep's start and finish, each task's start, finish or skip, the lessons stored), not the
// whole stream — a LAB sweep emits hundreds of thousands of events, and the store already holds
// them all (issue 32).

import type { EventOf, EventType, HarnessEvent } from "../../core/events/registry.ts";
import type { EventSink } from "../../core/events/sink.ts";

/** The event types a sweep's ending reads (sweep-session.ts, sweep-verdict.ts). */
export const TALLIED = [
  "sweep.started",
  "sweep.finished",
  "task.started",
  "task.finished",
  "task.skipped",
  "library.added",
] as const satisfies readonly EventType[];

export type TalliedType = (typeof TALLIED)[number];

const KEPT: ReadonlySet<string> = new Set(TALLIED);

export class SweepTally implements EventSink {
  readonly #kept = new Map<TalliedType, HarnessEvent[]>();
  /** Every event seen, kept or not. */
  seen = 0;

  emit(event: HarnessEvent): void {
    this.seen++;
    if (!KEPT.has(event.type)) return;
    const type = event.type as TalliedType;
    const list = this.#kept.get(type) ?? [];
    list.push(event);
    this.#kept.set(type, list);
  }

  /** The kept events of one type, in the order they came. */
  ofType<T extends TalliedType>(type: T): EventOf<T>[] {
    return [...((this.#kept.get(type) ?? []) as EventOf<T>[])];
  }

  /** How many events are held (what the tally costs in memory). */
  held(): number {
    let n = 0;
    for (const list of this.#kept.values()) n += list.length;
    return n;
  }
}
