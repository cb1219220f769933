// The single formatter at the CLI edge: turns any thrown error into one clear line (its fix, when
// it has one, after `Fix:`) and the exit code of its kind. Domain errors carry their data and
// their kind (core/lib/errors.ts); this module decides how a user reads them.

import { Harness2Error, withFix } from "../core/lib/errors.ts";
import { EXIT, EXIT_FOR_KIND } from "./exit-codes.ts";

/**
 * An error the CLI itself raises, its message written for the user; a refusal (exit 1) unless
 * `kind` says otherwise, with its `fix` when one command or step fixes it.
 */
export class CliError extends Harness2Error {}

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

/**
 * How any thrown error reads at the CLI edge: one line, `message. Fix: fix` when the error names
 * its fix, and the exit code of its kind (src/cli/exit-codes.ts EXIT_FOR_KIND). An unexpected
 * built-in error (TypeError, …) is a bug: it keeps its class name, which helps a report.
 */
export function formatError(err: unknown): { message: string; fix: string; code: number } {
  if (err instanceof Harness2Error) {
    return { message: oneLine(withFix(err)), fix: err.fix, code: EXIT_FOR_KIND[err.errorKind] };
  }
  if (err instanceof Error) {
    const unexpected = BUILTIN_ERRORS.has(err.name) && err.name !== "Error";
    const name = unexpected ? `${err.name}: ` : "";
    return {
      message: oneLine(`${name}${err.message}`),
      fix: "",
      code: unexpected ? EXIT.bug : EXIT.failed,
    };
  }
  return { message: oneLine(String(err)), fix: "", code: EXIT.failed };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > 2000 ? `${flat.slice(0, 2000)}…` : flat;
}
