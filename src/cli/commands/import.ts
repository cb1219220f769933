// `harness2 import FILE`: a sweep `harness2 export` wrote, replayed into this runs directory's store
// (created when there is none) in one transaction; refused whole when it cannot fit there.

import { openRunStore } from "../../../store/open.ts";
import { importBundle, markImported, readBundle } from "../../../store/transfer.ts";
import { defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { checkedLocation, RUNS_OPTION } from "../runs/run-handle.ts";
import { REBASE_OPTION, rebaser, refusing } from "../runs/transfer-cli.ts";

const OPTIONS = {
  runs: RUNS_OPTION,
  rebase: REBASE_OPTION,
  json: { type: "boolean", description: "print what was imported as one JSON object" },
} as const satisfies OptionSpecs;

const importCommand = defineCommand({
  name: "import",
  summary: "Read a sweep `harness2 export` wrote into this runs directory's store",
  args: "FILE",
  help: [
    "Refused, with nothing written, when the store already holds that sweep, when it records",
    "another experiment (other models, endpoints or seed), or when a task of the sweep already",
    "has a result here. --rebase /old/runs=/new/runs points recorded paths at the run files'",
    "new place. An imported sweep is data: `judge` runs only this installation's own checks for",
    "it (--tasks DIR for a tasks sweep), never a path the file recorded.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 1, max: 1 },
  async run(args, io) {
    const file = args.positionals[0] as string;
    if (file.trim() === "") throw new UsageError("FILE is empty: name the file to read", "import");
    const move = rebaser(args, "import");
    const bundle = refusing(() => readBundle(file));
    const loc = checkedLocation(args, io, { create: true });
    const store = await openRunStore(loc, { create: true });
    try {
      const events = markImported(move(bundle.events), file);
      const done = refusing(() => importBundle(store.db, { ...bundle, events }));
      // A PostgreSQL store records the replayed events in its shared log too.
      store.pg?.committed(events);
      if (args.opts.json) {
        const { sweep, events: n, tasks } = done;
        io.stdout(`${JSON.stringify({ sweep, events: n, tasks, store: loc.dbPath })}\n`);
      } else {
        io.stdout(
          `imported ${done.sweep}: ${done.events} events, ${done.tasks} finished task(s), into ${loc.dbPath}\n`,
        );
      }
      return EXIT.ok;
    } finally {
      await store.close();
    }
  },
});

export default importCommand;
