// Store benchmark (bench/README.md): records 100,000 method-shaped events through the real
// StoreWriter, then times `runs` / `show` over the resulting 1,000-task sweep, in-process and
// through the harness2 executable. Prints throughput and latency; never asserts, never run by
// tests.   node_modules/.bin/bun bench/store-ingest.ts [--runs N]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { HarnessEvent } from "../src/core/events/registry.ts";
import { openStore } from "../store/db.ts";
import { newSweepId } from "../store/ids.ts";
import { sweepDetail } from "../store/queries.ts";
import { listSweeps } from "../store/sweep-list.ts";
import { StoreWriter } from "../store/writer.ts";
import { sweepEvents, taskName } from "../tests/store/synthetic.ts";
import { load, machine, median, min } from "./stats.ts";

const INGEST_EVENTS = 100_000;
const TARGET_S = 2;
const repeatArg = process.argv.indexOf("--runs");
const REPEATS = repeatArg > 0 ? Math.max(1, Number(process.argv[repeatArg + 1])) : 5;
const MAIN = resolve(import.meta.dir, "../src/cli/main.ts");

const ms = (t0: number) => performance.now() - t0;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

// 10 domains × 100 tasks, k = 2, both modes: 1,000 tasks, ~106 events each.
const sweep = newSweepId(Date.UTC(2026, 10, 30, 9));
const events: HarnessEvent[] = [
  ...sweepEvents({ sweep, domains: 10, tasksPerDomain: 100, k: 2, tripEvery: 50 }),
];
const hasher = new Bun.CryptoHasher("sha256");
for (const ev of events) hasher.update(JSON.stringify({ ...ev, sweep: "" }));
const inputHash = hasher.digest("hex").slice(0, 16);
const timed = events.slice(0, INGEST_EVENTS);
const rest = events.slice(INGEST_EVENTS);

console.log(`store bench — bun ${Bun.version}, ${REPEATS} runs each, minimum and median`);
console.log(machine());
console.log(
  `input: synthetic sweep, 1,000 tasks (k=2, agg+seq), ${events.length} events, sha256/16 ${inputHash}`,
);

// ── ingest ─────────────────────────────────────────────────────────────────────────────────────
const ingest: number[] = [];
let keepDir = "";
for (let run = 0; run < REPEATS; run++) {
  const dir = mkdtempSync(join(tmpdir(), "h2-bench-store-"));
  const writer = StoreWriter.open(join(dir, "harness2.db"));
  const t0 = performance.now();
  for (const ev of timed) writer.emit(ev);
  writer.flush();
  ingest.push(ms(t0));
  if (writer.stats.recorded !== INGEST_EVENTS) {
    throw new Error(`recorded ${writer.stats.recorded} of ${INGEST_EVENTS} events`);
  }
  if (run === REPEATS - 1) {
    for (const ev of rest) writer.emit(ev);
    writer.close();
    keepDir = dir;
  } else {
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const best = min(ingest);
console.log("");
console.log(
  `ingest ${INGEST_EVENTS.toLocaleString("en")} events: min ${fmt(best)} ms, median ${fmt(median(ingest))} ms` +
    ` → ${Math.round(INGEST_EVENTS / (best / 1000)).toLocaleString("en")} events/s` +
    ` (target < ${TARGET_S} s: ${best / 1000 < TARGET_S ? "met" : "MISSED"})`,
);

// ── read side, in-process ──────────────────────────────────────────────────────────────────────
const dbPath = join(keepDir, "harness2.db");
const db = openStore(dbPath, { create: false });
const timeIt = (fn: () => unknown) => {
  const xs: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    fn();
    xs.push(ms(t0));
  }
  return xs;
};
const task = taskName(4, 50);
const reads: [string, () => unknown][] = [
  ["listSweeps", () => listSweeps(db)],
  ["sweepDetail (1,000 tasks)", () => sweepDetail(db, sweep)],
  ["sweepDetail (one task)", () => sweepDetail(db, sweep, { task })],
];
console.log("");
console.log("read side, in-process:");
for (const [name, fn] of reads) {
  const xs = timeIt(fn);
  console.log(
    `  ${name.padEnd(28)} min ${fmt(min(xs), 2)} ms, median ${fmt(median(xs), 2)} ms → ${fmt(1000 / min(xs))}/s`,
  );
}
db.close();

// ── read side, through the executable (includes Bun start-up) ──────────────────────────────────
const cli = async (args: string[]) => {
  const xs: number[] = [];
  let bytes = 0;
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    const proc = Bun.spawn([process.execPath, MAIN, ...args], {
      env: { ...process.env, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(proc.stdout).text();
    const code = await proc.exited;
    xs.push(ms(t0));
    if (code !== 0) throw new Error(`harness2 ${args.join(" ")} exited ${code}`);
    bytes = out.length;
  }
  return { xs, bytes };
};
const commands: string[][] = [
  ["--help"],
  ["runs", "--runs", keepDir],
  ["runs", "--json", "--runs", keepDir],
  ["show", "last", "--runs", keepDir],
  ["show", "last", "--json", "--runs", keepDir],
  ["show", "last", task, "--runs", keepDir],
];
console.log("");
console.log("read side, harness2 executable (wall time incl. start-up; --help is the baseline):");
for (const args of commands) {
  const { xs, bytes } = await cli(args);
  const label = args.filter((a) => a !== keepDir && a !== "--runs").join(" ");
  console.log(
    `  ${label.padEnd(28)} min ${fmt(min(xs))} ms, median ${fmt(median(xs))} ms → ${fmt(1000 / min(xs))}/s (${bytes.toLocaleString("en")} bytes out)`,
  );
}

rmSync(keepDir, { recursive: true, force: true });
console.log(`load average at end: ${load()}`);
