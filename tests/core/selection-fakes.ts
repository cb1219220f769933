// Test fakes for selection and reflection: a small benchmark adapter over run folders on disk and a
// scripted ProposerLike that replays replies (or ProposerErrors, or a user's interrupt during the
// call) and records what each call saw.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Tree } from "../../src/core/harness/surface.ts";
import { writeTree } from "../../src/core/harness/tree.ts";
import { InterruptedError } from "../../src/core/lib/interrupt.ts";
import { walkFiles } from "../../src/core/lib/safe-fs.ts";
import { type BenchmarkAdapter, BenchSpec, RunView } from "../../src/core/seams/benchmark.ts";
import {
  type CallOptions,
  ProposerError,
  type ProposerLike,
  type Reply,
} from "../../src/core/seams/channel.ts";
import { testSurface } from "../helpers/surface.ts";

export const SURFACE = testSurface({ name: "opencode" });

export type FakeRun = {
  label: string;
  /** Deliverable text; undefined = none written. */
  out?: string;
  trajectory?: string;
  ok?: boolean;
  delivered?: boolean;
  /** deliverableText throws this message. */
  renderError?: string;
  /** Asset files: name → content, returned by deliverableAssets. */
  assets?: Record<string, string>;
};

export type FakeAdapterOptions = {
  root: string;
  stateDeliverable?: boolean;
  taskPrompt?: string;
  baseTree?: Tree;
  /** Sets `deliverableAssetsReferenceOnly`: the assets are raw original files, not rendered evidence. */
  assetsReferenceOnly?: boolean;
};

/** A benchmark adapter over `<root>/runs/<label>/` folders, with a source folder holding an answer key. */
export class FakeAdapter implements BenchmarkAdapter {
  readonly spec: BenchSpec;
  readonly substrate = { name: "oc", surface: () => SURFACE };
  readonly renderErrors = new Map<string, string>();
  readonly assets = new Map<string, string[]>();
  private readonly sourceDir: string;
  private readonly baseDir: string;

  constructor(private readonly o: FakeAdapterOptions) {
    this.spec = BenchSpec.parse({
      name: "fake",
      runsRoot: join(o.root, "runs-root"),
      installMode: "workspace_config",
      prompts: {
        work: "Reconcile a small ledger against its bank statement.",
        deliverableWord: "reconciliation",
      },
      channels: {
        proposer: { kind: "opencode", model: "p/m" },
        selector: { kind: "opencode", model: "p/m" },
      },
      leakGlobs: ["RUBRICS.json"],
      stateDeliverable: o.stateDeliverable ?? false,
    });
    this.sourceDir = join(o.root, "source");
    mkdirSync(this.sourceDir, { recursive: true });
    writeFileSync(join(this.sourceDir, "ledger.csv"), "date,amount\n2026-01-01,10\n");
    writeFileSync(join(this.sourceDir, "RUBRICS.json"), '{"answer": 42}');
    this.baseDir = join(o.root, "base-harness");
    writeTree(SURFACE, o.baseTree ?? { "systemprompt.md": "base prompt\n" }, this.baseDir, {
      stubs: false,
    });
  }

  /** Writes the run folders and returns their RunViews, keyed by label. */
  makeRuns(runs: readonly FakeRun[]): Map<string, RunView> {
    const out = new Map<string, RunView>();
    for (const r of runs) {
      const dir = join(this.o.root, "runs", r.label);
      mkdirSync(dir, { recursive: true });
      if (r.out !== undefined) writeFileSync(join(dir, "out.md"), r.out);
      writeFileSync(join(dir, "trajectory.md"), r.trajectory ?? `[ACTION] wrote the file\n`);
      // What a grader would leave in the run folder: selection must never show it.
      writeFileSync(join(dir, "verdict.json"), '{"pass_rate": 0.5}');
      if (r.renderError) this.renderErrors.set(dir, r.renderError);
      if (r.assets) {
        const paths: string[] = [];
        for (const [name, body] of Object.entries(r.assets)) {
          writeFileSync(join(dir, name), body);
          paths.push(join(dir, name));
        }
        this.assets.set(dir, paths);
      }
      out.set(
        r.label,
        RunView.parse({
          label: r.label,
          runId: `fake-oc-agg/t1/${r.label}`,
          runDir: dir,
          ok: r.ok ?? true,
          delivered: r.delivered ?? r.out !== undefined,
        }),
      );
    }
    return out;
  }

  async tasks(): Promise<string[]> {
    return ["t1"];
  }
  domainOf(): string {
    return "ledgers";
  }
  async taskPrompt(): Promise<string> {
    return this.o.taskPrompt ?? "Reconcile ledger.csv and write the result.";
  }
  async taskFiles(): Promise<string | null> {
    return this.sourceDir;
  }
  async execute(): Promise<string> {
    throw new Error("the fake adapter never executes");
  }
  async delivered(runDir: string): Promise<boolean> {
    return walkFiles(runDir).includes("out.md");
  }
  async trajectory(runDir: string): Promise<string> {
    return readFileSync(join(runDir, "trajectory.md"), "utf8");
  }
  async deliverableText(runDir: string): Promise<string> {
    const err = this.renderErrors.get(runDir);
    if (err) throw new Error(err);
    try {
      return readFileSync(join(runDir, "out.md"), "utf8");
    } catch {
      return "";
    }
  }
  get deliverableAssetsReferenceOnly(): boolean | undefined {
    return this.o.assetsReferenceOnly;
  }
  async deliverableAssets(runDir: string): Promise<string[]> {
    return this.assets.get(runDir) ?? [];
  }
  async baseHarness(): Promise<string> {
    return this.baseDir;
  }
  async validateTree(): Promise<string[]> {
    return [];
  }
  async preflight(): Promise<void> {}
}

/**
 * One scripted call: a reply, a ProposerError, or `interrupt`: the user interrupts while the
 * session runs (the controller is aborted), and the call ends as a killed session does — an
 * InterruptedError from the real Proposer (`failAs: "interrupted"`, the default) or, from a
 * channel that only reports a failure, a ProposerError (`failAs: "transport"`). It checks that
 * the call was given the controller's signal.
 */
export type Scripted =
  | string
  | { text: string; usd?: number }
  | ProposerError
  | { interrupt: AbortController; usd?: number; failAs?: "interrupted" | "transport" };

export type SeenCall = {
  mission: string;
  label: string;
  opts: CallOptions;
  /** Every file of the context folder at call time: relative path → content. */
  files: Record<string, string>;
};

/** Replays scripted replies in order; throws when the script runs out. */
export class ScriptedProposer implements ProposerLike {
  readonly channelKind = "scripted";
  readonly model = "scripted/model";
  readonly calls: SeenCall[] = [];

  constructor(private readonly script: Scripted[]) {}

  async call(
    mission: string,
    contextDir: string | null,
    label: string,
    opts: CallOptions = {},
  ): Promise<Reply> {
    const files: Record<string, string> = {};
    if (contextDir !== null) {
      for (const rel of walkFiles(contextDir)) {
        files[rel] = readFileSync(join(contextDir, rel), "utf8");
      }
    }
    this.calls.push({ mission, label, opts, files });
    const next = this.script.shift();
    if (next === undefined) throw new Error(`no scripted reply left for ${label}`);
    if (next instanceof ProposerError) throw next;
    if (typeof next !== "string" && "interrupt" in next) {
      if (opts.signal !== next.interrupt.signal) throw new Error(`${label} got no abort signal`);
      next.interrupt.abort();
      if (next.failAs === "transport") {
        throw new ProposerError(`[${label}] rc=143: killed`, 1, next.usd ?? 0, label);
      }
      throw new InterruptedError(`[${label}] interrupted`, next.usd ?? 0);
    }
    const { text, usd } = typeof next === "string" ? { text: next, usd: 0.25 } : next;
    return {
      label,
      text,
      usd: usd ?? 0.25,
      wallS: 1,
      attempts: 1,
      cached: false,
      channel: this.channelKind,
      model: this.model,
      audit: "",
      workspace: null,
    };
  }
}

export const fixedClock = () => {
  let t = 1_000;
  return { now: () => ++t };
};
