// LAB's own settings (docs/benchmarks.md "Settings"), each with the original's default.

import { type IntSetting, readIntSettings } from "../common/settings.ts";

type LabInt = "nudges" | "timeoutS" | "judgeTimeoutS";

export type LabSettings = Record<LabInt, number>;

export const LAB_SETTINGS: readonly IntSetting<LabInt>[] = [
  {
    name: "HARNESS2_LAB_NUDGES",
    key: "nudges",
    default: 2,
    min: 0,
    help: "follow-ups when the agent stops before every named file exists",
  },
  { name: "HARNESS2_LAB_TIMEOUT", key: "timeoutS", default: 3600, help: "rollout limit, s" },
  {
    name: "HARNESS2_LAB_JUDGE_TIMEOUT",
    key: "judgeTimeoutS",
    default: 3600,
    help: "the evaluation's limit, s",
  },
];

export function labSettings(env: Record<string, string | undefined>): LabSettings {
  return readIntSettings(env, LAB_SETTINGS);
}
