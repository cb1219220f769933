// Codex reports tokens, never a cost: a rollout's cost comes from a price table the user gives in
// HARNESS2_CODEX_PRICES (docs/guide/codex.md, "Prices"). A model the table does not name has an UNKNOWN
// cost — recorded as null and shown as unknown — never a made-up 0.

import { readFileSync } from "node:fs";
import { z } from "zod";
import { roundUsd } from "../core/lib/money.ts";
import type { CodexUsage } from "./codex.ts";
import { CODEX_SETTINGS, CodexSetupError } from "./codex.ts";

const perMillion = z.number().finite().nonnegative();

/** USD per million tokens; `cachedInput` defaults to `input`. */
export const ModelPrice = z.strictObject({
  input: perMillion,
  cachedInput: perMillion.optional(),
  output: perMillion,
});
export type ModelPrice = z.infer<typeof ModelPrice>;

export const PriceTable = z.record(z.string().min(1), ModelPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * The table from HARNESS2_CODEX_PRICES: inline JSON (text starting with `{`) or the path of a
 * JSON file, e.g. `{"gpt-5-codex": {"input": 1.25, "cachedInput": 0.125, "output": 10}}`.
 * Unset → an empty table (every cost unknown). Throws CodexSetupError saying what is wrong.
 */
export function loadPriceTable(env: Record<string, string | undefined>): PriceTable {
  const raw = env[CODEX_SETTINGS.prices]?.trim() ?? "";
  if (raw === "") return {};
  let text = raw;
  const where = raw.startsWith("{") ? CODEX_SETTINGS.prices : `${CODEX_SETTINGS.prices} (${raw})`;
  if (!raw.startsWith("{")) {
    try {
      text = readFileSync(raw, "utf8");
    } catch (err) {
      throw new CodexSetupError(
        `${CODEX_SETTINGS.prices}=${raw} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        "Point it at a JSON price file, or give the JSON inline",
      );
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CodexSetupError(
      `${where} is not valid JSON: ${(err as Error).message}`,
      'Write it as {"<model>": {"input": USD per 1M, "cachedInput": USD per 1M, "output": USD per 1M}}',
    );
  }
  const parsed = PriceTable.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.join(".") || "(top level)";
    throw new CodexSetupError(
      `${where} is not a price table: ${at}: ${issue?.message ?? "invalid"}`,
      'Each model maps to {"input": n, "output": n} (and optionally "cachedInput"), USD per million tokens',
    );
  }
  return parsed.data;
}

/** The session's cost in USD (6 decimals), or null when `model` has no price. */
export function costOf(table: PriceTable, model: string, usage: CodexUsage): number | null {
  const price = table[model];
  if (price === undefined) return null;
  const cached = Math.min(usage.cached, usage.input);
  const fresh = usage.input - cached;
  const usd =
    (fresh * price.input +
      cached * (price.cachedInput ?? price.input) +
      usage.output * price.output) /
    1_000_000;
  return roundUsd(usd);
}
