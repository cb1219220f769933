// Which improver channel and model a benchmark's proposer and selector use (ChannelSpec), and how
// flags, settings and a benchmark's defaults resolve to one; a mismatched model is refused early.

import { z } from "zod";
import { Harness2Error } from "../lib/errors.ts";

// ── channels ─────────────────────────────────────────────────────────────────────────────────

export const CHANNEL_KINDS = ["opencode", "claude_cli", "codex"] as const;
export const ChannelKind = z.enum(CHANNEL_KINDS, {
  error: (iss) =>
    `channel kind ${JSON.stringify(iss.input)} is not allowed: one of ${CHANNEL_KINDS.join(", ")}`,
});
export type ChannelKind = z.infer<typeof ChannelKind>;

/**
 * Why a model id does not fit its channel kind, or null when it fits (a blank model fits: it is
 * checked when a session starts). Codex takes whatever id its endpoint serves.
 */
export function modelMismatch(kind: ChannelKind, model: string): string | null {
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
export class ChannelModelError extends Harness2Error {
  constructor(
    readonly kind: string | undefined,
    readonly model: string | undefined,
    message: string,
  ) {
    super(message);
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

export function build(
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
