// The estimate's fallback (docs/method.md "Spending cap"): a role no earlier sweep in the store
// can price is estimated from the model's price table times an assumed number of tokens per call,
// and says so. Price tables: HARNESS2_CODEX_PRICES for a Codex model, the `cost` of the model in
// the OpenCode provider config (HARNESS2_OPENCODE_CONFIG, then OPENCODE_CONFIG_CONTENT, as
// OpenCode layers them) for an OpenCode one, USD per million tokens in both. Claude Code prices
// itself and has no table here.

import { readFileSync } from "node:fs";
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

function parsed(text: string | undefined): unknown {
  if (text === undefined || text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A Codex model's price from HARNESS2_CODEX_PRICES (inline JSON or a file), else null. */
function codexPrice(model: string, env: Env): UnitPrice | null {
  const raw = env.HARNESS2_CODEX_PRICES?.trim() ?? "";
  let text: string | undefined = raw;
  if (raw !== "" && !raw.startsWith("{")) {
    try {
      text = readFileSync(raw, "utf8");
    } catch {
      return null;
    }
  }
  const entry = (parsed(text) as Record<string, Record<string, unknown>> | null)?.[model];
  const input = number(entry?.input);
  const output = number(entry?.output);
  if (input === null || output === null) return null;
  return { input, output, source: "HARNESS2_CODEX_PRICES" };
}

/** An OpenCode model's `cost` from the provider config layers, else null. */
function opencodePrice(model: string, env: Env): UnitPrice | null {
  const slash = model.indexOf("/");
  if (slash <= 0) return null;
  const [provider, id] = [model.slice(0, slash), model.slice(slash + 1)];
  let found: UnitPrice | null = null;
  const layers: [string, string | undefined][] = [
    ["HARNESS2_OPENCODE_CONFIG", fileText(env.HARNESS2_OPENCODE_CONFIG)],
    ["OPENCODE_CONFIG_CONTENT", env.OPENCODE_CONFIG_CONTENT],
  ];
  for (const [source, text] of layers) {
    const config = parsed(text) as {
      provider?: Record<string, { models?: Record<string, { cost?: Record<string, unknown> }> }>;
    } | null;
    const cost = config?.provider?.[provider]?.models?.[id]?.cost;
    const input = number(cost?.input);
    const output = number(cost?.output);
    if (input !== null && output !== null) found = { input, output, source };
  }
  return found;
}

function fileText(path: string | undefined): string | undefined {
  if (path === undefined || path === "") return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
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
