// The benchmark seam (docs/architecture.md "Layout"): values a benchmark hands the method
// (ChannelSpec, BenchPrompts, BenchSpec, RunView) and the interfaces it implements
// (BenchmarkAdapter, SubstrateLike). Nothing here can carry a score into the method: scoring is a
// separate Scorer that only the judge sees.

import { z } from "zod";
import type { Tree } from "../harness/surface.ts";
import { Harness2Error } from "../lib/errors.ts";
import { BenchPrompts } from "./bench-prompts.ts";
import { ChannelSpec } from "./channel-spec.ts";
import { INSTALL_MODES, type SubstrateLike } from "./executor.ts";

// ── benchmark spec ───────────────────────────────────────────────────────────────────────────

export { INSTALL_MODES };
export const InstallMode = z.enum(INSTALL_MODES, {
  error: (iss) =>
    `installMode ${JSON.stringify(iss.input)} is not allowed: one of ${INSTALL_MODES.join(", ")}`,
});
export type InstallMode = z.infer<typeof InstallMode>;

/** Smallest observation clip: a smaller one cuts observations so short it fabricates defects. */
export const OBS_TRUNC_MIN = 10_000;

/**
 * One (benchmark, substrate) cell. `domainWord` lives only in BenchPrompts (the original kept a
 * second copy here, docs/differences.md H20), and the channels map is frozen with the rest.
 */
export const BenchSpec = z
  .object({
    name: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, {
      error: (iss) =>
        `name ${JSON.stringify(iss.input)} must be lowercase letters and digits in '-'-separated words (e.g. jb, wb-office)`,
    }),
    /** This cell's run-state root, `<runsDir>/<bench>`. */
    runsRoot: z.string().min(1, { error: "runsRoot must be a non-empty path" }),
    installMode: InstallMode,
    prompts: BenchPrompts,
    /** Improver roles → channel; `proposer` and `selector` are required. */
    channels: z
      .record(z.string(), ChannelSpec)
      .superRefine((channels, ctx) => {
        const missing = ["proposer", "selector"].filter((r) => !(r in channels));
        if (missing.length > 0) {
          ctx.addIssue({
            code: "custom",
            message: `channels lacks ${missing.join(" and ")}: it must map both proposer and selector (has: ${Object.keys(channels).join(", ") || "none"})`,
          });
        }
      })
      .transform((c) => Object.freeze(c) as Readonly<Record<string, ChannelSpec>>),
    /** Answer-key globs refused anywhere in model context. */
    leakGlobs: z
      .array(z.string().min(1, { error: "leakGlobs entries must be non-empty globs" }))
      .readonly()
      .prefault([]),
    allowSubagents: z.boolean().default(false),
    /** Script basenames the runtime provides, so a harness may invoke them without shipping them. */
    reservedScripts: z
      .array(
        z.string().regex(/^[^/\\]+\.py$/, {
          error: (iss) =>
            `reservedScripts entry ${JSON.stringify(iss.input)} must be a bare basename ending in .py, without '/'`,
        }),
      )
      .transform((xs) => Object.freeze([...new Set(xs)].sort()))
      .prefault([]),
    /** What the improver sees of a deliverable: extracted contents, or file names only. */
    proposerDeliverables: z
      .enum(["contents", "names"], {
        error: (iss) =>
          `proposerDeliverables ${JSON.stringify(iss.input)} is not allowed: contents or names`,
      })
      .default("contents"),
    /** The deliverable is workspace state: selection may fall back to trajectories. */
    stateDeliverable: z.boolean().default(false),
    /** Per-observation clip of trajectories shown to the improver. */
    obsTrunc: z
      .number()
      .int()
      .min(OBS_TRUNC_MIN, {
        error: (iss) =>
          `obsTrunc ${String(iss.input)} is too small: at least ${OBS_TRUNC_MIN} (shorter clips fabricate defects)`,
      })
      .default(50_000),
  })
  .readonly();
export type BenchSpec = z.infer<typeof BenchSpec>;

// ── what the method knows of a rollout ───────────────────────────────────────────────────────

/** One finished (or dead) rollout as the method sees it. Strict: it can never carry a score. */
export const RunView = z
  .strictObject({
    label: z.string().min(1),
    runId: z.string().min(1),
    runDir: z.string().min(1),
    /** A run directory was produced. */
    ok: z.boolean(),
    /** The adapter says the deliverable exists. */
    delivered: z.boolean(),
    usd: z.number().nonnegative().default(0),
    /** False when the executor recorded the cost as unknown (`usd` is then 0, not a price). */
    priced: z.boolean().default(true),
    /** Input + output tokens the executor reported; 0 when it reports none. */
    tokens: z.number().int().nonnegative().default(0),
    wallS: z.number().nonnegative().default(0),
    /** "" when fine. */
    error: z.string().default(""),
  })
  .readonly();
export type RunView = z.infer<typeof RunView>;

// ── behaviour ────────────────────────────────────────────────────────────────────────────────

/** What the method needs of an executor framework. */

export type ExecuteOptions = {
  /** Seconds; the adapter's own default when absent. */
  timeoutS?: number;
  signal?: AbortSignal;
};

/**
 * One benchmark on one substrate, as the method uses it. Deliberately has no `score`: see Scorer.
 * Optional members are probed; without them the method does what each comment says.
 */
export interface BenchmarkAdapter {
  readonly spec: BenchSpec;
  readonly substrate: SubstrateLike;

  /** Task ids of a split, in a stable order. */
  tasks(split?: string): Promise<string[]>;
  /** The grouping unit a library is kept per. */
  domainOf(taskId: string): string;
  /** The task as the agent saw it, criteria stripped. */
  taskPrompt(taskId: string): Promise<string>;
  /**
   * Runs one rollout and returns its run dir; idempotent by run id (a finished, intact rollout is
   * returned without executing). A null harness means the unmodified base.
   */
  execute(
    taskId: string,
    harnessDir: string | null,
    runId: string,
    opts?: ExecuteOptions,
  ): Promise<string>;
  delivered(runDir: string): Promise<boolean>;
  /** The run in the shared `[ACTION]/[OBSERVATION]/[ERROR]` grammar, observations clipped at obsTrunc. */
  trajectory(runDir: string, opts: { obsTrunc: number }): Promise<string>;
  deliverableText(runDir: string): Promise<string>;
  /** Directory holding the starting harness tree. */
  baseHarness(): Promise<string>;
  /**
   * Benchmark-specific problems with a proposed tree, each fed back verbatim to the proposer; []
   * when valid. Returning problems (instead of throwing a ValueError) means an adapter bug — a
   * thrown error — can never be mistaken for an invalid proposal (docs/differences.md R6).
   */
  validateTree(tree: Tree): Promise<string[]>;
  /**
   * Offline readiness checks (required here; the original called it without declaring it,
   * docs/differences.md H20). Throws with a remediation; never starts a model.
   */
  preflight(): Promise<void>;

  /** Per-task prompts; without it, `spec.prompts`. */
  promptsFor?(taskId: string): BenchPrompts | Promise<BenchPrompts>;
  /** The task's source directory (or null); without it, no `context/source/`. */
  taskFiles?(taskId: string): Promise<string | null>;
  /** Deliverable file name → extracted text; without it (or empty), one text from deliverableText. */
  deliverableFiles?(runDir: string): Promise<Record<string, string>>;
  /** Images of the deliverable (the first 8 are shown); without it, none. */
  deliverableImages?(runDir: string): Promise<string[]>;
  /** Raw original files of the deliverable; without it, no raw copies. */
  deliverableAssets?(runDir: string): Promise<string[]>;
  /** Deliverable file names, for `proposerDeliverables: "names"`; without it, a placeholder entry. */
  deliverableListing?(runDir: string): Promise<string[]>;
  /** Selection's note on a candidate's assets (`{anon}` is replaced); without it, a default note. */
  deliverableAssetsNote?(names: string[]): string;
  /** Selection's evidence line for assets; without it, a default line. */
  deliverableAssetsLine?(shown: string[]): string;
  /** Assets are raw originals for reference, not rendered evidence; absent = false. */
  readonly deliverableAssetsReferenceOnly?: boolean;
  /** Frozen domain order of the stream; without it, by descending task count, then name. */
  referenceDomainOrder?(): string[];
  /** Whether a reused run's artifacts are unchanged; without it, resume skips the check. */
  artifactsIntact?(runDir: string): Promise<boolean>;
  /**
   * Base rollouts in one batch (one run dir per run id, in order); without it, execute per run.
   * A run that failed is an Error in its place (like `execute` throwing; a `usd` on it is its
   * spend), so the others are kept (docs/differences.md R4); throwing fails every run of the batch.
   */
  executeMany?(
    taskId: string,
    harnessDir: null,
    runIds: string[],
    opts?: ExecuteOptions,
  ): Promise<(string | Error)[]>;
}

/**
 * Scoring, kept apart from BenchmarkAdapter so the method cannot reach it: only src/judge takes a
 * Scorer, and only after selection. null means the judge failed (ungraded), never a zero.
 */
export interface Scorer {
  score(runDir: string, taskId: string): Promise<Record<string, unknown> | null>;
}

/** An adapter broke its contract (e.g. a hook returned the wrong kind of value). */
export class AdapterContractError extends Harness2Error {
  static override readonly errorKind = "bug";
  constructor(
    readonly adapter: string,
    readonly hook: string,
    readonly detail: string,
  ) {
    super(`${adapter}.${hook}: ${detail}`);
  }
}

/** The prompts for one task: the adapter's `promptsFor` when it has one, else its spec's. */
export async function resolvePrompts(
  adapter: BenchmarkAdapter,
  taskId: string,
): Promise<BenchPrompts> {
  if (typeof adapter.promptsFor !== "function") return adapter.spec.prompts;
  const got: unknown = await adapter.promptsFor(taskId);
  const parsed = BenchPrompts.safeParse(got);
  if (!parsed.success) {
    throw new AdapterContractError(
      adapter.constructor?.name || "adapter",
      "promptsFor",
      `returned ${got === null ? "null" : typeof got} for task ${JSON.stringify(taskId)}, not valid BenchPrompts: ${parsed.error.issues.map((i) => i.message).join("; ")}`,
    );
  }
  return parsed.data;
}
