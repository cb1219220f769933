// `harness2 watch`: the fleet of a queued sweep from one terminal. Every few seconds the shared
// store's log is read into this process's projection and the queue's jobs are listed: per domain
// its job's state and retries, the worker that holds it, the task it runs and the tasks finished.
// `--once` prints one table and exits (scripts, tests); on a terminal the table is redrawn.

import type { Database } from "bun:sqlite";
import { fleetDomains } from "../../../store/fleet-queries.ts";
import { openRunStore, type RunStore } from "../../../store/open.ts";
import { PgStoreError } from "../../../store/pg/log.ts";
import { textTable } from "../../core/lib/text-table.ts";
import { type CliIO, defineCommand, type OptionSpecs, type ParsedArgs } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { domainJobs, isOpen, type JobRow } from "../queue/domain-queue.ts";
import { needsSharedStore } from "../queue/runs-binding.ts";
import { browseLocation, RUNS_OPTION } from "../runs/run-handle.ts";

const OPTIONS = {
  runs: RUNS_OPTION,
  plan: {
    type: "string",
    valueName: "ID",
    description: "the plan to watch (default the newest)",
  },
  interval: {
    type: "int",
    min: 1,
    max: 3600,
    valueName: "S",
    description: "seconds between redraws (default 2)",
  },
  once: { type: "boolean", description: "print the table once and exit" },
} as const satisfies OptionSpecs;

type Args = ParsedArgs<typeof OPTIONS>;

const watch = defineCommand({
  name: "watch",
  summary: "Watch a queued sweep's fleet: which worker holds which domain, and tasks done",
  args: "",
  help: "Example: harness2 watch --plan pln_… (default: the newest plan)",
  options: OPTIONS,
  run: runWatch,
});

export default watch;

async function runWatch(args: Args, io: CliIO): Promise<number> {
  const loc = browseLocation(args, io);
  if (loc.pg === null) throw needsSharedStore("harness2 watch");
  const interval = args.opts.interval ?? 2;
  let store: RunStore;
  try {
    store = await openRunStore(loc, { create: false });
  } catch (err) {
    if (err instanceof PgStoreError) throw err;
    throw new CliError(`no harness2 store at ${loc.dbPath} yet: nothing to watch`);
  }
  const pg = store.pg as NonNullable<RunStore["pg"]>;
  try {
    for (;;) {
      await pg.catchUp();
      const holders = new Map((await pg.refreshLocks()).map((l) => [l.key, l.worker]));
      const jobs = await domainJobs(pg.log.client);
      const plan = args.opts.plan ?? jobs.at(-1)?.plan;
      if (plan === undefined) {
        io.stdout("No queued sweep in this store yet (queue one with run … --queue).\n");
        return EXIT.ok;
      }
      const text = fleetTable(store.db, plan, jobs, holders);
      const open = jobs.filter((j) => j.plan === plan && isOpen(j.state)).length;
      if (args.opts.once || !io.isTTY) {
        io.stdout(text);
        if (args.opts.once || open === 0) return EXIT.ok;
      } else {
        io.stdout(`\u001b[H\u001b[2J${text}`);
        if (open === 0) return EXIT.ok;
      }
      await Bun.sleep(interval * 1000);
    }
  } finally {
    await store.close();
  }
}

/** The plan's domains: the newest job of each, joined with what the store recorded. */
export function fleetTable(
  db: Database,
  plan: string,
  jobs: readonly JobRow[],
  holders: ReadonlyMap<string, string>,
): string {
  const latest = new Map<string, JobRow>();
  for (const j of jobs) if (j.plan === plan) latest.set(j.domain, j);
  const recorded = new Map(fleetDomains(db, plan).map((d) => [d.domain, d]));
  const rows = [...latest.values()]
    .sort((a, b) => a.domain.localeCompare(b.domain))
    .map((j) => {
      const r = recorded.get(j.domain);
      return [
        j.domain,
        j.state,
        String(j.retryCount),
        // Running: who holds it now; otherwise who ran it last.
        j.state === "active"
          ? (holders.get(j.key) ?? r?.running?.worker ?? "")
          : (r?.lastWorker ?? ""),
        r?.running?.task ?? "",
        String(r?.finished ?? 0),
        String(r?.failed ?? 0),
      ];
    });
  const states = [...latest.values()].map((j) => j.state);
  const count = (s: string) => states.filter((x) => x === s).length;
  const head = `plan ${plan}: ${latest.size} domain(s), ${count("completed")} completed, ${count("active")} active, ${count("created") + count("retry")} waiting, ${count("failed")} failed`;
  const table = textTable(
    [
      { header: "DOMAIN" },
      { header: "JOB" },
      { header: "RETRIES", align: "right" },
      { header: "WORKER" },
      { header: "RUNNING" },
      { header: "FINISHED", align: "right" },
      { header: "FAILED", align: "right" },
    ],
    rows,
  );
  return `${[head, ...table].join("\n")}\n`;
}
