// `harness2 worker`: takes domain jobs of queued sweeps from the shared store's queue and runs each
// as its sweep's command (`harness2 run …` or `harness2 demo …`) with `--only-domains D`, in a
// child process, with the existing scheduler and resume
// (a retried job skips the tasks its last holder finished). pg-boss heartbeats each job while it
// runs; a worker killed outright misses them and its job goes to another worker. SIGTERM or
// Ctrl-C stops the children gracefully, leaves their jobs to be retried and exits 0.

import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { PgLog } from "../../../store/pg/log.ts";
import { runProcess } from "../../core/lib/process.ts";
import { type CliIO, defineCommand, type OptionSpecs, type ParsedArgs } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import {
  DomainJob,
  domainJobs,
  handOnAfterS,
  isOpen,
  openQueue,
  QUEUE,
  queueSettings,
} from "../queue/domain-queue.ts";
import { bindRunsDir, needsSharedStore, readMarker, STORE_MARKER } from "../queue/runs-binding.ts";
import { checkedLocation, RUNS_OPTION } from "../runs/run-handle.ts";
import { releaseEarlySignals } from "../sweep/early-signals.ts";

const MAIN = resolve(import.meta.dir, "../main.ts");
/** How long a stopped child may take to record its interruption before it is killed. */
const STOP_GRACE_MS = 60_000;

const OPTIONS = {
  runs: RUNS_OPTION,
  concurrency: {
    type: "int",
    min: 1,
    max: 64,
    valueName: "N",
    description: "domain jobs at once (default 1)",
  },
  name: {
    type: "string",
    valueName: "NAME",
    description: "this worker's name in the fleet view (default host:pid)",
  },
  "until-empty": {
    type: "boolean",
    description: "exit once the queue holds no open job (a batch cluster's worker)",
  },
} as const satisfies OptionSpecs;

type Args = ParsedArgs<typeof OPTIONS>;

const worker = defineCommand({
  name: "worker",
  summary: "Run domain jobs of queued sweeps (harness2 run … --queue) from the shared store",
  args: "",
  help: [
    "Example: HARNESS2_DB=postgres://h2@db:5432/h2 harness2 worker --runs /shared/runs --concurrency 2",
    "",
    "Every worker mounts the sweep's runs directory at the same path and has the same model",
    "settings as the planner. SIGTERM or Ctrl-C stops it cleanly; its jobs go to other workers.",
  ].join("\n"),
  options: OPTIONS,
  run: runWorker,
});

export default worker;

async function runWorker(args: Args, io: CliIO): Promise<number> {
  const concurrency = args.opts.concurrency ?? 1;
  const name = args.opts.name ?? `${hostname()}:${process.pid}`;
  const loc = checkedLocation(args, io, { create: false });
  if (loc.pg === null) throw needsSharedStore("harness2 worker");
  const settings = queueSettings(io.env);
  let log: PgLog | null;
  log = await PgLog.open(loc.pg, { create: false });
  if (log === null) {
    throw new CliError(
      `no harness2 store at ${loc.pg.where} yet, so no queued sweep. Fix: plan one with 'harness2 run … --queue'`,
    );
  }
  const storeId = log.storeId;
  try {
    // The runs directory must be the sweep's: the store's marker there, at the path it records.
    if (readMarker(loc.runsDir) === null) {
      throw new CliError(
        `${loc.runsDir} is not the runs directory of the store at ${loc.pg.where} (it has no ${STORE_MARKER}). Fix: mount the sweep's runs directory and pass it with --runs or HARNESS2_RUNS_DIR`,
      );
    }
    await bindRunsDir(log, loc.runsDir, loc.pg.where);
  } finally {
    await log.close();
  }

  const boss = await openQueue(loc.pg, settings);
  const stop = new AbortController();
  const logs = join(loc.runsDir, "_workers", name.replace(/[^\w.-]+/g, "_"));
  mkdirSync(logs, { recursive: true });
  const say = (line: string) => io.stdout(`worker ${name}: ${line}\n`);
  let active = 0;

  const runJob = async (raw: unknown, id: string): Promise<void> => {
    const job = DomainJob.parse(raw);
    if (job.storeId !== storeId || job.runsDir !== loc.runsDir) {
      throw new Error(`job ${id} belongs to another store or runs directory; left for its workers`);
    }
    active++;
    const started = Date.now();
    // pg-boss expires an active job after expireS: hand the domain on a little before that.
    const handOn = new AbortController();
    const handOnTimer = setTimeout(() => handOn.abort(), handOnAfterS(settings.expireS) * 1000);
    say(`took ${job.domain} of ${job.plan} (job ${id.slice(0, 8)})`);
    const base = join(
      logs,
      `${job.plan}-${job.domain.replace(/[^\w.-]+/g, "_")}-${id.slice(0, 8)}`,
    );
    try {
      const exit = await runProcess({
        argv: [
          process.execPath,
          MAIN,
          ...job.argv,
          "--only-domains",
          job.domain,
          "--no-tui",
          "--runs",
          loc.runsDir,
        ],
        cwd: job.cwd,
        env: {
          ...definedEnv(io.env),
          HARNESS2_WORKER: name,
          HARNESS2_PLAN: job.plan,
          NO_COLOR: "1",
        },
        stdoutFile: `${base}.out`,
        stderrFile: `${base}.err`,
        signal: AbortSignal.any([stop.signal, handOn.signal]),
        graceMs: STOP_GRACE_MS,
      });
      const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
      if (exit.code === EXIT.ok) {
        say(`finished ${job.domain} of ${job.plan} in ${took}`);
        return;
      }
      if (handOn.signal.aborted && !stop.signal.aborted) {
        // Its time is up, not its work: the domain goes on as a new job of the same key, which
        // resumes where this one stopped; this one is done.
        await boss.send(QUEUE, job, { singletonKey: job.key });
        say(`${job.domain} of ${job.plan} handed on after ${took} (the queue's time limit)`);
        return;
      }
      const why = stop.signal.aborted
        ? "stopped"
        : `run exited ${exit.code ?? exit.signal}: ${lastLine(exit.stderrTail) || `see ${base}.err`}`;
      say(`${job.domain} of ${job.plan} ${why} after ${took}; the job is left to be retried`);
      throw new Error(why);
    } finally {
      clearTimeout(handOnTimer);
      active--;
    }
  };

  await boss.work(
    QUEUE,
    { localConcurrency: concurrency, batchSize: 1, pollingIntervalSeconds: settings.pollS },
    async (jobs) => {
      for (const j of jobs) await runJob(j.data, j.id);
    },
  );
  say(`waiting for domain jobs on ${loc.pg.where} (concurrency ${concurrency})`);

  const done = new Promise<number>((resolveDone) => {
    let stopping = false;
    let poll: ReturnType<typeof setInterval> | null = null;
    const watcher = args.opts["until-empty"] ? new Bun.SQL(loc.pg?.url ?? "", { max: 1 }) : null;
    const shutdown = async (code: number) => {
      if (stopping) return;
      stopping = true;
      stop.abort();
      if (poll !== null) clearInterval(poll);
      // Graceful: running handlers finish (their children record the interruption) and their
      // jobs are failed, which puts them up for retry by another worker.
      await boss.stop({ graceful: true, close: true, timeout: STOP_GRACE_MS + 10_000 });
      await watcher?.close().catch(() => {});
      // Only now: while they listen, the process runner's own handlers leave the exit to us.
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      resolveDone(code);
    };
    const onSignal = () => {
      io.stderr(
        `harness2 worker: stopping; running domains are interrupted and left to be retried\n`,
      );
      void shutdown(EXIT.ok);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    releaseEarlySignals();
    if (watcher !== null) {
      poll = setInterval(async () => {
        try {
          const open = (await domainJobs(watcher)).filter((j) => isOpen(j.state));
          if (open.length === 0 && active === 0 && !stopping) {
            say("the queue is empty; exiting");
            void shutdown(EXIT.ok);
          }
        } catch {
          // A transient failure to read the queue: ask again at the next poll.
        }
      }, settings.pollS * 1000);
    }
  });
  return await done;
}

function definedEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split("\n")
      .filter((l) => l.trim() !== "")
      .at(-1) ?? ""
  );
}
