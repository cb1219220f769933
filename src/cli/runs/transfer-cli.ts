// What `export`, `import` and `merge` share: opening a store to read from (a runs directory or a
// harness2.db file) and one to write into, and `--rebase OLD=NEW`. TransferErrors become one line.

import type { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { openStore, StoreMissingError } from "../../../store/db.ts";
import { rebase, TransferError } from "../../../store/transfer.ts";
import type { HarnessEvent } from "../../core/events/registry.ts";
import type { CliIO } from "../command.ts";
import { UsageError } from "../command.ts";
import { CliError } from "../errors.ts";

/**
 * A store named by a runs directory (its harness2.db) or by the database file itself; a path that
 * does not exist yet is a runs directory unless it ends in `.db`. A device, FIFO or socket is
 * refused (exit 2) before SQLite is asked to open it: it would fail with "disk I/O error" and leave
 * a `-journal` file beside the device.
 */
export function storePathOf(named: string, io: CliIO): string {
  const path = resolve(io.cwd, named);
  if (existsSync(path)) {
    const st = statSync(path);
    if (st.isDirectory()) return join(path, "harness2.db");
    if (!st.isFile()) {
      throw new CliError(
        `${path} is not a runs directory or a harness2.db file: name one of those`,
        { kind: "usage" },
      );
    }
    return path;
  }
  return path.endsWith(".db") ? path : join(path, "harness2.db");
}

/** An existing store, read-only; a missing or foreign one is a CliError naming it. */
export function openSource(path: string): Database {
  try {
    return openStore(path, { readonly: true });
  } catch (err) {
    if (err instanceof StoreMissingError) {
      throw new CliError(`no harness2 store at ${path}: name a runs directory or its harness2.db`);
    }
    throw new CliError(`cannot read the store ${path}: ${(err as Error).message}`);
  }
}

/** The `--rebase OLD=NEW` of a command line, as a function over events (identity without it). */
export function rebaser(
  args: { opts: { rebase?: string | undefined } },
  command: string,
): (events: HarnessEvent[]) => HarnessEvent[] {
  const raw = args.opts.rebase;
  if (raw === undefined) return (e) => e;
  const at = raw.indexOf("=");
  const from = raw.slice(0, at).replace(/\/+$/, "");
  const to = raw.slice(at + 1).replace(/\/+$/, "");
  if (at <= 0 || from === "" || to === "" || !from.startsWith("/") || !to.startsWith("/")) {
    throw new UsageError(
      `--rebase must be OLD=NEW with two absolute folders (the runs directory as recorded, and where it is now), got '${raw}'`,
      command,
    );
  }
  return (events) => rebase(events, from, to);
}

/** Runs `body`, turning a TransferError into one line (exit 1). */
export function refusing<T>(body: () => T): T {
  try {
    return body();
  } catch (err) {
    if (err instanceof TransferError) throw new CliError(err.message);
    throw err;
  }
}

export const REBASE_OPTION = {
  type: "string",
  valueName: "OLD=NEW",
  description: "rewrite recorded paths under OLD (the runs directory where it was) to NEW",
} as const;
