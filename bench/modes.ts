// Both modes at once (bench/README.md): wall time of `harness2 demo --mode parallel,sequential`
// with the modes together (HARNESS2_MODES_AT_ONCE=2, the default) and one after the other (=1),
// against the sum of the two single-mode demos, at one k. Each run is a fresh process writing to
// a fresh temp directory. Prints figures and a PASS/FAIL line; never asserts, never run by tests.
//   node_modules/.bin/bun bench/modes.ts [--runs N] [--k K]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_FIXTURES } from "../src/benchmarks/demo/demo-adapter.ts";
import { hashDirectory } from "../src/core/lib/fingerprint.ts";
import { load, machine, median, min } from "./stats.ts";

/** Issue 36: both modes at once take at most this share of the two run one after the other, where a core is idle. */
const TARGET_RATIO = 0.7;
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(1, Number(arg("--runs") ?? 5));
const K = Math.max(1, Number(arg("--k") ?? 4));
const MAIN = resolve(import.meta.dir, "../src/cli/main.ts");
const fmt = (n: number, d = 2) => n.toFixed(d);

async function demo(mode: string, modesAtOnce: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "h2-bench-modes-"));
  try {
    const t0 = performance.now();
    const proc = Bun.spawn(
      [process.execPath, MAIN, "demo", "--no-tui", "--runs", dir, "--k", String(K), "--mode", mode],
      {
        env: { ...process.env, NO_COLOR: "1", HARNESS2_MODES_AT_ONCE: modesAtOnce },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [out, err] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    const code = await proc.exited;
    if (code !== 0) throw new Error(`demo --mode ${mode} exited ${code}:\n${out}\n${err}`);
    return (performance.now() - t0) / 1000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const inputHash = (await hashDirectory(DEMO_FIXTURES, { algorithm: "sha256" })).slice(0, 16);
console.log(
  `modes bench — bun ${Bun.version}, k=${K}, ${RUNS} runs each (interleaved), minimum and median`,
);
console.log(machine());
console.log(`input: fixtures/demo (2 tasks), sha256/16 ${inputHash}`);
const cases = [
  { name: "parallel only", mode: "parallel", at: "2" },
  { name: "sequential only", mode: "sequential", at: "2" },
  { name: "both, one after the other", mode: "parallel,sequential", at: "1" },
  { name: "both at once", mode: "parallel,sequential", at: "2" },
];
const walls = cases.map(() => [] as number[]);
for (let i = 0; i < RUNS; i++) {
  for (const [j, c] of cases.entries()) walls[j]?.push(await demo(c.mode, c.at));
}
for (const [j, c] of cases.entries()) {
  const w = walls[j] as number[];
  console.log(`${c.name.padEnd(28)} wall min ${fmt(min(w))} s, median ${fmt(median(w))} s`);
}
const [par, seq, serial, together] = walls.map((w) => min(w)) as [number, number, number, number];
const ratio = together / (par + seq);
console.log("");
console.log(
  `both at once / (parallel + sequential) = ${fmt(together)} / ${fmt(par + seq)} = ${fmt(ratio)}`,
);
console.log(`both at once / both one after the other = ${fmt(together / serial)}`);
console.log(`load average at end: ${load()}`);
console.log(
  `${ratio <= TARGET_RATIO ? "PASS" : "FAIL"} both modes at once at k=${K}: ${fmt(ratio)} of the sum (target ≤ ${TARGET_RATIO})`,
);
