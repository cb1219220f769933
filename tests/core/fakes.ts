// Test fakes for recursion, scheduler and resume: an adapter whose `execute` writes a real
// deliverable derived from the harness it ran on (with run marks, so finished rollouts are
// reused), and a scripted ProposerLike that edits the harvested `context/harness/` copy.

import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { RecordingSink } from "../../src/core/events/sink.ts";
import { type Tree, writeTree } from "../../src/core/harness/tree.ts";
import { hashDirectory, treeFingerprint } from "../../src/core/lib/fingerprint.ts";
import { isOutputIntact, isRunComplete, writeRunMark } from "../../src/core/rollout/runmark.ts";
import type { ScheduleLimits } from "../../src/core/schedule/index.ts";
import { BenchPrompts } from "../../src/core/seams/bench-prompts.ts";
import {
  type BenchmarkAdapter,
  BenchSpec,
  type ExecuteOptions,
} from "../../src/core/seams/benchmark.ts";
import {
  type CallOptions,
  ProposerError,
  type ProposerLike,
  type Reply,
} from "../../src/core/seams/channel.ts";
import { ChannelSpec } from "../../src/core/seams/channel-spec.ts";
import { OPENCODE_BASELINE_TREE, OPENCODE_SURFACE } from "../../src/substrate/opencode/surface.ts";
import { takeTestTempDirs, testTempDir } from "../helpers/temp.ts";

export const SURFACE = OPENCODE_SURFACE;

/** The scheduler limits the method tests run with (the original's defaults, one domain at once). */
export const LIMITS: ScheduleLimits = {
  phaseWidth: 2,
  stageAttempts: 2,
  transportAttempts: 2,
  proposerTimeoutS: 60,
  rolloutTimeoutS: null,
  domainWorkers: 1,
};

/** A fresh temporary directory under the repository's ignored `.tmp/` (see removeTempDirs). */
export function tempDir(prefix: string): string {
  const root = join(import.meta.dir, "..", "..", ".tmp");
  mkdirSync(root, { recursive: true });
  return testTempDir(`core-${prefix}-`, root);
}

/**
 * Removes every directory tempDir (and tests/helpers/temp.ts) made so far: call it from afterAll.
 * The trees hold thousands of small files and deleting them is slow on some disks, so an `rm` in
 * its own session does it while the tests go on (the directories are unique, so nothing waits for
 * it). Its own session, because a parallel test worker's process group is ended with the worker:
 * an `rm` left in it was killed half done, and `.tmp/` grew by a gigabyte a run.
 */
export function removeTempDirs(): void {
  const dirs = takeTestTempDirs();
  if (dirs.length === 0) return;
  Bun.spawn(["rm", "-rf", "--", ...dirs], {
    stdio: ["ignore", "ignore", "ignore"],
    detached: true,
  }).unref();
}

/** A promise resolved by hand: tests wait on readiness, never on time. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((r) => {
    open = r;
  });
  return { wait, open };
}

/** A clock that advances one millisecond per reading (ordered, deterministic timestamps). */
export function stepClock(start = 1_700_000_000_000): { now: () => number } {
  let t = start;
  return { now: () => t++ };
}

export type FakeAdapterOptions = {
  root: string;
  /** task id → domain */
  tasks: Record<string, string>;
  /** Labels (last run-id segment) whose execution throws. */
  failLabels?: Set<string>;
  /** Extra problems `validateTree` reports for a tree. */
  treeProblems?: (tree: Tree) => string[];
  /** Executor cost written into each run mark. */
  rolloutUsd?: number;
  /** Called inside execute (after counting), e.g. to hold executions at a gate. */
  onExecute?: (runId: string) => Promise<void>;
};

/**
 * Executes by writing `output/answer.txt` = the harness's first LongTermMEMORY.md line (or
 * "base"), plus a trajectory. Reuses a run whose mark matches the harness and whose output is
 * intact, like a real adapter.
 */
export class FakeAdapter implements BenchmarkAdapter {
  readonly spec: BenchSpec;
  readonly substrate = { name: "oc", surface: () => SURFACE };
  readonly executed: string[] = [];
  active = 0;
  peak = 0;
  readonly #base: string;

  constructor(readonly opts: FakeAdapterOptions) {
    const channel = ChannelSpec.parse({ kind: "opencode", model: "local/fake" });
    this.spec = BenchSpec.parse({
      name: "fake",
      runsRoot: join(opts.root, "store"),
      installMode: "workspace_config",
      prompts: BenchPrompts.parse({ work: "total the signed amounts of a ledger" }),
      channels: { proposer: channel, selector: channel },
      leakGlobs: ["answer_key.txt"],
    });
    this.#base = join(opts.root, "base-harness");
    if (!existsSync(this.#base)) writeTree(SURFACE, { ...OPENCODE_BASELINE_TREE }, this.#base);
  }

  async tasks(): Promise<string[]> {
    return Object.keys(this.opts.tasks);
  }

  domainOf(taskId: string): string {
    return this.opts.tasks[taskId] ?? "unknown";
  }

  async taskPrompt(taskId: string): Promise<string> {
    return `Total the ledger of ${taskId} and write the total to answer.txt.`;
  }

  async baseHarness(): Promise<string> {
    return this.#base;
  }

  runDirOf(runId: string): string {
    return join(this.spec.runsRoot, runId.replaceAll("/", "__"));
  }

  async execute(
    _taskId: string,
    harnessDir: string | null,
    runId: string,
    _opts?: ExecuteOptions,
  ): Promise<string> {
    const runDir = this.runDirOf(runId);
    const output = join(runDir, "output");
    const fp = await treeFingerprint(harnessDir);
    if ((await isRunComplete(runDir, fp)) && (await isOutputIntact(runDir, output))) return runDir;
    const label = runId.slice(runId.lastIndexOf("/") + 1);
    this.executed.push(runId);
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    try {
      await this.opts.onExecute?.(runId);
      if (this.opts.failLabels?.has(label)) {
        // like RolloutError: what the session spent before it died
        throw Object.assign(new Error(`executor crashed on ${label}`), { usd: 0.02 });
      }
      rmSync(runDir, { recursive: true, force: true });
      mkdirSync(output, { recursive: true });
      const memory =
        harnessDir === null
          ? ""
          : (readFileSync(join(harnessDir, "LongTermMEMORY.md"), "utf8").split("\n")[0] ?? "");
      const answer = memory.startsWith("<!--") || memory.trim() === "" ? "base" : memory.trim();
      writeFileSync(join(output, "answer.txt"), `${answer}\n`);
      writeFileSync(
        join(runDir, "trajectory.md"),
        `[ACTION] bash({"command": "python3 scripts/total.py"})\n[OBSERVATION] ${answer}\n`,
      );
      await writeRunMark(runDir, {
        runId,
        harnessFingerprint: fp,
        outputDir: output,
        extras: { usd: this.opts.rolloutUsd ?? 0.25 },
      });
      return runDir;
    } finally {
      this.active--;
    }
  }

  async delivered(runDir: string): Promise<boolean> {
    const p = join(runDir, "output", "answer.txt");
    return existsSync(p) && readFileSync(p, "utf8").trim() !== "";
  }

  async trajectory(runDir: string): Promise<string> {
    return readFileSync(join(runDir, "trajectory.md"), "utf8");
  }

  async deliverableText(runDir: string): Promise<string> {
    const p = join(runDir, "output", "answer.txt");
    return existsSync(p) ? readFileSync(p, "utf8") : "(no deliverable produced)";
  }

  async artifactsIntact(runDir: string): Promise<boolean> {
    return isOutputIntact(runDir, join(runDir, "output"));
  }

  async validateTree(tree: Tree): Promise<string[]> {
    return this.opts.treeProblems?.(tree) ?? [];
  }

  async preflight(): Promise<void> {}
}

// ── the scripted proposer ───────────────────────────────────────────────────────────────────

export type ScriptedCall = {
  label: string;
  mission: string;
  contextDir: string | null;
  opts: CallOptions;
};

/** What one scripted call does. */
export type Action =
  | {
      /** Edits the session's copy of `context/harness/` (the harvested directory). */
      edit?: (harness: string) => void;
      text?: string;
      usd?: number;
      attempts?: number;
      /** Return no harvested workspace. */
      noWorkspace?: boolean;
      /** Symlinks the harvest skipped, as the real proposer reports them. */
      skippedLinks?: string[];
    }
  | { fail: string; usd?: number; attempts?: number };

/** Appends one line to LongTermMEMORY.md (so the answer the fake executor writes changes). */
export function setMemory(line: string): (harness: string) => void {
  return (harness) => writeFileSync(join(harness, "LongTermMEMORY.md"), `${line}\n`);
}

/**
 * Default script: inv/dom/agg/c stages write `<label> memory` as the first memory line; a
 * selector picks the first id in its mission; a reflector writes a lesson.
 */
export function defaultAction(call: ScriptedCall): Action {
  const stage = call.label.split(".")[0] as string;
  if (stage === "select") {
    const id = /candidates\/([A-Z]+)\.md/.exec(call.mission)?.[1] ?? "A";
    return { text: `<why>it totals correctly</why>\n\`\`\`choice\n${id}\n\`\`\`` };
  }
  if (stage === "experience") {
    return {
      text:
        "<edits>\ncomponent: LongTermMEMORY.md\nverdict: helped\n</edits>\n<experience>\n" +
        "cue: signed ledgers\nlesson: keep negative amounts\nevidence: base dropped refunds\n" +
        "confidence: high\n</experience>",
    };
  }
  return {
    edit: setMemory(`${stage} memory`),
    text: `<notes>kept ${stage}: memory line</notes>`,
    usd: 0.5,
  };
}

/**
 * A ProposerLike driven by a script. It copies `contextDir` into a private session folder,
 * applies the action's edit to its `context/harness/`, and returns that folder as the harvested
 * workspace. Replies are cached by (label, mission, system, context bytes) like the real proposer.
 */
export class ScriptedProposer implements ProposerLike {
  readonly channelKind = "scripted";
  readonly model = "local/fake";
  readonly calls: ScriptedCall[] = [];
  /** Calls that ran (not served from the cache). */
  readonly fresh: ScriptedCall[] = [];
  active = 0;
  peak = 0;
  readonly #cache = new Map<string, Reply>();
  readonly #root: string;

  constructor(
    root: string,
    readonly script: (call: ScriptedCall) => Action = defaultAction,
    readonly hold?: (call: ScriptedCall) => Promise<void>,
  ) {
    this.#root = root;
    mkdirSync(root, { recursive: true });
  }

  async call(
    mission: string,
    contextDir: string | null,
    label: string,
    opts: CallOptions = {},
  ): Promise<Reply> {
    const call: ScriptedCall = { label, mission, contextDir, opts };
    this.calls.push(call);
    const contextHash = contextDir === null ? "" : await hashDirectory(contextDir);
    const key = createHash("sha256")
      .update(`${label}\0${mission}\0${opts.system ?? ""}\0${contextDir ?? ""}\0${contextHash}`)
      .digest("hex")
      .slice(0, 16);
    const hit = this.#cache.get(key);
    if (hit) return { ...hit, usd: 0, attempts: 0, cached: true, wallS: 0 };

    this.fresh.push(call);
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    try {
      await this.hold?.(call);
      const action = this.script(call);
      if ("fail" in action) {
        throw new ProposerError(action.fail, action.attempts ?? 2, action.usd ?? 0, label);
      }
      let workspace: string | null = null;
      if (opts.harvest && !action.noWorkspace) {
        const session = mkdtempSync(join(this.#root, `${label}-`));
        if (contextDir !== null) cpSync(contextDir, join(session, "context"), { recursive: true });
        const harness = join(session, opts.harvest);
        mkdirSync(harness, { recursive: true });
        action.edit?.(harness);
        workspace = harness;
      }
      const reply: Reply = {
        label,
        text: action.text ?? "<notes>no change</notes>",
        usd: action.usd ?? 0,
        wallS: 0,
        attempts: action.attempts ?? 1,
        cached: false,
        channel: this.channelKind,
        model: this.model,
        audit: "",
        workspace,
        ...(action.skippedLinks ? { skippedLinks: action.skippedLinks } : {}),
      };
      this.#cache.set(key, reply);
      return reply;
    } finally {
      this.active--;
    }
  }
}

/** The labels of the events of one type, in order. */
export function labelsOf(events: readonly HarnessEvent[], type: HarnessEvent["type"]): string[] {
  return events.filter((e) => e.type === type).map((e) => ("label" in e ? String(e.label) : ""));
}

export { RecordingSink, tmpdir };

// ── adapter variants: missing run folders, batch base rollouts ────────────────────────────────

export type MissingDirFakeAdapterOptions = FakeAdapterOptions & {
  /** Labels whose execution "succeeds" but returns a run folder that was never created. */
  missingLabels?: Set<string>;
};

/** A FakeAdapter whose `execute` returns a run folder that does not exist for `missingLabels`. */
export class MissingDirFakeAdapter extends FakeAdapter {
  constructor(override readonly opts: MissingDirFakeAdapterOptions) {
    super(opts);
  }

  override async execute(
    taskId: string,
    harnessDir: string | null,
    runId: string,
    opts?: ExecuteOptions,
  ): Promise<string> {
    const label = runId.slice(runId.lastIndexOf("/") + 1);
    if (this.opts.missingLabels?.has(label)) {
      this.executed.push(runId);
      return join(this.spec.runsRoot, "never-written", runId.replaceAll("/", "__"));
    }
    return super.execute(taskId, harnessDir, runId, opts);
  }
}

/**
 * A MissingDirFakeAdapter with the batch hook: `executeMany` runs every base at once through
 * `execute` and puts an Error in the place of each run that threw (a `failLabels` label), so the
 * others are kept. `batchThrows` makes the whole call throw instead, after every run finished.
 */
export class BatchFakeAdapter extends MissingDirFakeAdapter {
  /** The run ids of each executeMany call. */
  readonly batches: string[][] = [];
  batchThrows: string | null = null;

  async executeMany(
    taskId: string,
    harnessDir: null,
    runIds: string[],
    opts?: ExecuteOptions,
  ): Promise<(string | Error)[]> {
    this.batches.push([...runIds]);
    const settled = await Promise.allSettled(
      runIds.map((id) => this.execute(taskId, harnessDir, id, opts)),
    );
    if (this.batchThrows !== null) {
      throw Object.assign(new Error(this.batchThrows), { usd: 0.05 });
    }
    return settled.map((s) =>
      s.status === "fulfilled"
        ? s.value
        : s.reason instanceof Error
          ? s.reason
          : new Error(String(s.reason)),
    );
  }
}

/**
 * A FakeAdapter for a benchmark whose deliverable is the workspace state (`stateDeliverable`):
 * no run ever "delivers" a file, so selection shows the candidates as their trajectories.
 */
export class StateFakeAdapter extends FakeAdapter {
  declare readonly spec: BenchSpec;

  constructor(opts: FakeAdapterOptions) {
    super(opts);
    this.spec = BenchSpec.parse({ ...this.spec, stateDeliverable: true });
  }

  override async delivered(_runDir: string): Promise<boolean> {
    return false;
  }
}
