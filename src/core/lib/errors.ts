// How anything thrown becomes recorded text: one `Type: message` form for every error line the
// method stores or shows, and a bounded stack for the record. Never throws.

/** `Type: message` of anything thrown (the form every recorded error takes), with its fix if named. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${withFix(err)}`;
  return `Error: ${String(err)}`;
}

/** The end of an error's stack, at most `max` characters ("" for a non-Error). */
export function tracebackOf(err: unknown, max = 1500): string {
  const stack = err instanceof Error ? (err.stack ?? "") : "";
  return stack.length <= max ? stack : stack.slice(-max);
}

/**
 * What kind of failure an error is, which decides the exit code (src/cli/exit-codes.ts) and what
 * the user does next: fix the command line or configuration (usage), accept or change what was
 * refused (refusal), install or start what the machine lacks (environment), report a bug (bug),
 * resume what was stopped (interrupted), or raise the spending cap that stopped it (capped).
 */
export type ErrorKind = "usage" | "refusal" | "environment" | "bug" | "interrupted" | "capped";

/**
 * The base of every error harness2 throws on purpose (docs/architecture.md "Errors"): a message
 * written for the user, its kind, and, where one command or step fixes it, that `fix` (printed on
 * `Fix:` part of the line the CLI prints). A subclass states its kind once (`static override readonly errorKind`); its name
 * is its class name, set here for all of them.
 */
export class Harness2Error extends Error {
  static readonly errorKind: ErrorKind = "refusal";
  readonly errorKind: ErrorKind;
  readonly fix: string;

  constructor(message: string, opts: { kind?: ErrorKind; fix?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.errorKind = opts.kind ?? (new.target as typeof Harness2Error).errorKind;
    this.fix = opts.fix?.trim() ?? "";
  }
}

/** An error's message and, when it names one, its fix: `message. Fix: fix` (one line's worth). */
export function withFix(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const fix = err instanceof Harness2Error ? err.fix : "";
  if (fix === "") return err.message;
  const end = /[.!?:;]$/.test(err.message.trimEnd()) ? "" : ".";
  return `${err.message.trimEnd()}${end} Fix: ${fix}`;
}
