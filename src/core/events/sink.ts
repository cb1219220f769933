// Where events go: the EventSink core emits into, the typed `emit` that builds and validates an
// event from its schema exactly once, and small sinks (null, fan-out, recording) and the Clock.
// A sink never throws back into the method.

import type { z } from "zod";
import type { EVENT_SCHEMAS, EventOf, EventType, HarnessEvent } from "./registry.ts";

/** One event's schema from the registry. */
export type EventSchema = (typeof EVENT_SCHEMAS)[number];

/** The fields an emitter supplies: everything of the event but its `type`. */
export type EventFields<S extends EventSchema> = Omit<z.input<S>, "type">;

/** Events built by `emit`: already validated, so a sink need not parse them again. */
const validated = new WeakSet<object>();

/**
 * Builds the event of `schema` from `fields` (the type filled in), validates it once and sends it
 * to `sink`. A field that does not fit throws here, at the emitter, naming the field.
 */
export function emit<S extends EventSchema>(
  sink: EventSink,
  schema: S,
  fields: EventFields<S>,
): void {
  const event = schema.parse({ ...fields, type: schema.shape.type.value }) as HarnessEvent;
  validated.add(event);
  sink.emit(event);
}

/** True for an event `emit` built and validated (the same object, not a copy). */
export function isValidated(event: HarnessEvent): boolean {
  return validated.has(event);
}

/** Where core sends its events. Implementations must not throw back into the method. */
export interface EventSink {
  emit(event: HarnessEvent): void;
}

/** A sink that drops everything (tests and library callers that do not watch). */
export const NULL_SINK: EventSink = { emit() {} };

/** Fans one stream out to several sinks; a sink that throws is isolated from the others. */
export function fanOut(...sinks: EventSink[]): EventSink {
  return {
    emit(event) {
      for (const sink of sinks) {
        try {
          sink.emit(event);
        } catch {
          // A broken front end must never stop the method; the store records the event anyway.
        }
      }
    },
  };
}

/** Collects events in memory (tests, and the demo's summary). */
export class RecordingSink implements EventSink {
  readonly events: HarnessEvent[] = [];
  emit(event: HarnessEvent): void {
    this.events.push(event);
  }
  ofType<T extends EventType>(type: T): EventOf<T>[] {
    return this.events.filter((e): e is EventOf<T> => e.type === type);
  }
}

/** The run's notion of time, injectable so tests and resumed runs are deterministic. */
export interface Clock {
  now(): number;
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };
