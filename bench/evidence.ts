// Evidence benchmark (bench/README.md): the grader-verdict scan and the call fingerprint of the
// 200-file / 50 MiB corpus, and evidence builds with one and six 8,000,000-character trajectories,
// on the shared generators' byte-identical inputs. Prints figures and PASS/FAIL; never asserts.
//   node_modules/.bin/bun bench/evidence.ts [--runs N] [--shared DIR]

import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_FIXTURES } from "../src/benchmarks/demo/demo-adapter.ts";
import { NULL_SINK, SYSTEM_CLOCK } from "../src/core/events/sink.ts";
import { buildEvidenceTree, type EvidenceAdapter } from "../src/core/evidence/tree.ts";
import { walkFiles } from "../src/core/lib/safe-fs.ts";
import { Proposer } from "../src/core/proposer/proposer.ts";
import type { TripwireContext } from "../src/core/safety/tripwire.ts";
import { assertNoGraderVerdicts } from "../src/core/safety/tripwires.ts";
import { BenchSpec, RunView } from "../src/core/seams/benchmark.ts";
import type { Channel } from "../src/core/seams/channel.ts";
import { ChannelSpec } from "../src/core/seams/channel-spec.ts";
import { OPENCODE_SURFACE } from "../src/substrate/opencode/surface.ts";
import { load, machine, median, min } from "./stats.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(1, Number(arg("--runs") ?? 5));
// In CI and here the shared folder sits next to the repository.
const SHARED = resolve(arg("--shared") ?? join(import.meta.dir, "../../shared"));
const GENERATORS = join(SHARED, "bench-inputs");

/**
 * The SHA-256 the generators produced with their default arguments when this bench was written
 * (2026-11-30); a different value means the inputs changed and figures are no longer comparable.
 */
const PINNED = {
  corpus: "c3087b53d60333edc0e32d26e75419c58b1874bc9dc7c2c225fae682b0dd0cd4",
  trajectory: "f810f8a04cf290fd21656239d02dee0afe66f1654b311f03c4b4671e5e50b29f",
};

const MiB = 1024 * 1024;
const fmt = (n: number, digits = 3) => n.toFixed(digits);

async function timed(fn: () => unknown | Promise<unknown>): Promise<number[]> {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    xs.push((performance.now() - t0) / 1000);
  }
  return xs;
}

function generate(script: string, out: string): string {
  const proc = Bun.spawnSync(["python3", join(GENERATORS, script), out], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const text = proc.stdout.toString();
  if (proc.exitCode !== 0) throw new Error(`${script} failed: ${proc.stderr.toString()}`);
  const m = /sha256\([^)]*\) = ([0-9a-f]{64})/.exec(text);
  if (!m) throw new Error(`${script} printed no sha256:\n${text}`);
  return m[1] as string;
}

function sha256OfFiles(paths: readonly string[]): string {
  const h = createHash("sha256");
  for (const p of paths) h.update(readFileSync(p));
  return h.digest("hex");
}

function checkHash(what: string, printed: string, ours: string, pinned: string): void {
  if (printed !== ours) {
    throw new Error(`${what}: the generator printed ${printed}, the files hash to ${ours}`);
  }
  const note = ours === pinned ? "= pinned" : `DIFFERS from the pinned ${pinned.slice(0, 16)}…`;
  console.log(`input: ${what} sha256 ${ours} (${note})`);
}

if (!existsSync(join(GENERATORS, "gen_corpus.py"))) {
  console.error(`no input generators in ${GENERATORS}: pass --shared DIR (the shared folder)`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), "h2-bench-evidence-"));
try {
  console.log(`evidence bench — bun ${Bun.version}, ${RUNS} runs each, minimum and median`);
  console.log(`generators: ${GENERATORS}`);

  // ── inputs ────────────────────────────────────────────────────────────────────────────────
  const corpus = join(work, "corpus");
  const corpusPrinted = generate("gen_corpus.py", corpus);
  const manifest = readFileSync(join(work, "corpus.manifest.sha256"), "utf8").trim().split("\n");
  const corpusFiles = manifest.map((line) => join(corpus, line.slice(66)));
  for (const [i, line] of manifest.entries()) {
    const want = line.slice(0, 64);
    const got = createHash("sha256")
      .update(readFileSync(corpusFiles[i] as string))
      .digest("hex");
    if (got !== want) throw new Error(`corpus file ${line.slice(66)} does not match its manifest`);
  }
  checkHash(
    "corpus (200 files, concatenated in manifest order)",
    corpusPrinted,
    sha256OfFiles(corpusFiles),
    PINNED.corpus,
  );
  const corpusBytes = corpusFiles.reduce((n, p) => n + Bun.file(p).size, 0);
  const run = join(work, "run");
  const trajPrinted = generate("gen_trajectory.py", run);
  const trajectoryPath = join(run, "trajectory.md");
  checkHash(
    "trajectory.md (8,000,000 chars)",
    trajPrinted,
    sha256OfFiles([trajectoryPath]),
    PINNED.trajectory,
  );
  console.log(machine());

  const ctx: TripwireContext = {
    sink: NULL_SINK,
    clock: SYSTEM_CLOCK,
    sweep: "bench",
    stage: "bench",
  };
  const verdicts: string[] = [];
  /** Bytes-per-second of reading here and now: the yardstick once the reference has run. */
  let readPerByte: number | null = null;
  /** Prints one figure measured in this run. */
  const report = (name: string, xs: number[], bytes: number) => {
    // Only what this run measured: the time, the throughput, and (once the references exist) the
    // multiple of reading the same number of bytes here and now.
    const best = min(xs);
    const perRead =
      readPerByte === null
        ? ""
        : `; ${fmt(best / (readPerByte * bytes), 2)}× reading as many bytes`;
    console.log(
      `${name}: min ${fmt(best)} s, median ${fmt(median(xs))} s → ${fmt(bytes / MiB / best, 0)} MiB/s${perRead} (load ${load()})`,
    );
    return best;
  };
  console.log("");

  // ── disk and hash reference: what "at disk speed" means on this machine right now ────────────
  const buf = Buffer.allocUnsafe(MiB);
  const readAll = await timed(() => {
    for (const p of corpusFiles) {
      const fd = openSync(p, "r");
      while (readSync(fd, buf, 0, buf.length, null) > 0) {}
      closeSync(fd);
    }
  });
  const hashOnly = await timed(() => {
    const h = createHash("sha256");
    for (let i = 0; i < corpusBytes / MiB; i++) h.update(buf);
    h.digest();
  });
  const refRead = report("reference: read the corpus (page cache)", readAll, corpusBytes);
  const refHash = report("reference: sha-256 of 50 MiB in memory", hashOnly, corpusBytes);
  readPerByte = refRead / corpusBytes;

  // ── grader-verdict scan ───────────────────────────────────────────────────────────────────
  const scan = await timed(() => assertNoGraderVerdicts(corpus, ctx));
  report("grader-verdict scan, 200 files / 50 MiB", scan, corpusBytes);

  // ── call fingerprint (the proposer's cache key over the same folder) ───────────────────────
  const channel: Channel = {
    kind: "bench",
    run: async () => ({ text: "", usd: 0, error: "unused", timedOut: false }),
  };
  const proposer = new Proposer({
    channel,
    spec: ChannelSpec.parse({ kind: "opencode", model: "bench/model" }),
    auditDir: null,
    runsRoot: work,
  });
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const fingerprint = await timed(() => proposer.cacheKey("bench", "mission", "", corpus));
  const peakGrowth = (process.resourceUsage().maxRSS * 1024 - peakBefore) / MiB;
  // The target for fingerprinting (bench/README.md, "The targets") is streaming at disk speed.
  // Read and hash cannot overlap in one SHA-256 stream: "disk speed" is their sum.
  const fp = report("call fingerprint (Proposer.cacheKey), same folder", fingerprint, corpusBytes);
  const diskSpeed = refRead + refHash;
  console.log(
    `  peak RSS ${fmt(peakBefore / MiB, 1)} → ${fmt(peakBefore / MiB + peakGrowth, 1)} MiB while fingerprinting ${fmt(corpusBytes / MiB, 0)} MiB`,
  );
  verdicts.push(
    `${peakGrowth < 16 ? "PASS" : "FAIL"} call fingerprint holds no tree in memory: peak RSS +${fmt(peakGrowth, 1)} MiB (target < 16 MiB)`,
    `${fp <= diskSpeed * 1.25 ? "PASS" : "FAIL"} call fingerprint ${fmt(fp)} s vs read + hash ${fmt(diskSpeed)} s` +
      " (target: streams at disk speed, within 25 %)",
  );

  // ── evidence builds ───────────────────────────────────────────────────────────────────────
  const adapter: EvidenceAdapter = {
    spec: BenchSpec.parse({
      name: "bench",
      runsRoot: work,
      installMode: "workspace_config",
      prompts: { work: "reconcile signed amounts in a transaction ledger and report the total" },
      channels: {
        proposer: { kind: "opencode", model: "bench/model" },
        selector: { kind: "opencode", model: "bench/model" },
      },
      leakGlobs: ["reference_answer.txt"],
    }),
    taskPrompt: async () =>
      readFileSync(join(DEMO_FIXTURES, "tasks/accounting/ledger-1/task.md"), "utf8"),
    taskFiles: async () => join(DEMO_FIXTURES, "tasks/accounting/ledger-1"),
    // Same decoding as readFileSync(path, "utf8"), which Bun runs several times slower on MBs.
    trajectory: async (runDir) => readFileSync(join(runDir, "trajectory.md")).toString("utf8"),
    deliverableText: async (runDir) => readFileSync(join(runDir, "answer.txt"), "utf8"),
    deliverableFiles: async (runDir) => ({
      "answer.txt": readFileSync(join(runDir, "answer.txt"), "utf8"),
    }),
  };
  const views = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      RunView.parse({
        label: `r${i + 1}`,
        runId: `bench/r${i + 1}`,
        runDir: run,
        ok: true,
        delivered: true,
      }),
    );
  const trajectoryChars = 8_000_000;
  for (const n of [1, 6] as const) {
    // Each build gets a fresh destination: wiping the previous build's 8 MB files would add the
    // disk's delete cost to every run but the first. And fresh RunViews: a build reads each run
    // once per RunView (docs/architecture.md "Evidence written once"), so views kept from the
    // previous build would be served from memory, not read.
    let run = 0;
    const dest = () => join(work, `context-${n}-${run}`);
    const xs = await timed(async () => {
      run++;
      await buildEvidenceTree(dest(), adapter, "ledger-1", views(n), {
        ...ctx,
        surface: OPENCODE_SURFACE,
        harnessDir: join(DEMO_FIXTURES, "base-harness"),
      });
    });
    const files = walkFiles(dest()).length;
    report(
      `evidence build, ${n} × 8,000,000-char trajectory (${files} files)`,
      xs,
      n * trajectoryChars,
    );
  }

  console.log("");
  for (const v of verdicts) console.log(v);
} finally {
  rmSync(work, { recursive: true, force: true });
}
