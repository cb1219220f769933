// The test suite as a bench (issue 36): the README's second command (`bun .ci/test-all.ts`: the
// typecheck, the linter, every test file) run on this checkout, idle or beside CPU-bound
// processes, with what it took and what it found. For each run it reports:
// - the wall clock, and the CPU of the suite's whole process tree as the kernel counts it when the
//   suite is reaped (wait4: every descendant that was waited for), user and system;
// - the closing `N passed, N failed` line and the name of every failed test;
// - the CPU seen per kind of process (OpenCode, Codex, python, the CLI, the test workers, …),
//   sampled from /proc every SAMPLE_MS: a lower bound, since a process that starts and ends
//   between two samples is not seen; what sampling missed is printed as the difference.
// Prints figures and PASS/FAIL lines against issue 36's targets; never asserts, never run by tests.
//   node_modules/.bin/bun bench/suite.ts [--runs N] [--loaded M] [--workers W]
// --loaded M starts M `while :; do :; done` shells beside every run (the "loaded" runs).

import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { basename, resolve } from "node:path";
import { load, machine, median, min } from "./stats.ts";

/** Issue 36: the suite idle in at most this many seconds, and no failure in the loaded runs. */
const TARGET_IDLE_S = 300;
const SAMPLE_MS = 250;
/** Kinds of process below this many CPU seconds are printed as one line. */
const SMALL_S = 1;
const ROOT = resolve(import.meta.dir, "..");

function numberArg(name: string, fallback: number, least: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < least) {
    console.error(`${name} needs a whole number of at least ${least}, got ${process.argv[i + 1]}`);
    process.exit(2);
  }
  return n;
}
const RUNS = numberArg("--runs", 1, 1);
const LOADED = numberArg("--loaded", 0, 0);
const WORKERS = numberArg("--workers", 0, 0);

const git = (...args: string[]) =>
  Bun.spawnSync(["git", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "ignore",
  }).stdout.toString();

/** What was tested: the commit, plus a hash of any change to it the work tree holds. */
function inputs(): string {
  const head = git("rev-parse", "HEAD").trim().slice(0, 12) || "(no commit)";
  // (A node_modules that is a link to another checkout's is not a change to what is tested.)
  const status = git("status", "--porcelain")
    .split("\n")
    .filter((l) => l !== "" && l !== "?? node_modules")
    .join("\n");
  const changes = status + git("diff", "HEAD");
  const dirty =
    changes === ""
      ? "no uncommitted change"
      : `uncommitted changes sha256/16 ${new Bun.CryptoHasher("sha256").update(changes).digest("hex").slice(0, 16)}`;
  const files = git("ls-files", "tests")
    .split("\n")
    .filter((f) => /\.test\.tsx?$/.test(f)).length;
  return `input: commit ${head}, ${dirty}; ${files} test files`;
}

// ── the process tree, sampled ──────────────────────────────────────────────────────────────────

type Seen = { kind: string; ticks: number };
const HZ = 100; // USER_HZ: /proc reports CPU in clock ticks of 1/100 s on Linux

/** The kind a process is counted under, from its command name and command line. */
function kindOf(comm: string, argv: string[]): string {
  const exe = basename(argv[0] ?? "");
  const all = `${comm} ${exe}`;
  if (/opencode/.test(all)) return "opencode";
  if (/codex/.test(all)) return "codex";
  if (/claude/.test(all)) return "claude";
  if (/^python/.test(comm) || /^python/.test(exe)) return "python";
  if (/^(postgres|pg_ctl|initdb|runuser)/.test(comm)) return "postgres";
  if (/^(tsgo|biome)/.test(comm) || /tsgo|biome/.test(argv[1] ?? "")) return "typecheck and lint";
  if (/^bun/.test(comm) || /^bun/.test(exe)) {
    if (argv.some((a) => a.endsWith("src/cli/main.ts"))) return "bun: harness2 CLI runs";
    if (argv.includes("test") || argv.some((a) => a.endsWith(".ci/test-all.ts")))
      return "bun: test runner and its workers";
    const script = argv.slice(1).find((a) => /\.(ts|tsx|js|mjs)$/.test(a));
    return `bun: ${script ? basename(script) : argv.slice(1, 3).join(" ") || "other"}`;
  }
  return `other (${comm})`;
}

/**
 * Samples /proc while the suite runs. A process belongs to the suite when the suite's pid is
 * among its ancestors, or (for a daemon that outlived its parent, like a test's PostgreSQL) when
 * its environment carries the run's marker.
 */
class Sampler {
  readonly seen = new Map<string, Seen>();
  private readonly member = new Map<string, boolean>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly rootPid: number,
    private readonly marker: string,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    const stats = new Map<number, { key: string; ppid: number; comm: string; ticks: number }>();
    for (const name of readdirSync("/proc")) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      try {
        const s = readFileSync(`/proc/${pid}/stat`, "utf8");
        const close = s.lastIndexOf(")");
        const f = s.slice(close + 2).split(" ");
        // Fields after the name: state ppid … utime(12) stime(13) … starttime(20), 1-based from state.
        stats.set(pid, {
          key: `${pid}:${f[19]}`,
          ppid: Number(f[1]),
          comm: s.slice(s.indexOf("(") + 1, close),
          ticks: Number(f[11]) + Number(f[12]),
        });
      } catch {
        // Gone between the listing and the read.
      }
    }
    for (const [pid, st] of stats) {
      if (!this.isMember(pid, st.key, stats)) continue;
      const known = this.seen.get(st.key);
      if (known) known.ticks = Math.max(known.ticks, st.ticks);
      else this.seen.set(st.key, { kind: kindOf(st.comm, this.argvOf(pid)), ticks: st.ticks });
    }
  }

  private isMember(
    pid: number,
    key: string,
    stats: Map<number, { key: string; ppid: number }>,
  ): boolean {
    const known = this.member.get(key);
    if (known !== undefined) return known;
    let yes = false;
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      if (p === this.rootPid) {
        yes = true;
        break;
      }
      const up = stats.get(p);
      if (!up) break;
      p = up.ppid;
    }
    if (!yes) {
      try {
        yes = readFileSync(`/proc/${pid}/environ`, "latin1").includes(this.marker);
      } catch {
        yes = false;
      }
    }
    this.member.set(key, yes);
    return yes;
  }

  private argvOf(pid: number): string[] {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    } catch {
      return [];
    }
  }

  /** CPU seconds and process counts per kind, largest first. */
  byKind(): { kind: string; cpuS: number; processes: number }[] {
    const out = new Map<string, { cpuS: number; processes: number }>();
    for (const s of this.seen.values()) {
      const row = out.get(s.kind) ?? { cpuS: 0, processes: 0 };
      row.cpuS += s.ticks / HZ;
      row.processes += 1;
      out.set(s.kind, row);
    }
    return [...out].map(([kind, r]) => ({ kind, ...r })).sort((a, b) => b.cpuS - a.cpuS);
  }
}

// ── one run ────────────────────────────────────────────────────────────────────────────────────

type Run = {
  wallS: number;
  userS: number;
  systemS: number;
  passed: number;
  failed: number;
  skipped: number;
  code: number;
  failures: string[];
  kinds: { kind: string; cpuS: number; processes: number }[];
};

async function runSuite(index: number): Promise<Run> {
  const marker = `BENCH_SUITE_RUN=${process.pid}-${index}-${Date.now()}`;
  const [name, value] = marker.split("=") as [string, string];
  const env: Record<string, string | undefined> = { ...process.env, [name]: value };
  if (WORKERS > 0) env.HARNESS2_TEST_WORKERS = String(WORKERS);
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, ".ci/test-all.ts"], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const sampler = new Sampler(proc.pid, marker);
  sampler.start();
  let tail = "";
  const failures: string[] = [];
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith("(fail)") || /: FAILED \(/.test(line)) failures.push(line);
        tail = `${tail}${line}\n`.slice(-4000);
      }
    }
    tail = `${tail}${pending}`.slice(-4000);
  };
  await Promise.all([read(proc.stdout), read(proc.stderr)]);
  const code = await proc.exited;
  const wallS = (performance.now() - t0) / 1000;
  sampler.stop();
  const usage = proc.resourceUsage();
  const closing = [...tail.matchAll(/^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].pop();
  return {
    wallS,
    userS: usage ? Number(usage.cpuTime.user) / 1e6 : Number.NaN,
    systemS: usage ? Number(usage.cpuTime.system) / 1e6 : Number.NaN,
    passed: Number(closing?.[1] ?? 0),
    // No closing line is a failed run, whatever else it printed.
    failed: closing ? Number(closing[2]) : 1,
    skipped: Number(closing?.[3] ?? 0),
    code,
    failures,
    kinds: sampler.byKind(),
  };
}

// ── main ───────────────────────────────────────────────────────────────────────────────────────

const fmt = (n: number, d = 1) => n.toFixed(d);
const cores = cpus().length;

console.log(
  `suite bench: ${RUNS} run(s) of \`bun .ci/test-all.ts\`${LOADED > 0 ? `, each beside ${LOADED} CPU-bound shell(s)` : ", idle"}` +
    `${WORKERS > 0 ? `, HARNESS2_TEST_WORKERS=${WORKERS}` : ""}`,
);
console.log(machine());
console.log(inputs());

const burners: ReturnType<typeof Bun.spawn>[] = [];
const stopBurners = () => {
  for (const b of burners.splice(0)) b.kill("SIGKILL");
};
process.on("SIGINT", () => {
  stopBurners();
  process.exit(130);
});

const runs: Run[] = [];
try {
  for (let i = 0; i < RUNS; i++) {
    for (let b = 0; b < LOADED; b++) {
      burners.push(
        Bun.spawn(["sh", "-c", "while :; do :; done"], { stdout: "ignore", stderr: "ignore" }),
      );
    }
    const r = await runSuite(i);
    stopBurners();
    runs.push(r);
    const cpu = r.userS + r.systemS;
    console.log(
      `run ${i + 1}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped (exit ${r.code}); ` +
        `wall ${fmt(r.wallS)} s; CPU ${fmt(cpu)} s (${fmt(r.userS)} user + ${fmt(r.systemS)} system), ` +
        `${fmt(cpu / r.wallS, 2)} of ${cores} cores busy on average; load average now ${load()}`,
    );
    for (const f of r.failures) console.log(`  ${f}`);
    const sampled = r.kinds.reduce((s, k) => s + k.cpuS, 0);
    console.log(`  CPU by kind of process, sampled every ${SAMPLE_MS} ms (a lower bound):`);
    const row = (cpuS: number, processes: number, what: string) =>
      console.log(
        `    ${fmt(cpuS).padStart(7)} s  ${String(processes).padStart(5)} processes  ${what}`,
      );
    const small = r.kinds.filter((k) => k.cpuS < SMALL_S);
    for (const k of r.kinds) if (k.cpuS >= SMALL_S) row(k.cpuS, k.processes, k.kind);
    if (small.length > 0) {
      const sum = (f: (k: (typeof small)[number]) => number) => small.reduce((s, k) => s + f(k), 0);
      row(
        sum((k) => k.cpuS),
        sum((k) => k.processes),
        `${small.length} other kinds, each under ${SMALL_S} s`,
      );
    }
    console.log(
      `    ${fmt(cpu - sampled).padStart(7)} s  not seen by sampling (short-lived processes)`,
    );
  }
} finally {
  stopBurners();
}

const walls = runs.map((r) => r.wallS);
const failed = runs.reduce((s, r) => s + r.failed, 0);
console.log(
  `wall: min ${fmt(min(walls))} s, median ${fmt(median(walls))} s over ${runs.length} run(s); ${failed} failure(s) in all`,
);
if (LOADED === 0) {
  const verdict = min(walls) <= TARGET_IDLE_S ? "PASS" : "FAIL";
  console.log(
    `${verdict} suite idle in ≤ ${TARGET_IDLE_S} s: ${fmt(min(walls))} s (best of ${runs.length})`,
  );
} else {
  const verdict = failed === 0 && runs.length >= 3 ? "PASS" : "FAIL";
  console.log(
    `${verdict} 0 failures in 3 loaded runs: ${failed} failure(s) in ${runs.length} run(s) beside ${LOADED} CPU-bound shell(s)`,
  );
}
