// Kill-and-resume bench (bench/README.md): how much work a `kill -9` costs. Runs one whole demo as
// the plan, then N demos each killed with SIGKILL at a random moment and resumed. Every python
// execution goes through a logging wrapper, so the bench sees which executions were in flight at
// the kill (started, not ended by then) and how many the resume ran again. "Beyond in flight" is
// work that had finished before the kill and was still redone: the figure that should be 0.
// Improver calls in the demo are in-process and instant; the resume's own report counts them.
//   node_modules/.bin/bun bench/kill-resume.ts [--runs N] [--k K] [--python PATH]

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_FIXTURES } from "../src/benchmarks/demo/demo-adapter.ts";
import { hashDirectory } from "../src/core/lib/fingerprint.ts";
import { resolvePython } from "../src/core/lib/python.ts";
import { load, machine, median } from "./stats.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(1, Number(arg("--runs") ?? 20));
const K = Number(arg("--k") ?? 2);
if (!Number.isInteger(K) || K < 1 || K > 8) throw new Error(`--k: 1..8, not ${arg("--k")}`);
const PYTHON = arg("--python") ?? process.env.HARNESS2_PYTHON ?? (await resolvePython(process.env));
if (!PYTHON) throw new Error("no python3: pass --python PATH or set HARNESS2_PYTHON");
const MAIN = resolve(import.meta.dir, "../src/cli/main.ts");

const scratch = mkdtempSync(join(tmpdir(), "h2-bench-kill-"));
// The wrapper learns its log from a file, not the environment: the demo passes python a filtered
// environment. It answers the interpreter lookup (`-S -c …sys.executable`) with its own path so
// every execution goes through it, and stamps start and end in milliseconds.
const current = join(scratch, "current-log");
const wrapper = join(scratch, "python");
writeFileSync(
  wrapper,
  `#!/bin/bash
if [ "$1" = "-S" ] && [ "$2" = "-c" ]; then echo "${wrapper}"; exit 0; fi
log=$(cat "${current}"); id="$$-$RANDOM"
echo "S $id $(date +%s%3N) $PWD" >> "$log"
"${PYTHON}" "$@"; rc=$?
echo "E $id $(date +%s%3N)" >> "$log"
exit $rc
`,
);
chmodSync(wrapper, 0o755);

type Exec = { id: string; start: number; end: number | null; cwd: string };
function executions(log: string): Exec[] {
  let text = "";
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return [];
  }
  const byId = new Map<string, Exec>();
  for (const line of text.split("\n")) {
    const [kind, id, at, cwd] = line.split(" ");
    if (id === undefined || at === undefined) continue;
    if (kind === "S" && cwd !== undefined && cwd.endsWith("/work")) {
      byId.set(id, { id, start: Number(at), end: null, cwd });
    }
    const seen = byId.get(id);
    if (kind === "E" && seen) seen.end = Number(at);
  }
  return [...byId.values()];
}

async function demo(dir: string, log: string, killAfterMs: number | null) {
  writeFileSync(current, log);
  const t0 = performance.now();
  const proc = Bun.spawn(
    [process.execPath, MAIN, "demo", "--no-tui", "--runs", dir, "--k", String(K)],
    {
      env: { ...process.env, NO_COLOR: "1", HARNESS2_PYTHON: wrapper },
      stdout: "ignore",
      stderr: "ignore",
    },
  );
  let killedAt: number | null = null;
  if (killAfterMs !== null) {
    await Bun.sleep(killAfterMs);
    proc.kill("SIGKILL");
    killedAt = Date.now();
  }
  const code = await proc.exited;
  // Wrappers started just before the kill still read the log's name: let them, before it changes.
  if (killedAt !== null) await Bun.sleep(500);
  return { code, killedAt, ms: performance.now() - t0 };
}

const inputHash = (await hashDirectory(DEMO_FIXTURES, { algorithm: "sha256" })).slice(0, 16);
console.log(
  `kill-resume bench — bun ${Bun.version}, demo k=${K}, ${RUNS} kills, ${cpus().length} cores`,
);
console.log(`input: fixtures/demo, sha256/16 ${inputHash}; python ${PYTHON}`);
console.log(machine());

try {
  const planLog = join(scratch, "plan.log");
  const plan = await demo(join(scratch, "plan"), planLog, null);
  if (plan.code !== 0) throw new Error(`the uninterrupted demo exited ${plan.code}`);
  const planned = executions(planLog).length;
  console.log(`plan: ${planned} executions in ${(plan.ms / 1000).toFixed(2)} s`);

  const inFlight: number[] = [];
  const beyond: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = join(scratch, `kill-${i}`);
    const at = Math.round(200 + Math.random() * Math.max(100, plan.ms - 300));
    const killed = await demo(dir, join(scratch, `kill-${i}.log`), at);
    const resumed = await demo(dir, join(scratch, `resume-${i}.log`), null);
    if (resumed.code !== 0) throw new Error(`resume ${i} exited ${resumed.code}`);
    const before = executions(join(scratch, `kill-${i}.log`));
    const after = executions(join(scratch, `resume-${i}.log`)).length;
    const cut = killed.killedAt as number;
    const flying = before.filter((e) => e.end === null || e.end > cut).length;
    const redone = before.length + after - planned;
    inFlight.push(flying);
    beyond.push(redone - flying);
    console.log(
      `kill ${i + 1} at ${at} ms: ${before.length} executions before it (${flying} in flight), ` +
        `${after} after; redone ${redone}, beyond in flight ${redone - flying}`,
    );
    rmSync(dir, { recursive: true, force: true });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log("");
  console.log(
    `in flight at the kill: mean ${mean(inFlight).toFixed(2)}, median ${median(inFlight)}, max ${Math.max(...inFlight)}`,
  );
  console.log(
    `redone beyond in flight: mean ${mean(beyond).toFixed(2)}, max ${Math.max(...beyond)} ` +
      `(an execution that ended within a few ms of the kill, before its run mark was written, counts here)`,
  );
  console.log(`load average at end: ${load()}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
