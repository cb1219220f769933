// The one error of a process that could not be started at all (no such program, a working
// directory that is not one, an output file that cannot be opened): the program and why.

import { Harness2Error } from "./errors.ts";

/** The executable could not be started (missing, not executable, bad cwd, invalid options). */
export class SpawnError extends Harness2Error {
  static override readonly errorKind = "environment";
  constructor(
    readonly argv0: string,
    readonly reason: string,
  ) {
    super(`cannot start ${JSON.stringify(argv0)}: ${reason}`);
  }
}
