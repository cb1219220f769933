// How anything thrown becomes recorded text: one `Type: message` form for every error line the
// method stores or shows, and a bounded stack for the record. Never throws.

/** `Type: message` of anything thrown (the form every recorded error takes). */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return `Error: ${String(err)}`;
}

/** The end of an error's stack, at most `max` characters ("" for a non-Error). */
export function tracebackOf(err: unknown, max = 1500): string {
  const stack = err instanceof Error ? (err.stack ?? "") : "";
  return stack.length <= max ? stack : stack.slice(-max);
}
