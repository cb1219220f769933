// JobBench's own settings (docs/benchmarks.md "Settings"), each with the original's default.

import { type IntSetting, readIntSettings } from "../common/settings.ts";

type JbInt = "attempts" | "timeoutS" | "judgeRubricTimeoutS" | "judgeRetries" | "judgeWorkers";

export type JbSettings = Record<JbInt, number>;

export const JB_SETTINGS: readonly IntSetting<JbInt>[] = [
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
  return readIntSettings(env, JB_SETTINGS);
}
