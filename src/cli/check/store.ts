// The runs directory and the store, as `check` reports them: a SQLite file (there, empty, or
// creatable) or a PostgreSQL database (reachable, of this build's log schema, how many events).
// Read-only either way: a diagnosis never creates, migrates or writes the store.

import { existsSync } from "node:fs";
import { dirname } from "node:path";
import {
  existingAncestor,
  openStore,
  StoreMissingError,
  StorePlaceError,
  storeLocation,
  writable,
} from "../../../store/db.ts";
import { PgLog } from "../../../store/pg/log.ts";
import { dirExists } from "../../core/lib/safe-fs.ts";
import type { PgAddress } from "../../core/lib/store-url.ts";
import { boundRunsDir, runsDirProblem } from "../queue/runs-binding.ts";
import type { Report } from "./report.ts";

/** A path that does not exist yet: fine when its nearest existing ancestor is a writable folder. */
function reportCreatable(report: Report, subject: string, path: string, dir: string, fix: string) {
  const parent = existingAncestor(dir);
  if (dirExists(parent) && writable(parent)) {
    report.line("ok", subject, `${path} (created on the first run)`);
  } else report.line("FAIL", subject, `${path} cannot be created under ${parent}`, fix);
}

export async function checkRunsAndStore(
  report: Report,
  runsFlag: string | undefined,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<void> {
  let where: ReturnType<typeof storeLocation>;
  try {
    where = storeLocation({ runsDir: runsFlag, env, cwd });
  } catch (err) {
    if (!(err instanceof StorePlaceError)) throw err;
    report.line("FAIL", "store", err.problem, err.fix);
    return;
  }
  const fixRuns = "choose a writable directory with --runs or HARNESS2_RUNS_DIR";
  if (existsSync(where.runsDir)) {
    if (!dirExists(where.runsDir))
      report.line("FAIL", "runs directory", `${where.runsDir} is not a directory`, fixRuns);
    else if (!writable(where.runsDir))
      report.line("FAIL", "runs directory", `${where.runsDir} is not writable`, fixRuns);
    else report.line("ok", "runs directory", where.runsDir);
  } else reportCreatable(report, "runs directory", where.runsDir, where.runsDir, fixRuns);

  if (where.pg !== null) {
    await checkSharedStore(report, where.pg, where.runsDir);
    return;
  }
  if (existsSync(where.dbPath)) {
    try {
      // Read-only: a diagnosis never creates, migrates or writes the store.
      openStore(where.dbPath, { readonly: true }).close();
      report.line("ok", "store", where.dbPath);
    } catch (err) {
      if (err instanceof StoreMissingError) {
        report.line("ok", "store", `${where.dbPath} (empty; set up on the first run)`);
      } else {
        // Every store refusal already says what to do (move it aside, HARNESS2_DB, upgrade).
        report.failed("store", err);
      }
    }
  } else {
    const fix = "point HARNESS2_DB at a writable place";
    reportCreatable(report, "store", where.dbPath, dirname(where.dbPath), fix);
  }
}

/** A PostgreSQL store: reachable, of this build's log, and how much it holds. */
async function checkSharedStore(report: Report, addr: PgAddress, runsDir: string): Promise<void> {
  try {
    const log = await PgLog.open(addr, { create: false });
    if (log === null) {
      report.line("ok", "store", `PostgreSQL ${addr.where} (empty; set up on the first run)`);
      return;
    }
    try {
      const n = await log.count();
      report.line("ok", "store", `PostgreSQL ${addr.where} (${n} event(s) recorded)`);
      // A fleet's runs directory: the one the store's queued sweeps run in, mounted here.
      const bound = await boundRunsDir(log);
      if (bound !== null) {
        const problem = runsDirProblem(log.storeId, bound, runsDir, addr.where);
        if (problem === null) report.line("ok", "fleet runs directory", `${runsDir} (the store's)`);
        else report.line("FAIL", "fleet runs directory", problem.what, problem.fix);
      }
    } finally {
      await log.close();
    }
  } catch (err) {
    report.failed("store", err);
  }
}
