// The WorkBuddy cell (`--bench wb --subset office|web|code`, docs/benchmarks.md "WorkBuddy"): a
// task is a Harbor task folder; a rollout is one trial of a job the checkout's own runner
// (scripts/run.sh) runs in containers, one job per label (the k base rollouts of a task share one
// job), through harness2's own agents (wb-agents.ts): the harness handed to the container's agent
// as files plus, on OpenCode, one prompt template (`home_dir_jinja`), or as workspace-root files on
// Codex (`codex_root`). A trial that ran is moved into the cell's rollout store and marked; one
// whose environment or agent never ran is a failed rollout, moved aside and run again on resume.
// What the improver sees of a trial comes only through wb-render.ts.

import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import type { Tree } from "../../core/harness/tree.ts";
import { copyTreeSafe, isRegularFile } from "../../core/lib/safe-fs.ts";
import { isOutputIntact, readRunMark } from "../../core/rollout/runmark.ts";
import { leakFilter } from "../../core/safety/leak-globs.ts";
import type { BenchPrompts } from "../../core/seams/bench-prompts.ts";
import type { BenchmarkAdapter, BenchSpec, ExecuteOptions } from "../../core/seams/benchmark.ts";
import type { Executor } from "../../core/seams/executor.ts";
import { BenchDataError, type Manifest } from "../common/install.ts";
import { TableCell, TaskTable } from "../common/task-table.ts";
import { agentOf, containerAgent } from "./wb-agent.ts";
import { WB_AGENTS_VERSION } from "./wb-agents.ts";
import {
  discoverSubset,
  INSTRUCTION_FILE,
  installedWorkBuddy,
  WB_LEAK_GLOBS,
  type WbSubset,
  type WbTask,
} from "./wb-data.ts";
import { templateProblems } from "./wb-job.ts";
import { promptsForDomain, WB_CODEX_AGENTS, WB_PROMPTS } from "./wb-prompts.ts";
import { wbReady } from "./wb-ready.ts";
import { DELIVERED_MIN_CHARS, FILE_TEXT_MAX, type Rendered, renderTrial } from "./wb-render.ts";
import { type Identity, runRolloutJob } from "./wb-rollout-job.ts";
import {
  type Routes,
  routeEnv,
  routesOf,
  routesText,
  type WbSettings,
  wbSettings,
  writeRoutes,
} from "./wb-settings.ts";
import { AGENT_STREAM, verified } from "./wb-trials.ts";

/** The original's whole-trajectory cap for WorkBuddy. */
export const WB_TRAJECTORY_MAX = 2_000_000;
/** The version of how a harness becomes a job; bump it when that changes (no reuse across it). */
export const WB_INSTALL_VERSION = 2;

export type WbAdapterOptions = {
  deps: string;
  subset: WbSubset;
  runsDir: string;
  executor: Executor;
  env?: Record<string, string | undefined>;
};

export class WorkBuddyAdapter extends TableCell<WbTask> implements BenchmarkAdapter {
  readonly spec: BenchSpec;
  readonly manifest: Manifest;
  readonly subset: WbSubset;
  readonly deliverableAssetsReferenceOnly = true;
  protected readonly table: TaskTable<WbTask>;
  readonly #settings: WbSettings;
  readonly #rendered = new Map<string, Promise<Rendered>>();

  constructor(opts: WbAdapterOptions) {
    super(opts.executor, opts.env ?? process.env, {
      fileTextMax: FILE_TEXT_MAX,
      trajectoryMax: WB_TRAJECTORY_MAX,
    });
    this.manifest = installedWorkBuddy(opts.deps);
    this.subset = opts.subset;
    const found = discoverSubset(this.manifest.root, opts.subset);
    if (found.tasks.length === 0) {
      throw new BenchDataError(
        `WorkBuddy's ${opts.subset} subset in ${this.manifest.root} has no task (datasets/wb-bench-${opts.subset}-v1.0/tasks/<task>/ with task.toml and ${INSTRUCTION_FILE}): run harness2 setup --bench wb again`,
      );
    }
    this.table = new TaskTable(found.tasks, (t) => t.domain, `WorkBuddy's ${opts.subset} subset`);
    this.#settings = wbSettings(this.env);
    const oc = opts.executor.name === "oc";
    this.spec = this.specOf(opts.runsDir, {
      name: `wb-${opts.subset}`,
      installMode: oc ? "home_dir_jinja" : "codex_root",
      prompts: WB_PROMPTS[opts.subset],
      leakGlobs: [...WB_LEAK_GLOBS[opts.subset]],
      allowSubagents: opts.executor.allowSubagents,
      // A repository change is shown to the improver by the names of what it touched only.
      proposerDeliverables: opts.subset === "code" ? "names" : "contents",
      stateDeliverable: true,
      obsTrunc: 50_000,
    });
  }

  // ── tasks ──────────────────────────────────────────────────────────────────────────────────

  async taskPrompt(taskId: string): Promise<string> {
    return readFileSync(join(this.#task(taskId).dir, INSTRUCTION_FILE), "utf8");
  }

  promptsFor(taskId: string): BenchPrompts {
    return promptsForDomain(this.subset, this.#task(taskId).domain);
  }

  /** The task folder without what a leak glob names (the verifier, the solution, the container). */
  async taskFiles(taskId: string): Promise<string | null> {
    const task = this.#task(taskId);
    const clean = join(this.taskStoreDir(taskId), "task");
    if (isRegularFile(join(clean, INSTRUCTION_FILE))) return clean;
    const partial = `${clean}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    copyTreeSafe(task.dir, partial, { filter: leakFilter(WB_LEAK_GLOBS[this.subset]) });
    rmSync(clean, { recursive: true, force: true });
    renameSync(partial, clean);
    return clean;
  }

  protected taskStoreDir(taskId: string): string {
    return join(this.spec.runsRoot, "tasks", this.#task(taskId).id);
  }

  protected override baseTree(): Tree {
    const tree = this.substrate.baselineTree();
    return this.substrate.name === "oc" ? tree : { ...tree, "AGENTS.md": WB_CODEX_AGENTS };
  }

  // ── rollouts ───────────────────────────────────────────────────────────────────────────────

  async execute(
    taskId: string,
    harnessDir: string | null,
    runId: string,
    opts: ExecuteOptions = {},
  ): Promise<string> {
    const [got] = await this.#rollouts(taskId, harnessDir, [runId], opts);
    if (got instanceof Error) throw got;
    return got as string;
  }

  /** The base rollouts of a task in ONE job; on resume only the missing attempts are asked for. */
  async executeMany(
    taskId: string,
    harnessDir: null,
    runIds: string[],
    opts: ExecuteOptions = {},
  ): Promise<(string | Error)[]> {
    return this.#rollouts(taskId, harnessDir, runIds, opts);
  }

  async #rollouts(
    taskId: string,
    harnessDir: string | null,
    runIds: readonly string[],
    opts: ExecuteOptions,
  ): Promise<(string | Error)[]> {
    const task = this.#task(taskId);
    const harness = harnessDir ?? (await this.baseHarness());
    const fingerprint = `wb${WB_INSTALL_VERSION}-${await this.substrate.rolloutFingerprint(harness)}`;
    const routes = this.routes();
    if ("problem" in routes) throw new BenchDataError(routes.problem);
    const agent = agentOf(this.substrate, this.#settings);
    const identity: Identity = {
      executor: this.substrate.name,
      agent: `${agent.family}@${agent.version}+${WB_AGENTS_VERSION}`,
      model: this.substrate.modelOf(this.config),
      route: createHash("sha256").update(routesText(routes)).digest("hex").slice(0, 16),
    };
    const results = new Map<string, string | Error>();
    const missing: string[] = [];
    for (const runId of runIds) {
      const dir = this.rolloutDir(runId);
      if (await this.#reusable(dir, fingerprint, identity)) results.set(runId, dir);
      else missing.push(runId);
    }
    if (missing.length > 0) {
      // Only a job needs the routes on disk and the harness staged for its container.
      writeRoutes(this.manifest.root, routes);
      const job = containerAgent({
        executor: this.substrate,
        settings: this.#settings,
        harness: harnessDir === null ? null : harness,
        baseHarness: harness,
        stagedDir: join(this.spec.runsRoot, "staged", fingerprint),
      });
      const made = await runRolloutJob({
        cell: {
          root: this.manifest.root,
          runsRoot: this.spec.runsRoot,
          namespace: this.spec.name,
          subset: this.subset,
          executor: this.substrate.name,
          settings: this.#settings,
          rolloutTimeoutS: this.config.rolloutTimeoutS ?? null,
          routeEnv: this.#routeEnv(),
          env: this.env,
          rolloutDir: (id) => this.rolloutDir(id),
          forget: (dir) => this.#rendered.delete(dir),
        },
        task,
        runIds: missing,
        agent: { ...job, routes },
        mark: { fingerprint, identity },
        opts,
      });
      for (const [id, got] of made) results.set(id, got);
    }
    return runIds.map((id) => results.get(id) as string | Error);
  }

  /** A finished trial of this harness and this identity, whose verifier finished. */
  async #reusable(runDir: string, fingerprint: string, identity: Identity): Promise<boolean> {
    const mark = await readRunMark(runDir);
    if (mark === null || mark.harness !== fingerprint || !verified(runDir)) return false;
    return JSON.stringify(mark.extras.identity) === JSON.stringify(identity);
  }

  /** The routes this cell's jobs name (Codex's endpoint as the run configuration resolves it). */
  routes(): Routes | { problem: string } {
    return routesOf(
      this.#routeEnv(),
      this.substrate.name === "oc" ? "oc" : "cx",
      this.substrate.modelOf(this.config),
    );
  }

  #routeEnv(): Record<string, string | undefined> {
    return routeEnv(this.env, this.config);
  }

  async artifactsIntact(runDir: string): Promise<boolean> {
    return isOutputIntact(runDir, join(runDir, "verifier"));
  }

  // ── what a trial shows ─────────────────────────────────────────────────────────────────────

  render(runDir: string): Promise<Rendered> {
    let r = this.#rendered.get(runDir);
    if (r === undefined) {
      r = renderTrial(runDir, this.subset);
      this.#rendered.set(runDir, r);
    }
    return r;
  }

  override async delivered(runDir: string): Promise<boolean> {
    return (await this.render(runDir)).body >= DELIVERED_MIN_CHARS;
  }

  override async trajectory(runDir: string, opts: { obsTrunc: number }): Promise<string> {
    const stream = join(runDir, AGENT_STREAM[this.substrate.name] ?? (AGENT_STREAM.oc as string));
    if (!isRegularFile(stream)) {
      return `[ERROR] the trial recorded no agent output (${basename(stream)} is missing)`;
    }
    return this.substrate.renderStream(stream, {
      obsTrunc: opts.obsTrunc,
      maxChars: WB_TRAJECTORY_MAX,
    });
  }

  override async deliverableFiles(runDir: string): Promise<Record<string, string>> {
    return (await this.render(runDir)).files;
  }

  override async deliverableText(runDir: string): Promise<string> {
    const r = await this.render(runDir);
    const entries = Object.entries(r.files);
    const withheld = [
      r.quarantined.length > 0
        ? `\n\n(${r.quarantined.length} file(s) withheld: they look written by the checker, not the agent)`
        : "",
      r.unshown > 0 ? `\n\n(${r.unshown} more file(s) not shown)` : "",
    ].join("");
    if (entries.length === 0) return `(no deliverable produced)${withheld}`;
    return `${entries.map(([name, text]) => `### ${name}\n\n${text}`).join("\n\n")}${withheld}`;
  }

  override async deliverableImages(runDir: string): Promise<string[]> {
    return (await this.render(runDir)).images;
  }

  async deliverableAssets(runDir: string): Promise<string[]> {
    return (await this.render(runDir)).assets;
  }

  async deliverableListing(runDir: string): Promise<string[]> {
    return (await this.render(runDir)).names;
  }

  // ── rules and readiness ────────────────────────────────────────────────────────────────────

  /** On OpenCode the harness becomes one prompt template: it must survive the template engine. */
  override async validateTree(tree: Tree): Promise<string[]> {
    if (this.substrate.name !== "oc") return [];
    const composed = this.substrate.containerInstall(tree, {}).promptTemplate;
    return composed === null ? [] : templateProblems(composed);
  }

  /** The runner, Docker, the model routes (and for Codex its container endpoint), before anything is spent. */
  override async preflight(): Promise<void> {
    const problems = (
      await wbReady({
        root: this.manifest.root,
        env: this.env,
        executor: this.substrate,
        config: this.config,
        subset: this.subset,
      })
    ).filter((c) => c.status === "FAIL");
    const first = problems[0];
    if (first !== undefined)
      throw new BenchDataError(`${first.what}: ${first.detail}; ${first.fix}`);
  }

  #task(taskId: string): WbTask {
    return this.table.get(taskId);
  }
}
