// A small fake benchmark for the evidence-tree tests: task sources with an answer key and escaping
// symlinks, run folders whose grader output sits next to the trajectory, and hooks that can fail.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EventSink } from "../../src/core/events/sink.ts";
import type { Tree } from "../../src/core/harness/surface.ts";
import { writeTree } from "../../src/core/harness/tree.ts";
import type { TripwireContext } from "../../src/core/safety/tripwire.ts";
import { type BenchmarkAdapter, BenchSpec, type RunView } from "../../src/core/seams/benchmark.ts";
import type { SubstrateLike } from "../../src/core/seams/executor.ts";
import { testSurface } from "../helpers/surface.ts";

export const SURFACE = testSurface({
  stubs: [{ path: "skills/README.md", body: "<!-- skills go here -->\n" }],
});

export function put(root: string, rel: string, body: string | Uint8Array): string {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
  return path;
}

export type Failures = {
  trajectory?: Set<string>;
  deliverableFiles?: boolean;
  deliverableText?: boolean;
  images?: boolean;
  listing?: boolean;
};

/** A fake adapter: every hook reads one NAMED file of a run folder, never the folder itself. */
export class FakeAdapter implements BenchmarkAdapter {
  readonly substrate: SubstrateLike = { name: "oc", surface: () => SURFACE };
  readonly spec: BenchSpec;
  fail: Failures = {};
  files: Record<string, Record<string, string>> = {};
  images: Record<string, string[]> = {};
  assets: Record<string, string[]> = {};
  seenObsTrunc: number[] = [];

  constructor(
    readonly sourceDir: string | null,
    mode: "contents" | "names" = "contents",
    leakGlobs: string[] = ["reference_answer.txt", ".env", "tests/**"],
  ) {
    this.spec = BenchSpec.parse({
      name: "fake",
      runsRoot: "/tmp/unused",
      installMode: "workspace_config",
      prompts: { work: "Sum a ledger." },
      channels: {
        proposer: { kind: "opencode", model: "p/m" },
        selector: { kind: "opencode", model: "p/m" },
      },
      leakGlobs,
      proposerDeliverables: mode,
    });
    if (mode === "names") {
      this.deliverableListing = async (runDir: string) => {
        if (this.fail.listing) throw new Error("listing broke");
        return Object.keys(this.files[runDir] ?? { "answer.txt": "" });
      };
    }
  }

  async tasks(): Promise<string[]> {
    return ["ledger-1"];
  }
  domainOf(): string {
    return "accounting";
  }
  async taskPrompt(taskId: string): Promise<string> {
    return `Sum every signed amount in ledger.csv for ${taskId}.\n`;
  }
  async taskFiles(): Promise<string | null> {
    return this.sourceDir;
  }
  async execute(): Promise<string> {
    throw new Error("the evidence tree never executes");
  }
  async delivered(): Promise<boolean> {
    return true;
  }
  async trajectory(runDir: string, opts: { obsTrunc: number }): Promise<string> {
    if (this.fail.trajectory?.has(runDir)) throw new TypeError(`unreadable stream in ${runDir}`);
    this.seenObsTrunc.push(opts.obsTrunc);
    return readFileSync(join(runDir, "trajectory.md"), "utf8");
  }
  async deliverableText(runDir: string): Promise<string> {
    if (this.fail.deliverableText) throw new Error("reader crashed");
    return readFileSync(join(runDir, "answer.txt"), "utf8");
  }
  async deliverableFiles(runDir: string): Promise<Record<string, string>> {
    if (this.fail.deliverableFiles) throw new RangeError("extractor exploded");
    return this.files[runDir] ?? { "answer.txt": readFileSync(join(runDir, "answer.txt"), "utf8") };
  }
  async deliverableImages(runDir: string): Promise<string[]> {
    if (this.fail.images) throw new Error("no image reader");
    return this.images[runDir] ?? [];
  }
  async deliverableAssets(runDir: string): Promise<string[]> {
    return this.assets[runDir] ?? [];
  }
  deliverableListing?: (runDir: string) => Promise<string[]>;
  async baseHarness(): Promise<string> {
    return "/nonexistent";
  }
  async validateTree(): Promise<string[]> {
    return [];
  }
  async preflight(): Promise<void> {}
}

/** A run folder: a trajectory, a deliverable, and grader output the method must never read. */
export function makeRun(root: string, label: string, trajectory?: string): RunView {
  const runDir = join(root, "runs", label);
  put(
    runDir,
    "trajectory.md",
    trajectory ?? `[ACTION] run summarize.py (${label})\n[OBSERVATION] Total: 85.15\n`,
  );
  put(runDir, "answer.txt", `Total: 85.15 (${label})\n`);
  put(runDir, "grader/verdict.json", '{"pass_rate": 0.5, "passed_count": 1}');
  put(runDir, "deterministic_eval_summary.txt", "hidden");
  return {
    label,
    runId: `oc-seq2-ledger-1-${label}`,
    runDir,
    ok: true,
    delivered: true,
    usd: 0,
    priced: true,
    tokens: 0,
    wallS: 0,
    error: "",
  };
}

export const HARNESS: Tree = {
  "systemprompt.md": "You sum ledgers.\n",
  "guardrails.md": "Check signs.\n",
  "scripts/summarize.py": "print('total')\n",
};

export function makeHarness(root: string, name: string, tree: Tree = HARNESS): string {
  return writeTree(SURFACE, tree, join(root, "harnesses", name));
}

/** Task sources: input, answer key, a dotfile secret, and symlinks leading outside. */
export function makeSource(root: string): string {
  const src = join(root, "sources", "ledger-1");
  put(src, "ledger.csv", "amount\n10\n-2.5\n");
  put(src, "reference_answer.txt", '"pass_rate": 1\nTotal: 7.50\n');
  put(src, "notes/.env", "TOKEN=abc\n");
  put(src, "tests/test_total.py", "assert total == 7.5\n");
  put(src, "__pycache__/x.pyc", "junk");
  const outside = join(root, "outside");
  put(outside, "secret.txt", "TOP SECRET\n");
  symlinkSync(join(outside, "secret.txt"), join(src, "linked.txt"));
  symlinkSync(outside, join(src, "linked-dir"));
  return src;
}

/** The tripwire context of one sequential stage of the fixture's task, on a fixed clock. */
export function stageContext(sink: EventSink, stage: string): TripwireContext {
  return {
    sink,
    sweep: "sw",
    task: "ledger-1",
    domain: "accounting",
    mode: "seq",
    stage,
    clock: { now: () => 7 },
  };
}
