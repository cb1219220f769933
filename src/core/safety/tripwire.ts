// One tripwire hit: where it ran (stage, task, mode), what it found (kind, path, marker), the
// `tripwire.fired` event every hit emits and the TripwireError the caller throws.

import { type ModeToken, TripwireFired, type TripwireKind } from "../events/registry.ts";
import type { Clock, EventSink } from "../events/sink.ts";
import { emit } from "../events/sink.ts";
import { Harness2Error } from "../lib/errors.ts";

/** Where a tripwire runs and whom its event is about. */
export type TripwireContext = {
  sink: EventSink;
  sweep: string;
  task?: string;
  domain?: string;
  mode?: ModeToken;
  /** Which of the sweep's k values the tripped work belongs to. */
  k?: number;
  /** Where it tripped: a stage label, "selection", "reflection", "library", … */
  stage: string;
  clock: Clock;
};

export type TripwireHit = {
  kind: TripwireKind;
  /** Relative path (under the checked root or tree) of the first offending file. */
  path: string;
  /** The glob or marker that matched; "" for a symlink. */
  marker: string;
  /**
   * Byte offset in a file on disk (the original reported characters; bytes let the scan stream
   * without decoding), character offset in in-memory text.
   */
  offset?: number;
  /** About 180 characters around the hit (60 before, 120 from it), JSON-quoted. */
  context?: string;
};

/** A tripwire fired. Not a false positive to widen around: find the read path that produced it. */
export class TripwireError extends Harness2Error {
  readonly kind: TripwireKind;
  readonly path: string;
  readonly marker: string;
  readonly offset?: number;
  readonly context?: string;
  readonly stage: string;

  constructor(hit: TripwireHit, stage: string, message: string) {
    super(message);
    this.kind = hit.kind;
    this.path = hit.path;
    this.marker = hit.marker;
    this.offset = hit.offset;
    this.context = hit.context;
    this.stage = stage;
  }
}

/** Emits `tripwire.fired` for `hit` and returns the error for the caller to throw. */
export function fireTripwire(
  ctx: TripwireContext,
  hit: TripwireHit,
  message: string,
): TripwireError {
  emit(ctx.sink, TripwireFired, {
    ts: ctx.clock.now(),
    sweep: ctx.sweep,
    domain: ctx.domain,
    task: ctx.task,
    mode: ctx.mode,
    k: ctx.k,
    kind: hit.kind,
    path: hit.path,
    marker: hit.marker,
    stage: ctx.stage,
    message,
  });
  return new TripwireError(hit, ctx.stage, message);
}
