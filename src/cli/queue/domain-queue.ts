// The domain queue of a sweep run on many machines (docs/architecture.md "Many machines"):
// pg-boss on the PostgreSQL store's database, one `key_strict_fifo` queue in which every job is
// one domain of one planned sweep, keyed by its cell and domain. pg-boss gives the ordering rule
// (one job of a key at a time, in the order they were queued; other keys in parallel), the
// heartbeats that find a dead worker and the retries; harness2 adds what a job holds and the
// settings below.

import { PgBoss } from "pg-boss";
import { z } from "zod";
import type { PgAddress } from "../../core/lib/store-url.ts";
import { CliError } from "../errors.ts";

export const QUEUE = "harness2-domains";
/** pg-boss keeps its tables in this schema of the store's database. */
export const BOSS_SCHEMA = "harness2_queue";
/** pg-boss's limit on how long a job may stay active. */
export const MAX_EXPIRE_S = 24 * 3600;

/** When a job's holder stops its domain to hand it on: a margin before pg-boss would expire it. */
export function handOnAfterS(expireS: number): number {
  return Math.max(30, expireS - Math.max(60, Math.floor(expireS / 20)));
}

/** What one domain job holds: the `run` command line to run it with, and where. */
export const DomainJob = z.object({
  plan: z.string().min(1),
  /** The `run` arguments of the planned sweep, without --queue and --only-domains. */
  argv: z.array(z.string()),
  domain: z.string().min(1),
  /** The runs directory every worker mounts, as the planner named it (absolute). */
  runsDir: z.string().min(1),
  /** The PostgreSQL store's id, which the runs directory's marker must hold. */
  storeId: z.string().min(1),
  /** The planner's working directory: relative paths in `argv` are relative to it. */
  cwd: z.string().min(1),
  /** The queue key (cell and domain): jobs of one key run one at a time, in order. */
  key: z.string().min(1),
});
export type DomainJob = z.infer<typeof DomainJob>;

export type QueueSettings = {
  /** A worker that misses heartbeats this long is taken for dead and its job retried (≥ 10). */
  heartbeatS: number;
  /** How many times a domain job is retried after its worker died or stopped. */
  retries: number;
  /**
   * How long one domain job may hold its domain (pg-boss allows at most 24 h). A domain that
   * needs longer is stopped gracefully a little before and goes on as a new job of its key.
   */
  expireS: number;
  /** How often an idle worker asks for work, and how often dead workers are looked for. */
  pollS: number;
};

/** HARNESS2_QUEUE_* settings, validated; a bad value is one line naming the variable. */
export function queueSettings(env: Record<string, string | undefined>): QueueSettings {
  const int = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      throw new CliError(`${name}=${raw} is not an integer ≥ ${min}. Fix: set ${name} to one`);
    }
    return n;
  };
  return {
    heartbeatS: int("HARNESS2_QUEUE_HEARTBEAT_S", 30, 10),
    retries: int("HARNESS2_QUEUE_RETRIES", 5, 0),
    expireS: Math.min(MAX_EXPIRE_S, int("HARNESS2_QUEUE_EXPIRE_S", MAX_EXPIRE_S, 60)),
    pollS: int("HARNESS2_QUEUE_POLL_S", 2, 1),
  };
}

/** pg-boss on the store's database, started, with the domain queue created. */
export async function openQueue(addr: PgAddress, settings: QueueSettings): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: addr.url,
    schema: BOSS_SCHEMA,
    application_name: "harness2",
    max: 4,
    monitorIntervalSeconds: settings.pollS,
    superviseIntervalSeconds: settings.pollS,
    schedule: false,
  });
  // pg-boss reports background failures as events; they must not crash a worker.
  boss.on("error", (err: Error) => {
    process.stderr.write(`harness2 queue: ${err.message}\n`);
  });
  await boss.start();
  const existing = await boss.getQueue(QUEUE);
  if (existing === null) {
    await boss.createQueue(QUEUE, {
      policy: "key_strict_fifo",
      heartbeatSeconds: settings.heartbeatS,
      retryLimit: settings.retries,
      expireInSeconds: settings.expireS,
      retryDelay: 1,
    });
  } else {
    await boss.updateQueue(QUEUE, {
      retryLimit: settings.retries,
      expireInSeconds: settings.expireS,
    });
  }
  return boss;
}

/** The queue key of one domain of a cell: jobs of one key run one at a time, in order. */
export function domainKey(cellNamespace: string, domain: string): string {
  return `${cellNamespace}#${domain}`;
}

export type Enqueued = {
  /** Domains given a new job. */
  queued: string[];
  /** Domains whose last job had failed for good: it is removed and a new one queued. */
  requeued: string[];
  /** Domains that still have a job waiting, in retry or running: left as they are. */
  pending: string[];
};

/**
 * Queues one job per domain of a planned sweep, in stream order. Planning again is safe: a domain
 * whose job is still open keeps it, and one whose job failed for good gets a new one in its place
 * (a failed job holds back every later job of its key in a key_strict_fifo queue).
 */
export async function enqueueDomains(
  boss: PgBoss,
  sql: InstanceType<typeof Bun.SQL>,
  jobs: readonly DomainJob[],
): Promise<Enqueued> {
  const byKey = new Map<string, JobRow[]>();
  for (const row of await domainJobs(sql)) {
    byKey.set(row.key, [...(byKey.get(row.key) ?? []), row]);
  }
  const out: Enqueued = { queued: [], requeued: [], pending: [] };
  for (const job of jobs) {
    const earlier = byKey.get(job.key) ?? [];
    if (earlier.some((r) => isOpen(r.state))) {
      out.pending.push(job.domain);
      continue;
    }
    const failed = earlier.filter((r) => r.state === "failed").map((r) => r.id);
    if (failed.length > 0) await boss.deleteJob(QUEUE, failed);
    const id = await boss.send(QUEUE, job, { singletonKey: job.key });
    if (id === null) throw new Error(`pg-boss refused the job of domain ${job.domain}`);
    (failed.length > 0 ? out.requeued : out.queued).push(job.domain);
  }
  return out;
}

export type JobRow = {
  id: string;
  state: string;
  retryCount: number;
  domain: string;
  plan: string;
  /** The job's queue key, which is also its domain's sweep lock key. */
  key: string;
  startedOn: Date | null;
};

/** The domain jobs pg-boss holds, newest plan last (the fleet view and --until-empty read it). */
export async function domainJobs(sql: InstanceType<typeof Bun.SQL>): Promise<JobRow[]> {
  const present = await sql`SELECT to_regclass(${`${BOSS_SCHEMA}.job`}) IS NOT NULL AS present`;
  if (!present[0]?.present) return [];
  const rows = (await sql.unsafe(
    `SELECT id::text AS id, state::text AS state, retry_count AS "retryCount",
       data->>'domain' AS domain, data->>'plan' AS plan, COALESCE(singleton_key, '') AS key, started_on AS "startedOn"
     FROM ${BOSS_SCHEMA}.job WHERE name = $1 ORDER BY created_on, id`,
    [QUEUE],
  )) as JobRow[];
  return rows;
}

/** Whether a job state still has work to do. */
export function isOpen(state: string): boolean {
  return state === "created" || state === "retry" || state === "active";
}
