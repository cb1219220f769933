// JobBench's own settings (docs/benchmarks.md "Settings"): what the original hard-coded, each a
// HARNESS2_JB_* variable with the original's value as its default. A malformed value is a
// ConfigError naming the variable and what it allows.

import { asInt, ConfigError } from "../../core/run/env-vars.ts";

export type JbSettings = {
  /** Tries of a rollout that ends normally with no output (original: 2). */
  attempts: number;
  /** Rollout limit in seconds when HARNESS2_ROLLOUT_TIMEOUT is unset (original: 2400). */
  timeoutS: number;
  /** The judge's limit per rubric, seconds (upstream's default 300). */
  judgeRubricTimeoutS: number;
  /** The judge's retries per rubric (upstream: 3). */
  judgeRetries: number;
  /** Rubrics the judge sends at once (upstream: 10). */
  judgeWorkers: number;
  /** The python that runs the upstream judge; "" = the checkout's .venv, else python3. */
  judgePython: string;
};

export const JB_SETTINGS: readonly {
  name: string;
  key: Exclude<keyof JbSettings, "judgePython">;
  default: number;
  help: string;
}[] = [
  {
    name: "HARNESS2_JB_ATTEMPTS",
    key: "attempts",
    default: 2,
    help: "tries of a rollout that writes no output",
  },
  { name: "HARNESS2_JB_TIMEOUT", key: "timeoutS", default: 2400, help: "rollout limit, s" },
  {
    name: "HARNESS2_JB_JUDGE_RUBRIC_TIMEOUT",
    key: "judgeRubricTimeoutS",
    default: 300,
    help: "the judge's limit per rubric, s",
  },
  {
    name: "HARNESS2_JB_JUDGE_RETRIES",
    key: "judgeRetries",
    default: 3,
    help: "judge retries per rubric",
  },
  {
    name: "HARNESS2_JB_JUDGE_WORKERS",
    key: "judgeWorkers",
    default: 10,
    help: "rubrics judged at once",
  },
];

export function jbSettings(env: Record<string, string | undefined>): JbSettings {
  const out: Record<string, number | string> = { judgePython: env.HARNESS2_JB_JUDGE_PYTHON ?? "" };
  for (const s of JB_SETTINGS) {
    const raw = env[s.name];
    if (raw === undefined || raw.trim() === "") {
      out[s.key] = s.default;
      continue;
    }
    const v = asInt(1, "a whole number ≥ 1")(raw, s.name);
    if (typeof v !== "number") throw new ConfigError(s.name, raw, "a whole number ≥ 1");
    out[s.key] = v;
  }
  return out as JbSettings;
}
