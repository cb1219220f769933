// A fleet's runs directory and its store (docs/guide/many-machines.md): every worker
// mounts the one runs directory the store's queued sweeps run in, at the same path. The runs
// directory holds a marker naming the store, and the store records the path; `run --queue`
// binds them, and `worker` and `check` refuse a runs directory that is not the store's. No
// pg-boss here, so that `check` need not load it.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PgLog } from "../../../store/pg/log.ts";
import { CliError } from "../errors.ts";

/** The file in a runs directory that names the PostgreSQL store its sweeps are recorded in. */
export const STORE_MARKER = ".harness2-store";

/** The one line for a queue command without a PostgreSQL store. */
export function needsSharedStore(command: string): CliError {
  return new CliError(
    `${command} needs the shared PostgreSQL store: set HARNESS2_DB=postgres://USER@HOST:PORT/DATABASE (the same on the planner and every worker; docs/guide/many-machines.md)`,
    { kind: "usage" },
  );
}

/** What is wrong with a runs directory for a store, and what to do about it. */
export type RunsDirProblem = { what: string; fix: string };

/**
 * Why `runsDir` cannot be the runs directory of the store `storeId` that runs its sweeps in
 * `bound` (null before any queued sweep bound one); null when it can.
 */
export function runsDirProblem(
  storeId: string,
  bound: string | null,
  runsDir: string,
  where: string,
): RunsDirProblem | null {
  const held = readMarker(runsDir);
  if (held !== null && held !== storeId) {
    return {
      what: `${runsDir} belongs to another harness2 store (${join(runsDir, STORE_MARKER)} names ${held}, the store at ${where} is ${storeId})`,
      fix: "use another runs directory for this store, or point HARNESS2_DB at the store this one belongs to",
    };
  }
  if (bound !== null && bound !== runsDir) {
    return {
      what: `the store at ${where} runs its sweeps in ${bound}, not ${runsDir}`,
      fix: `pass --runs ${bound} (every worker mounts that directory at that path)`,
    };
  }
  if (bound !== null && held === null) {
    return {
      what: `${runsDir} is not the runs directory of the store at ${where} (it has no ${STORE_MARKER})`,
      fix: `mount the sweep's runs directory at ${bound} on this machine`,
    };
  }
  return null;
}

/** The runs directory the store's sweeps use, once a queued sweep has bound one. */
export async function boundRunsDir(log: PgLog): Promise<string | null> {
  const rows = (await log.client`SELECT value FROM harness2_meta WHERE key = 'runs_dir'`) as {
    value: string;
  }[];
  return rows[0]?.value ?? null;
}

/**
 * Binds `runsDir` to the store: the marker holds the store's id, and the store remembers the
 * runs directory its sweeps use. A runs directory bound to another store, or a store bound to
 * another runs directory, is refused in one line.
 */
export async function bindRunsDir(log: PgLog, runsDir: string, where: string): Promise<void> {
  const bound = await boundRunsDir(log);
  const problem = runsDirProblem(log.storeId, bound, runsDir, where);
  if (problem !== null) throw new CliError(`${problem.what}. Fix: ${problem.fix}`);
  if (bound === null) {
    await log.client`INSERT INTO harness2_meta VALUES ('runs_dir', ${runsDir}) ON CONFLICT DO NOTHING`;
  }
  if (readMarker(runsDir) === null) {
    mkdirSync(runsDir, { recursive: true });
    writeFileSync(join(runsDir, STORE_MARKER), `${log.storeId}\n`);
  }
}

/** The store id a runs directory's marker names, or null when it has none. */
export function readMarker(runsDir: string): string | null {
  try {
    return readFileSync(join(runsDir, STORE_MARKER), "utf8").trim() || null;
  } catch {
    return null;
  }
}
