// Would moving tree writes off the JS thread pay here? (bench/README.md, "Round 4".) Writes the
// same evidence-shaped tree (the demo's base harness plus rollout-like files) many times, once
// with the synchronous calls the method uses and once as batched node:fs/promises calls (all of a
// tree's directories, then all of its files, in flight together), and reports for each the wall
// time per tree and how much of that time the JS thread stayed free (timer ticks that fired
// against those a free thread would have seen). Prints figures; never asserts, never run by tests.
//   node_modules/.bin/bun bench/tree-writes.ts [--runs N] [--trees T]

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEMO_FIXTURES } from "../src/benchmarks/demo/demo-adapter.ts";
import { hashDirectory } from "../src/core/lib/fingerprint.ts";
import { readFileBytes, walkFiles } from "../src/core/lib/safe-fs.ts";
import { load, machine, median, min } from "./stats.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(1, Number(arg("--runs") ?? 5));
const TREES = Math.max(1, Number(arg("--trees") ?? 100));

// The tree: the demo's base harness under harness/ and pool/c1..c3/harness/, plus per-rollout
// files, as a stage's evidence holds them.
const base = join(DEMO_FIXTURES, "base-harness");
const files = new Map<string, Uint8Array>();
for (const rel of walkFiles(base)) {
  const bytes = readFileBytes(base, rel);
  files.set(`harness/${rel}`, bytes);
  for (const c of ["c1", "c2", "c3"]) files.set(`pool/${c}/harness/${rel}`, bytes);
}
for (const r of ["base1", "c1", "c2", "c3"]) {
  files.set(`rollouts/${r}.md`, new TextEncoder().encode(`[ASSISTANT] ${r}\n`.repeat(40)));
  files.set(`deliverables/${r}/answer.txt`, new TextEncoder().encode("Total: 85.15\n"));
}
const dirs = [...new Set([...files.keys()].map((rel) => dirname(rel)))];

function writeSync(root: string): void {
  for (const d of dirs) mkdirSync(join(root, d), { recursive: true });
  for (const [rel, data] of files) writeFileSync(join(root, rel), data);
}

async function writeBatched(root: string): Promise<void> {
  await Promise.all(dirs.map((d) => mkdir(join(root, d), { recursive: true })));
  await Promise.all([...files].map(([rel, data]) => writeFile(join(root, rel), data)));
}

/** Wall ms per tree and the share of 1 ms ticks that fired while the trees were written. */
async function measure(kind: "sync" | "batched"): Promise<{ perTree: number; free: number }> {
  const root = mkdtempSync(join(tmpdir(), "h2-bench-tree-"));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const t0 = performance.now();
  try {
    for (let i = 0; i < TREES; i++) {
      const dest = join(root, String(i));
      if (kind === "sync") {
        writeSync(dest);
        await new Promise((r) => setImmediate(r)); // lets timers run between trees, as stages do
      } else {
        await writeBatched(dest);
      }
    }
  } finally {
    clearInterval(timer);
  }
  const wall = performance.now() - t0;
  rmSync(root, { recursive: true, force: true });
  return { perTree: wall / TREES, free: Math.min(1, ticks / wall) };
}

const input = await hashDirectory(base);
console.log(`tree-writes bench — bun ${Bun.version}, ${RUNS} runs of ${TREES} trees each`);
console.log(machine());
console.log(
  `tree: ${files.size} files in ${dirs.length} directories (demo base harness sha1/16 ${input.slice(0, 16)}); load ${load()}`,
);
const results: Record<string, { perTree: number[]; free: number[] }> = {
  sync: { perTree: [], free: [] },
  batched: { perTree: [], free: [] },
};
for (let r = 0; r < RUNS; r++) {
  for (const kind of ["sync", "batched"] as const) {
    const m = await measure(kind);
    results[kind]?.perTree.push(m.perTree);
    results[kind]?.free.push(m.free);
  }
}
for (const [kind, res] of Object.entries(results)) {
  console.log(
    `${kind.padEnd(8)} wall per tree min ${min(res.perTree).toFixed(2)} ms, median ${median(res.perTree).toFixed(2)} ms; JS thread free ${(median(res.free) * 100).toFixed(0)} % of the time (median)`,
  );
}
const ratio = median(results.batched?.perTree ?? [1]) / median(results.sync?.perTree ?? [1]);
console.log(`batched / sync wall per tree (medians): ${ratio.toFixed(2)}; load now ${load()}`);
