// Demo benchmark (bench/README.md): wall time, CPU and peak RSS of the real `harness2 demo
// --no-tui` at k = 1, 2, 4 and 8, each run a fresh process writing to a fresh temp directory, with
// ONE pinned python (HARNESS2_PYTHON, printed with its version and start-up time). Everything it
// reports is measured in the same run: no figure of another day or another program. The yardstick
// is the floor it computes from a measured execution of the demo's own script and the plan (the
// executions spread over the cores, and the waves that must follow one another), with harness2's
// wall time as a multiple of it, and harness2's own CPU (the Bun process) apart from its python
// children's. Prints PASS/FAIL lines against that floor and the RSS limit; never asserts, never run
// by tests. With `--against DIR` (another harness2 checkout, e.g. a worktree of an earlier commit)
// the two programs run in turn, the same number of times, and the bench prints what this one
// measured as a fraction of what that one measured in the same run: harness2's own CPU, wall time,
// and the files and folders each demo left.
//   node_modules/.bin/bun bench/demo.ts [--runs N] [--k 1,2,4,8] [--python PATH] [--against DIR]

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_FIXTURES } from "../src/benchmarks/demo/demo-adapter.ts";
import { hashDirectory } from "../src/core/lib/fingerprint.ts";
import { resolvePython } from "../src/core/lib/python.ts";
import { census, load, machine, median, min } from "./stats.ts";

/** Targets (issue 36): wall time within this multiple of the computed floor at k=8; peak RSS. */
const FLOOR_MULTIPLE_TARGET = 2.5;
const RSS_LIMIT_MIB = 150;
const RSS_GROWTH_LIMIT_MIB = 3;
const CORES = cpus().length;

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(1, Number(arg("--runs") ?? 5));
const KS = (arg("--k") ?? "1,2,4,8").split(",").map(Number);
for (const k of KS) {
  if (!Number.isInteger(k) || k < 1 || k > 8) throw new Error(`--k: 1..8, not ${k}`);
}
const PYTHON = arg("--python") ?? process.env.HARNESS2_PYTHON ?? (await resolvePython(process.env));
if (!PYTHON) throw new Error("no python3: pass --python PATH or set HARNESS2_PYTHON");
const MAIN = resolve(import.meta.dir, "../src/cli/main.ts");
const AGAINST = arg("--against");
const OTHER = AGAINST === undefined ? null : resolve(AGAINST, "src/cli/main.ts");
if (OTHER !== null && !existsSync(OTHER)) {
  throw new Error(`--against ${AGAINST}: no src/cli/main.ts there; give a harness2 checkout`);
}

type Sample = {
  wallS: number;
  cpuS: number;
  /** The Bun process's own CPU (utime + stime from /proc, last sample before it exited). */
  selfCpuS: number;
  rssMiB: number;
  executions: number;
  /** What the demo left under its runs folder. */
  files: number;
  dirs: number;
};

const TICK = 100; // USER_HZ on Linux

/** utime + stime of `pid` in seconds, or null once it is gone. */
function selfCpu(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return null;
  }
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** One demo in its own process; peak RSS and CPU (with its python children) from wait4. */
async function runDemo(k: number, main = MAIN): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), "h2-bench-demo-"));
  try {
    const t0 = performance.now();
    const proc = Bun.spawn(
      [process.execPath, main, "demo", "--no-tui", "--runs", dir, "--k", String(k)],
      {
        env: { ...process.env, NO_COLOR: "1", HARNESS2_PYTHON: PYTHON as string },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    let self = 0;
    const sampler = setInterval(() => {
      const now = selfCpu(proc.pid);
      if (now !== null) self = now;
    }, 20);
    const [out, err] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    const code = await proc.exited;
    clearInterval(sampler);
    const wallS = (performance.now() - t0) / 1000;
    if (code !== 0) throw new Error(`demo k=${k} exited ${code}:\n${out}\n${err}`);
    const report = JSON.parse(readFileSync(join(dir, "demo", "demo.json"), "utf8"));
    if (report.tasks.ok !== 2 || report.executions !== 14 * k) {
      throw new Error(`demo k=${k} did not do the whole work: ${JSON.stringify(report.tasks)}`);
    }
    const usage = proc.resourceUsage();
    return {
      wallS,
      cpuS: usage ? Number(usage.cpuTime.total) / 1e6 : Number.NaN,
      selfCpuS: self,
      rssMiB: usage ? usage.maxRSS / (1024 * 1024) : Number.NaN,
      executions: report.executions,
      ...census(dir),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Minimum of 5 wall times of `python <args>`, in ms. */
function fastestStartMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    Bun.spawnSync([PYTHON as string, ...args]);
    times.push(performance.now() - t0);
  }
  return min(times);
}

/**
 * The pinned python's version, its bare start-up (`-c pass`) and the same without `site`
 * (`-S -c pass`). Every demo execution pays the first: `.pth` files in site-packages run at each
 * start, so the gap says how much of the demo's python time is the interpreter's own set-up.
 */
function pythonFacts(): { version: string; startMs: number; noSiteMs: number } {
  const v = Bun.spawnSync([PYTHON as string, "--version"]);
  const version = `${v.stdout.toString()}${v.stderr.toString()}`.trim();
  return {
    version,
    startMs: fastestStartMs(["-c", "pass"]),
    noSiteMs: fastestStartMs(["-S", "-c", "pass"]),
  };
}

/**
 * One execution as the demo runs it: the base harness's script on a task's ledger, from its own
 * folder (minimum of 5). The floor's unit.
 */
function executionMs(): number {
  const script = join(DEMO_FIXTURES, "base-harness", "scripts", "summarize.py");
  const ledger = join(DEMO_FIXTURES, "tasks", "ledger-1", "ledger.csv");
  return fastestStartMs([script, ledger]);
}

/**
 * The floor of a demo at k: its executions spread over the cores, or the waves that must follow
 * one another, whichever is longer. Per task (tasks run one after the other): the base rollouts,
 * then the stage waves of the longer mode — sequential: an INV and DOM wave and a COMPOSE wave per
 * step (2k), parallel: INV/DOM and AGG (2) — each at least one execution long.
 */
function floorS(k: number, executions: number, execMs: number): number {
  const waves = 2 * (1 + Math.max(2, 2 * k));
  return Math.max((executions * execMs) / CORES, waves * execMs) / 1000;
}

const inputHash = (await hashDirectory(DEMO_FIXTURES, { algorithm: "sha256" })).slice(0, 16);
const py = pythonFacts();
const execMs = executionMs();
console.log(`demo bench — bun ${Bun.version}, ${RUNS} runs per k, minimum and median`);
console.log(
  `python: ${PYTHON} (${py.version}), bare start-up ${fmt(py.startMs, 1)} ms ` +
    `(${fmt(py.noSiteMs, 1)} ms without site: ${fmt(py.startMs - py.noSiteMs, 1)} ms of site set-up per execution)`,
);
console.log(`one execution of the demo's script: ${fmt(execMs, 1)} ms (minimum of 5)`);
console.log(`input: fixtures/demo (2 tasks, both modes), sha256/16 ${inputHash}; ${CORES} cores`);
console.log(machine());
if (AGAINST !== undefined) {
  const theirs = await hashDirectory(join(AGAINST, "fixtures", "demo"), { algorithm: "sha256" });
  console.log(`against ${AGAINST}: its fixtures/demo sha256/16 ${theirs.slice(0, 16)}`);
}

const verdicts: string[] = [];
const peakByK = new Map<number, number>();
for (const k of KS) {
  const samples: Sample[] = [];
  const others: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    samples.push(await runDemo(k));
    if (OTHER !== null) others.push(await runDemo(k, OTHER));
  }
  const wall = samples.map((s) => s.wallS);
  const best = min(wall);
  const rss = Math.max(...samples.map((s) => s.rssMiB));
  peakByK.set(k, rss);
  const floor = floorS(k, (samples[0] as Sample).executions, execMs);
  const multiple = best / floor;
  const self = min(samples.map((s) => s.selfCpuS));
  const total = min(samples.map((s) => s.cpuS));
  console.log("");
  console.log(
    `k=${k}: wall min ${fmt(best)} s, median ${fmt(median(wall))} s; floor ${fmt(floor)} s ` +
      `(${(samples[0] as Sample).executions} executions) → ${fmt(multiple)}× the floor`,
  );
  console.log(
    `      cpu min ${fmt(total)} s in all: harness2 itself ${fmt(self)} s, python children ${fmt(total - self)} s;` +
      ` peak RSS max ${fmt(rss, 1)} MiB; load average now ${load()}`,
  );
  const left = samples[0] as Sample;
  console.log(`      left ${left.files} files and ${left.dirs} folders in its runs folder`);
  if (others.length > 0) {
    const o = others[0] as Sample;
    const oSelf = min(others.map((x) => x.selfCpuS));
    const oWall = min(others.map((x) => x.wallS));
    console.log(
      `      against ${AGAINST}: wall min ${fmt(oWall)} s, harness2 itself ${fmt(oSelf)} s, ` +
        `${o.files} files and ${o.dirs} folders; this one's share: CPU ${fmt(self / oSelf)}, ` +
        `wall ${fmt(best / oWall)}, files ${fmt(left.files / o.files)}, folders ${fmt(left.dirs / o.dirs)}`,
    );
  }
  // The target is set at k=8, where the floor is made of executions rather than start-up.
  if (k === 8) {
    verdicts.push(
      `${multiple <= FLOOR_MULTIPLE_TARGET ? "PASS" : "FAIL"} demo k=8 wall ${fmt(multiple)}× the floor (target ≤ ${FLOOR_MULTIPLE_TARGET})`,
    );
  }
  verdicts.push(
    `${rss < RSS_LIMIT_MIB ? "PASS" : "FAIL"} demo k=${k} peak RSS ${fmt(rss, 1)} MiB (target < ${RSS_LIMIT_MIB} MiB)`,
  );
}
const ks = [...peakByK.keys()].sort((a, b) => a - b);
if (ks.length >= 2) {
  const lo = ks[0] as number;
  const hi = ks.at(-1) as number;
  const growth = ((peakByK.get(hi) as number) - (peakByK.get(lo) as number)) / (hi - lo);
  verdicts.push(
    `${growth <= RSS_GROWTH_LIMIT_MIB ? "PASS" : "FAIL"} peak RSS growth ${fmt(growth)} MiB per unit k from k=${lo} to k=${hi} (target ≤ ${RSS_GROWTH_LIMIT_MIB})`,
  );
}
console.log("");
for (const v of verdicts) console.log(v);
