// A benchmark's own settings (docs/benchmarks.md "Settings"): what the original hard-coded, each a
// HARNESS2_<BENCH>_* variable with the original's value as its default. A malformed value is a
// ConfigError naming the variable and what it allows.

import { asInt } from "../../core/run/env-vars.ts";

export type IntSetting<K extends string> = {
  name: string;
  key: K;
  default: number;
  /** The smallest value allowed (1 unless said). */
  min?: number;
  help: string;
};

/** Each setting's value from `env`, its default when unset or blank. */
export function readIntSettings<K extends string>(
  env: Record<string, string | undefined>,
  table: readonly IntSetting<K>[],
): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const s of table) {
    const raw = env[s.name];
    const min = s.min ?? 1;
    out[s.key] =
      raw === undefined || raw.trim() === ""
        ? s.default
        : (asInt(min, `a whole number ≥ ${min}`)(raw, s.name) as number);
  }
  return out;
}
