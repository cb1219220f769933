// The single formatter at the CLI edge: turns any thrown error into one clear sentence and an exit
// code. Domain errors carry their data; this module decides how a user reads them.

import { EXIT } from "./exit-codes.ts";

/** An error whose message is already written for the user; `code` is the exit status. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: number = EXIT.failed,
  ) {
    super(message);
    this.name = "CliError";
  }
}

const BUILTIN_ERRORS = new Set([
  "Error",
  "TypeError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "EvalError",
  "URIError",
  "AggregateError",
]);

export function formatError(err: unknown): { message: string; code: number } {
  if (err instanceof CliError) return { message: oneLine(err.message), code: err.code };
  if (err instanceof Error) {
    // Domain errors (SweepLockedError, ConfigError, …) are sentences written for the user; only
    // an unexpected built-in error keeps its class name, which helps a bug report.
    const name = BUILTIN_ERRORS.has(err.name) && err.name !== "Error" ? `${err.name}: ` : "";
    return { message: oneLine(`${name}${err.message}`), code: EXIT.failed };
  }
  return { message: oneLine(String(err)), code: EXIT.failed };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > 2000 ? `${flat.slice(0, 2000)}…` : flat;
}
