// `harness2 merge STORE… --into STORE`: the stores of shards run on different machines (each with
// its own --only-domains) made one: every sweep of each replayed into the target in one
// transaction, so a refusal anywhere leaves the target as it was.

import { existsSync, rmSync } from "node:fs";
import { openStore } from "../../../store/db.ts";
import { importBundle, sweepBundle, sweepIds, TransferError } from "../../../store/transfer.ts";
import { defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { openSource, REBASE_OPTION, rebaser, refusing, storePathOf } from "../runs/transfer-cli.ts";

const OPTIONS = {
  into: { type: "string", valueName: "STORE", description: "the store to merge into (required)" },
  rebase: REBASE_OPTION,
  json: { type: "boolean", description: "print what was merged as one JSON object" },
} as const satisfies OptionSpecs;

const merge = defineCommand({
  name: "merge",
  summary: "Merge the stores of shards (runs dirs or harness2.db files) into one store",
  args: "STORE…",
  help: [
    "Example: harness2 merge shard-a/runs shard-b/runs --into all/runs",
    "Every sweep of every STORE is added to the --into store (created when there is none), all",
    "or nothing. Refused when a sweep is there already, when the experiments differ, or when two",
    "shards finished the same task. --rebase OLD=NEW rewrites the recorded run paths.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 1, max: 64 },
  async run(args, io) {
    const intoArg = args.opts.into;
    if (intoArg === undefined || intoArg.trim() === "") {
      throw new UsageError(
        "--into STORE is required: the runs directory (or harness2.db) to merge into",
        "merge",
      );
    }
    const into = storePathOf(intoArg, io);
    const sources = args.positionals.map((p) => storePathOf(p, io));
    if (sources.includes(into))
      throw new UsageError(`${into} is both a source and --into`, "merge");
    const move = rebaser(args, "merge");
    const bundles = sources.flatMap((path) => {
      const db = openSource(path);
      try {
        return refusing(() => {
          try {
            return sweepIds(db).map((id) => ({ path, bundle: sweepBundle(db, id) }));
          } catch (err) {
            if (err instanceof TransferError) throw new TransferError(`${path}: ${err.message}`);
            throw err;
          }
        });
      } finally {
        db.close();
      }
    });
    const existed = existsSync(into);
    const target = openStore(into);
    let merged = false;
    try {
      const results = refusing(() =>
        target
          .transaction(() =>
            bundles.flatMap(({ path, bundle }) => {
              if (bundle === null) return [];
              try {
                return [importBundle(target, { ...bundle, events: move(bundle.events) })];
              } catch (err) {
                if (err instanceof TransferError) {
                  throw new TransferError(`${err.message} (from ${path})`);
                }
                throw err;
              }
            }),
          )
          .immediate(),
      );
      merged = true;
      const tasks = results.reduce((n, r) => n + r.tasks, 0);
      if (args.opts.json) {
        const sweeps = results.map((r) => r.sweep);
        io.stdout(`${JSON.stringify({ sweeps, tasks, sources: sources.length, into })}\n`);
      } else {
        io.stdout(
          `merged ${results.length} sweep(s) with ${tasks} finished task(s) from ${sources.length} store(s) into ${into}\n`,
        );
      }
      return EXIT.ok;
    } finally {
      target.close();
      // A store this command created for a merge that was refused is not left behind.
      if (!merged && !existed)
        for (const f of ["", "-wal", "-shm"]) rmSync(`${into}${f}`, { force: true });
    }
  },
});

export default merge;
