// `harness2 export RUN FILE`: one sweep as one portable file — its recorded events in order, with a
// header — that `harness2 import FILE` replays into another store (store/transfer.ts).

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { bundleText, sweepBundle } from "../../../store/transfer.ts";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import {
  browseLocation,
  openForBrowsing,
  RUNS_OPTION,
  readStore,
  resolveRunHandle,
} from "../runs/run-handle.ts";
import { refusing } from "../runs/transfer-cli.ts";

const OPTIONS = {
  runs: RUNS_OPTION,
  json: { type: "boolean", description: "print what was written as one JSON object" },
} as const satisfies OptionSpecs;

const exportCommand = defineCommand({
  name: "export",
  summary: "Write one sweep to a file that `harness2 import` reads into another store",
  args: "RUN FILE",
  help: [
    "RUN is `last`, a sweep id or a unique prefix of one. FILE must not exist yet. The file holds",
    "the sweep's recorded events (the store's own record of it); the run files (evidence,",
    "rollouts, library) stay in the runs directory: copy that along, and import with --rebase.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 2, max: 2 },
  async run(args, io) {
    const [handle, fileArg] = args.positionals as [string, string];
    if (fileArg.trim() === "")
      throw new UsageError("FILE is empty: name the file to write", "export");
    const file = resolve(io.cwd, fileArg);
    if (existsSync(file))
      throw new UsageError(`${file} exists already: choose a new FILE`, "export");
    const loc = browseLocation(args, io);
    const db = await openForBrowsing(loc);
    if (db === null) throw new CliError(`no harness2 store at ${loc.dbPath}: nothing to export`);
    try {
      const id = readStore(loc, () => resolveRunHandle(db, handle, loc));
      const bundle = refusing(() => readStore(loc, () => sweepBundle(db, id)));
      if (bundle === null) throw new CliError(`sweep ${id} has no recorded events to export`);
      writeFileAtomic(file, bundleText(bundle));
      const events = bundle.events.length;
      if (args.opts.json) io.stdout(`${JSON.stringify({ sweep: id, events, file })}\n`);
      else io.stdout(`exported ${id}: ${events} events to ${file}\n`);
      return EXIT.ok;
    } finally {
      db.close();
    }
  },
});

export default exportCommand;
