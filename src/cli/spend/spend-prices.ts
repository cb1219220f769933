// The estimate's fallback (docs/method.md "Spending cap"): a role no earlier sweep in the store
// can price is estimated from the model's price table times an assumed number of tokens per call,
// and says so. Price tables: HARNESS2_CODEX_PRICES for a Codex model, the `cost` of the model in
// the OpenCode provider config (HARNESS2_OPENCODE_CONFIG, then OPENCODE_CONFIG_CONTENT, as
// OpenCode layers them) for an OpenCode one, USD per million tokens in both. Claude Code prices
// itself and has no table here.

import { loadPriceTable } from "../../agent-cli/codex-prices.ts";
import { opencodeConfigLayers } from "../../agent-cli/opencode.ts";
import type { Role } from "./spend-estimate.ts";

/** USD per million tokens, and where the price was found. */
export type UnitPrice = { input: number; output: number; source: string };

/**
 * Tokens one call of each role is assumed to use when nothing better is known: an agent session
 * sends its growing context again at every step, so input dwarfs output. The estimate spans half
 * to twice these.
 */
export const ASSUMED_TOKENS: Readonly<Record<Role, { input: number; output: number }>> = {
  executor: { input: 200_000, output: 10_000 },
  stages: { input: 300_000, output: 15_000 },
  selection: { input: 100_000, output: 3_000 },
  reflection: { input: 50_000, output: 2_000 },
};

type Env = Record<string, string | undefined>;

const number = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;

/** A Codex model's price from HARNESS2_CODEX_PRICES, else null (a bad table is check's to report). */
function codexPrice(model: string, env: Env): UnitPrice | null {
  let entry: { input: number; output: number } | undefined;
  try {
    entry = loadPriceTable(env)[model];
  } catch {
    return null;
  }
  return entry === undefined
    ? null
    : { input: entry.input, output: entry.output, source: "HARNESS2_CODEX_PRICES" };
}

/** An OpenCode model's `cost` from the provider config layers (the last that names it), else null. */
function opencodePrice(model: string, env: Env): UnitPrice | null {
  const slash = model.indexOf("/");
  if (slash <= 0) return null;
  const [provider, id] = [model.slice(0, slash), model.slice(slash + 1)];
  let found: UnitPrice | null = null;
  for (const { source, config } of opencodeConfigLayers(env)) {
    const providers = config.provider as
      | Record<string, { models?: Record<string, { cost?: Record<string, unknown> }> }>
      | undefined;
    const cost = providers?.[provider]?.models?.[id]?.cost;
    const input = number(cost?.input);
    const output = number(cost?.output);
    if (input !== null && output !== null) found = { input, output, source };
  }
  return found;
}

/** The price of `model` on a channel or executor of `kind`, or null when no table names it. */
export function priceOf(kind: string, model: string, env: Env): UnitPrice | null {
  if (model === "") return null;
  if (kind === "codex" || kind === "cx") return codexPrice(model, env);
  if (kind === "opencode" || kind === "oc") return opencodePrice(model, env);
  return null;
}

/** One call's assumed cost for `role` at `price`. */
export function assumedCallUsd(role: Role, price: UnitPrice): number {
  const t = ASSUMED_TOKENS[role];
  return (t.input * price.input + t.output * price.output) / 1_000_000;
}
