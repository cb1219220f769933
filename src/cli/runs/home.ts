// `harness2` with no subcommand in a terminal: reads the recent sweeps (read-only, when a store
// exists), shows the TUI home, and carries out the choice by running the matching command line.
// It never creates a store itself; the demo or a resumed run opens its own.

import pkg from "../../../package.json" with { type: "json" };
import { storeLocation } from "../../../store/db.ts";
import { sweepDetail } from "../../../store/queries.ts";
import { listSweeps } from "../../../store/sweep-list.ts";
import type { SweepSummary } from "../../../store/views.ts";
import { type CliIO, colorFor } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { openForBrowsing } from "./run-handle.ts";

export type HomeWiring = {
  /** Runs a harness2 command line in this process (main itself). */
  run: (argv: string[]) => Promise<number>;
  /** The text of `harness2 --help`. */
  help: () => string;
};

export async function runHomeScreen(io: CliIO, wiring: HomeWiring): Promise<number> {
  const loc = storeLocation({ env: io.env, cwd: io.cwd });
  let sweeps: SweepSummary[] | null = null;
  const argvOf = new Map<string, string[]>();
  const db = await openForBrowsing(loc);
  if (db !== null) {
    try {
      sweeps = listSweeps(db, { limit: 20 });
      // Every sweep the home screen may offer to resume (tui/home resumable picks one of them).
      for (const s of sweeps) {
        if (s.status === "unfinished" || s.status === "interrupted") {
          argvOf.set(s.id, sweepDetail(db, s.id)?.sweep.argv ?? []);
        }
      }
    } finally {
      db.close();
    }
  }
  const { runHome } = await import("../../../tui/home/start.ts");
  return runHome({
    version: pkg.version,
    location: loc.dbPath,
    sweeps,
    color: colorFor(io),
    actions: {
      demo: () => wiring.run(["demo"]),
      async resume(sweep) {
        const argv = argvOf.get(sweep.id) ?? [];
        if (argv.length === 0) {
          io.stderr(
            `harness2: ${sweep.id} recorded no command line to resume it with; run the same 'harness2 run …' again\n`,
          );
          return EXIT.failed;
        }
        io.stdout(`resuming ${sweep.id}: harness2 ${argv.join(" ")}\n`);
        return wiring.run(argv);
      },
      browse: () => wiring.run(["browse"]),
      help() {
        io.stdout(wiring.help());
        return EXIT.ok;
      },
    },
  });
}
