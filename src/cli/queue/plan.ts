// `harness2 run … --queue`: the sweep planned here and run by workers on any machine
// (docs/architecture.md "Many machines"). The stream is planned and the experiment checked
// against the store exactly as a local run would; the runs directory is bound to the store (a
// marker file every worker checks); then one domain job per domain goes on the queue. Nothing is
// executed here.

import type { StoreLocation } from "../../../store/db.ts";
import { assertContinuesExperiment } from "../../../store/identity.ts";
import { openRunStore } from "../../../store/open.ts";
import type { CliIO } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import { lockNamespaces, type SweepCell } from "../sweep/sweep-cell.ts";
import {
  type DomainJob,
  domainKey,
  type Enqueued,
  enqueueDomains,
  openQueue,
  queueSettings,
} from "./domain-queue.ts";
import { bindRunsDir, needsSharedStore } from "./runs-binding.ts";

/** Flags of `run` a domain job must not carry: the worker gives its own. */
const JOB_FLAGS_WITH_VALUE = new Set(["--only-domains", "--runs", "--workers"]);
const JOB_FLAGS_BARE = new Set(["--queue", "--no-tui", "--json", "--dry-run"]);

/** The sweep's command line as a domain job carries it. */
export function jobArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
    if (JOB_FLAGS_BARE.has(name)) continue;
    if (JOB_FLAGS_WITH_VALUE.has(name)) {
      if (!a.includes("=")) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

export type QueueRequest = {
  io: CliIO;
  where: StoreLocation;
  /** The sweep's command line after `harness2` (`run …` or `demo …`). */
  argv: readonly string[];
  stream: ReadonlyMap<string, readonly string[]>;
  /** The sweep's cell: its parallel namespace plus a domain is each domain's queue key. */
  cell: SweepCell;
  identity: Record<string, unknown>;
};

/** Checks, binds and enqueues; prints what was queued and how to go on. */
export async function queueSweep(req: QueueRequest): Promise<number> {
  const { io, where } = req;
  if (where.pg === null) throw needsSharedStore("run --queue");
  const store = await openRunStore(where, { create: true });
  const pg = store.pg as NonNullable<typeof store.pg>;
  let got: Enqueued;
  const plan = `pln_${Date.now().toString(36)}${crypto.randomUUID().slice(0, 6)}`;
  const namespace = lockNamespaces(req.cell)[0] as string;
  try {
    const { benchmark: bench, substrate, tag, seed } = req.cell;
    assertContinuesExperiment(store.db, {
      bench,
      substrate,
      tag,
      seed,
      identity: req.identity,
      domains: [...req.stream.entries()].map(([domain, tasks]) => ({ domain, tasks: [...tasks] })),
    });
    await bindRunsDir(pg.log, where.runsDir, where.pg.where);
    const boss = await openQueue(where.pg, queueSettings(io.env));
    const sql = new Bun.SQL(where.pg.url, { max: 1 });
    try {
      const jobs: DomainJob[] = [...req.stream.keys()].map((domain) => ({
        plan,
        argv: jobArgv(req.argv),
        domain,
        runsDir: where.runsDir,
        storeId: pg.storeId,
        cwd: io.cwd,
        key: domainKey(namespace, domain),
      }));
      got = await enqueueDomains(boss, sql, jobs);
    } finally {
      await sql.close();
      await boss.stop({ graceful: false, close: true });
    }
  } finally {
    await store.close();
  }
  const self = selfCommand(io.env, io.cwd);
  const tasks = [...req.stream.values()].reduce((n, t) => n + t.length, 0);
  io.stdout(
    [
      `queued ${plan}: ${got.queued.length + got.requeued.length} domain job(s), ${tasks} task(s), on PostgreSQL ${where.pg.where}`,
      ...[...req.stream.entries()].map(
        ([d, t]) =>
          `  ${d}: ${t.length} task(s)${
            got.pending.includes(d)
              ? " (its job from before is still queued or running: left as it is)"
              : got.requeued.includes(d)
                ? " (its job from before had failed: queued anew)"
                : ""
          }`,
      ),
      `next: ${self} worker --runs ${where.runsDir}   on every machine that mounts ${where.runsDir} (same HARNESS2_DB and model settings)`,
      `      ${self} watch   the fleet: which worker holds which domain, tasks done`,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
