// Fleet benchmark (bench/README.md "Many machines"): on a private PostgreSQL cluster it starts
// itself, (1) records 100,000 method-shaped events through the real StoreWriter into the SQLite
// store and into the PostgreSQL store (applied to the projection and appended to the shared log),
// and replays them into a fresh projection as a second process would; (2) runs a many-domain demo
// sweep in one process and queued on 1, 2 and 4 `harness2 worker` processes, and reports
// domains per minute and the orchestration overhead per task. Prints figures; never asserts.
//   node_modules/.bin/bun bench/fleet.ts [--runs N] [--domains N] [--skip-ingest] [--skip-fleet]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { HarnessEvent } from "../src/core/events/registry.ts";
import { type PgAddress, pgAddress } from "../src/core/lib/store-url.ts";
import { newSweepId } from "../store/ids.ts";
import { PgStore } from "../store/pg/store.ts";
import { StoreWriter } from "../store/writer.ts";
import { startPgCluster } from "../tests/helpers/postgres.ts";
import { sweepEvents } from "../tests/store/synthetic.ts";
import { load, machine, median, min } from "./stats.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Math.max(1, Number(process.argv[i + 1])) : fallback;
};
const REPEATS = arg("--runs", 3);
const DOMAINS = arg("--domains", 8);
const MAIN = resolve(import.meta.dir, "../src/cli/main.ts");
const INGEST_EVENTS = 100_000;
const ms = (t0: number) => performance.now() - t0;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

const cluster = await startPgCluster();
let dbCounter = 0;
const freshAddress = async (): Promise<PgAddress> =>
  pgAddress(await cluster.freshDatabase(`bench_${++dbCounter}`)) as PgAddress;

console.log(`fleet bench — bun ${Bun.version}, ${REPEATS} runs each, minimum and median`);
console.log(machine());

try {
  if (!process.argv.includes("--skip-ingest")) await ingest();
  if (!process.argv.includes("--skip-fleet")) await fleet();
} finally {
  cluster.stop();
}
console.log(`load average at end: ${load()}`);

// ── (1) ingest ────────────────────────────────────────────────────────────────────────────────
async function ingest(): Promise<void> {
  const sweep = newSweepId(Date.UTC(2026, 11, 2, 9));
  const events: HarnessEvent[] = [
    ...sweepEvents({ sweep, domains: 10, tasksPerDomain: 100, k: 2, tripEvery: 50 }),
  ].slice(0, INGEST_EVENTS);
  const hasher = new Bun.CryptoHasher("sha256");
  for (const ev of events) hasher.update(JSON.stringify({ ...ev, sweep: "" }));
  console.log("");
  console.log(
    `ingest: ${events.length.toLocaleString("en")} events of a synthetic sweep (10 domains × 100 tasks, k=2), sha256/16 ${hasher.digest("hex").slice(0, 16)}`,
  );

  const sqlite: number[] = [];
  for (let run = 0; run < REPEATS; run++) {
    const dir = mkdtempSync(join(tmpdir(), "h2-bench-fleet-"));
    const writer = StoreWriter.open(join(dir, "harness2.db"));
    const t0 = performance.now();
    for (const ev of events) writer.emit(ev);
    writer.flush();
    sqlite.push(ms(t0));
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const applied: number[] = [];
  const shared: number[] = [];
  const replay: number[] = [];
  for (let run = 0; run < REPEATS; run++) {
    const addr = await freshAddress();
    const store = (await PgStore.open(addr, { create: true })) as PgStore;
    const writer = new StoreWriter(store.db, {
      onCommitted: (batch) => store.committed(batch),
    });
    const t0 = performance.now();
    for (const ev of events) writer.emit(ev);
    writer.flush();
    applied.push(ms(t0));
    const left = await store.drain(600_000);
    shared.push(ms(t0));
    if (left !== 0) throw new Error(`${left} event(s) did not reach PostgreSQL`);
    writer.close();
    await store.close();
    // A second process: a fresh projection replays the whole log.
    const t1 = performance.now();
    const reader = (await PgStore.open(addr, { create: false })) as PgStore;
    replay.push(ms(t1));
    const n = (reader.db.query("SELECT COUNT(*) AS n FROM events").get() as { n: number }).n;
    await reader.close();
    if (n !== events.length) throw new Error(`the projection holds ${n} of ${events.length}`);
  }
  const line = (what: string, xs: number[]) =>
    console.log(
      `  ${what.padEnd(44)} min ${fmt(min(xs) / 1000, 2)} s, median ${fmt(median(xs) / 1000, 2)} s → ${Math.round(
        events.length / (min(xs) / 1000),
      ).toLocaleString("en")} events/s`,
    );
  line("SQLite store (recorded)", sqlite);
  line("PostgreSQL store: applied to the projection", applied);
  line("PostgreSQL store: all in the shared log", shared);
  line("PostgreSQL store: a new process's projection", replay);
  console.log(
    `  ratio, PostgreSQL (in the log) / SQLite: ${fmt(min(shared) / min(sqlite), 2)}×; replay / SQLite: ${fmt(min(replay) / min(sqlite), 2)}×`,
  );
}

// ── (2) fleet throughput ──────────────────────────────────────────────────────────────────────
type Spawned = { code: number; out: string };

async function spawn(argv: string[], env: Record<string, string>): Promise<Spawned> {
  const proc = Bun.spawn([process.execPath, MAIN, ...argv], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  const code = await proc.exited;
  if (code !== 0) throw new Error(`harness2 ${argv.join(" ")} exited ${code}: ${err.trim()}`);
  return { code, out };
}

async function fleet(): Promise<void> {
  const tasks = DOMAINS * 2;
  const sweep = ["demo", "--k", "2", "--domains", String(DOMAINS)];
  console.log("");
  console.log(
    `fleet: demo --k 2 --domains ${DOMAINS} (${tasks} tasks, both modes, real python), wall time from start to the last task recorded`,
  );
  const results: { what: string; xs: number[] }[] = [];

  const single: number[] = [];
  for (let run = 0; run < REPEATS; run++) {
    const dir = mkdtempSync(join(tmpdir(), "h2-bench-fleet-"));
    const t0 = performance.now();
    await spawn([...sweep, "--no-tui", "--runs", join(dir, "runs")], {});
    single.push(ms(t0));
    rmSync(dir, { recursive: true, force: true });
  }
  results.push({ what: "one process, SQLite (--workers 1)", xs: single });

  const singlePg: number[] = [];
  for (let run = 0; run < REPEATS; run++) {
    const dir = mkdtempSync(join(tmpdir(), "h2-bench-fleet-"));
    const addr = await freshAddress();
    const t0 = performance.now();
    await spawn([...sweep, "--no-tui", "--runs", join(dir, "runs")], { HARNESS2_DB: addr.url });
    singlePg.push(ms(t0));
    rmSync(dir, { recursive: true, force: true });
  }
  results.push({ what: "one process, PostgreSQL store", xs: singlePg });

  for (const workers of [1, 2, 4]) {
    const xs: number[] = [];
    for (let run = 0; run < REPEATS; run++) {
      const dir = mkdtempSync(join(tmpdir(), "h2-bench-fleet-"));
      const runs = join(dir, "runs");
      const addr = await freshAddress();
      const env = { HARNESS2_DB: addr.url, HARNESS2_QUEUE_POLL_S: "1" };
      const t0 = performance.now();
      await spawn([...sweep, "--queue", "--runs", runs], env);
      const logs = await Promise.all(
        Array.from({ length: workers }, (_, i) =>
          spawn(["worker", "--runs", runs, "--name", `w${i + 1}`, "--until-empty"], env),
        ),
      );
      xs.push(ms(t0));
      // A retried job costs a retry delay: say so beside the figure, with the child's reason.
      for (const { out } of logs) {
        for (const l of out.split("\n")) {
          if (/left to be retried|handed on/.test(l)) console.log(`  note (run ${run + 1}): ${l}`);
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
    results.push({ what: `queued, ${workers} worker process(es)`, xs });
  }

  const base = min(single);
  for (const { what, xs } of results) {
    const best = min(xs);
    console.log(
      `  ${what.padEnd(36)} min ${fmt(best / 1000, 2)} s, median ${fmt(median(xs) / 1000, 2)} s → ${fmt(
        (DOMAINS / best) * 60_000,
      )} domains/min, ${fmt(best / base, 2)}× one process; overhead ${fmt((best - base) / tasks)} ms/task`,
    );
  }
}
