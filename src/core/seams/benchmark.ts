// The benchmark seam (spec/01 §4): values a benchmark hands the method (ChannelSpec, BenchPrompts,
// BenchSpec, RunView) and the interfaces it implements (BenchmarkAdapter, SubstrateLike). Nothing
// here can carry a score into the method: scoring is a separate Scorer that only the judge sees.

import { z } from "zod";
import type { Tree } from "../harness/surface.ts";
import type { SubstrateLike } from "./executor.ts";

// ── channels ─────────────────────────────────────────────────────────────────────────────────

export const CHANNEL_KINDS = ["opencode", "claude_cli"] as const;
export const ChannelKind = z.enum(CHANNEL_KINDS, {
  error: (iss) =>
    `channel kind ${JSON.stringify(iss.input)} is not allowed: one of ${CHANNEL_KINDS.join(", ")}`,
});
export type ChannelKind = z.infer<typeof ChannelKind>;

/** Why a model id does not fit its channel kind, or null when it fits (a blank model fits: it is checked when a session starts). */
function modelMismatch(kind: ChannelKind, model: string): string | null {
  if (model === "") return null;
  if (kind === "opencode" && !model.includes("/")) {
    return `model ${JSON.stringify(model)} does not fit channel opencode: it needs a provider-prefixed id (provider/model)`;
  }
  if (kind === "claude_cli" && model.includes("/")) {
    return `model ${JSON.stringify(model)} does not fit channel claude_cli: it needs a bare Anthropic id without '/'`;
  }
  return null;
}

/** How one improver role (proposer, selector) runs its sessions. */
export const ChannelSpec = z
  .object({
    kind: ChannelKind,
    /** "" only until a session starts (the proposer refuses a blank model then). */
    model: z.string(),
    /** OpenCode `--variant` / Claude `--effort`. */
    effort: z.string().min(1, { error: "effort must be non-empty, e.g. high" }).default("high"),
    /** OpenCode `agent.build.steps`. */
    steps: z
      .number()
      .int()
      .min(1, { error: (iss) => `steps must be an integer ≥ 1, got ${String(iss.input)}` })
      .default(120),
    /** Session wall clock per transport attempt, in seconds. */
    timeout: z
      .number()
      .int()
      .min(1, {
        error: (iss) => `timeout must be a whole number of seconds ≥ 1, got ${String(iss.input)}`,
      })
      .default(3600),
  })
  .superRefine((c, ctx) => {
    const why = modelMismatch(c.kind, c.model);
    if (why !== null) ctx.addIssue({ code: "custom", path: ["model"], message: why });
  })
  .readonly();
export type ChannelSpec = z.infer<typeof ChannelSpec>;

/** A channel kind/model override that cannot be used. */
export class ChannelModelError extends Error {
  constructor(
    readonly kind: string | undefined,
    readonly model: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "ChannelModelError";
  }
}

export type ChannelOverride = {
  kind?: string;
  model?: string;
  effort?: string;
  steps?: number;
  timeout?: number;
};

export type ChannelDefaults = {
  kind: ChannelKind;
  /** May be "": the failure is deferred until a session starts. */
  model: string;
  effort?: string;
  steps?: number;
  timeout?: number;
};

/**
 * The channel a role uses: the override when it names both kind and model, the defaults when it
 * names neither. Only one of them is an error (a bare/prefixed id mismatch would otherwise fail
 * silently downstream), as is an explicit blank model or a model that does not fit its kind.
 */
export function resolveChannelModel(
  override: ChannelOverride,
  defaults: ChannelDefaults,
): ChannelSpec {
  const { kind, model } = override;
  if ((kind === undefined) !== (model === undefined)) {
    throw new ChannelModelError(
      kind,
      model,
      `channel kind and model must be overridden together (got kind ${kind === undefined ? "unset" : JSON.stringify(kind)}, model ${model === undefined ? "unset" : JSON.stringify(model)})`,
    );
  }
  const rest = {
    effort: override.effort ?? defaults.effort,
    steps: override.steps ?? defaults.steps,
    timeout: override.timeout ?? defaults.timeout,
  };
  if (kind === undefined || model === undefined) {
    return build(defaults.kind, defaults.model.trim(), rest);
  }
  if (!(CHANNEL_KINDS as readonly string[]).includes(kind)) {
    throw new ChannelModelError(
      kind,
      model,
      `channel kind ${JSON.stringify(kind)} is not allowed: one of ${CHANNEL_KINDS.join(", ")}`,
    );
  }
  if (model.trim() === "") {
    throw new ChannelModelError(
      kind,
      model,
      `an explicit channel model must not be blank (channel ${kind})`,
    );
  }
  return build(kind as ChannelKind, model.trim(), rest);
}

function build(
  kind: ChannelKind,
  model: string,
  rest: Omit<ChannelOverride, "kind" | "model">,
): ChannelSpec {
  const why = modelMismatch(kind, model);
  if (why !== null) throw new ChannelModelError(kind, model, why);
  const parsed = ChannelSpec.safeParse({ kind, model, ...rest });
  if (!parsed.success) {
    throw new ChannelModelError(kind, model, parsed.error.issues.map((i) => i.message).join("; "));
  }
  return parsed.data;
}

// ── benchmark prompts ────────────────────────────────────────────────────────────────────────

/**
 * Words about measurement that prompt text must not contain: it describes the work, not how the
 * work is assessed. Matched as whole words in these exact forms, case-insensitively, with any
 * non-letter, non-digit character (space, `-`, `_`, punctuation) as a word edge — fix of spec/01
 * §10.19, where a plain substring test also refused `underscore`, `scoreboard` and `benchmarked`.
 * So `score`, `Scores`, `scored`, `scoring`, `pass_score` and `re-evaluation` hit;
 * `underscore`, `scoreboard`, `scorecard`, `evaluate` and `benchmarking` do not.
 */
export const FORBIDDEN_PROMPT_WORDS = [
  "benchmark",
  "benchmarks",
  "evaluation",
  "evaluations",
  "grader",
  "graders",
  "rubric",
  "rubrics",
  "score",
  "scores",
  "scored",
  "scoring",
] as const;

const FORBIDDEN_RE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${FORBIDDEN_PROMPT_WORDS.join("|")})(?![\\p{L}\\p{N}])`,
  "giu",
);

/** The forbidden words in `text`, in order of appearance, lower-cased and without repeats. */
export function forbiddenWordsIn(text: string): string[] {
  return [...new Set([...text.matchAll(FORBIDDEN_RE)].map((m) => m[0].toLowerCase()))];
}

/**
 * BenchPrompts fields that reach the improver or selector as free text and are scanned.
 * `selectionLead` is scanned too (the original skipped it, spec/01 §10.19); the single words
 * `domainWord` and `deliverableWord` and the enums are not free text.
 */
export const SCANNED_PROMPT_FIELDS = [
  "work",
  "invLevers",
  "domLevers",
  "yardstick",
  "domainGuidance",
  "selectionChecks",
  "selectionLead",
] as const;

/** Benchmark-shaped text for the shared prompts (spec/02 §0). */
export const BenchPrompts = z
  .object({
    /** What the work is, as the agent meets it: the `[WORK]` section of every prompt. */
    work: z
      .string()
      .refine((s) => s.trim() !== "", { error: "work must be non-blank text describing the work" }),
    domainWord: z
      .string()
      .min(1, { error: "domainWord must be non-empty (default: domain)" })
      .default("domain"),
    invLevers: z.string().default(""),
    domLevers: z.string().default(""),
    yardstick: z.string().default(""),
    deliverableWord: z
      .string()
      .min(1, { error: "deliverableWord must be non-empty (default: deliverable)" })
      .default("deliverable"),
    domainGuidance: z.string().default(""),
    selectionChecks: z.string().default(""),
    selectionLead: z.string().default(""),
    // Validated (fix): the original accepted any string here and then emitted both variants.
    selectionConformance: z
      .enum(["full", "value_only"], {
        error: (iss) =>
          `selectionConformance ${JSON.stringify(iss.input)} is not allowed: full or value_only`,
      })
      .default("full"),
    promptPack: z
      .enum(["adapt", "tts"], {
        error: (iss) => `promptPack ${JSON.stringify(iss.input)} is not allowed: adapt or tts`,
      })
      .default("adapt"),
  })
  .superRefine((p, ctx) => {
    for (const field of SCANNED_PROMPT_FIELDS) {
      for (const word of forbiddenWordsIn(p[field])) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `${field} contains the word "${word}"; describe the work, not its measurement (forbidden: ${FORBIDDEN_PROMPT_WORDS.join(", ")})`,
        });
      }
    }
  })
  .readonly();
export type BenchPrompts = z.infer<typeof BenchPrompts>;

// ── benchmark spec ───────────────────────────────────────────────────────────────────────────

/** How a substrate's staged harness becomes a runnable configuration (spec/01 §8). */
export const INSTALL_MODES = [
  "workspace_agents_md",
  "home_dir_jinja",
  "workspace_config",
  "codex_root",
] as const;
export const InstallMode = z.enum(INSTALL_MODES, {
  error: (iss) =>
    `installMode ${JSON.stringify(iss.input)} is not allowed: one of ${INSTALL_MODES.join(", ")}`,
});
export type InstallMode = z.infer<typeof InstallMode>;

/** Smallest observation clip: a smaller one cuts observations so short it fabricates defects. */
export const OBS_TRUNC_MIN = 10_000;

/**
 * One (benchmark, substrate) cell. `domainWord` lives only in BenchPrompts (the original kept a
 * second copy here, spec/01 §10.20), and the channels map is frozen with the rest.
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
   * thrown error — can never be mistaken for an invalid proposal (spec/03 §6.6).
   */
  validateTree(tree: Tree): Promise<string[]>;
  /**
   * Offline readiness checks (required here; the original called it without declaring it,
   * spec/01 §10.20). Throws with a remediation; never starts a model.
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
   * spend), so the others are kept (spec/03 §6.4); throwing fails every run of the batch.
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
export class AdapterContractError extends Error {
  constructor(
    readonly adapter: string,
    readonly hook: string,
    readonly detail: string,
  ) {
    super(`${adapter}.${hook}: ${detail}`);
    this.name = "AdapterContractError";
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
