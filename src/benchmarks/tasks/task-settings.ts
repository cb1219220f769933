// task.toml: its schema (domain, timeout, deliverables, check_timeout), and what a bad value is
// told: each problem prefixed with its key and that key's own fix, the value's TOML kind named,
// never a raw schema message.

import { z } from "zod";
import { relSegments } from "../../core/lib/safe-fs.ts";

/** Domain and task folder names: they become ids, run ids and directory names. */
export const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const NAME_RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit";

const DeliverableName = z.string().refine(
  (s) => {
    try {
      return relSegments(s).length > 0 && !s.endsWith("/");
    } catch {
      return false;
    }
  },
  { error: (iss) => `${JSON.stringify(iss.input)} is not a relative file path` },
);

const wholeSeconds = () =>
  z
    .number()
    .int()
    .min(1, { error: (iss) => `${String(iss.input)} is less than 1 second` });

/**
 * task.toml. Unknown keys are refused so a typo never silently does nothing. Messages say what is
 * wrong with the value; the key is prefixed where they are reported (settingsProblem).
 */
export const TaskSettings = z.strictObject({
  /** The library domain; default: the folder the task sits in. */
  domain: z
    .string()
    .regex(NAME, { error: (iss) => `${JSON.stringify(iss.input)} is not a plain folder name` })
    .optional(),
  /** Seconds per rollout (HARNESS2_ROLLOUT_TIMEOUT, when set, wins). */
  timeout: wholeSeconds().optional(),
  /** File names the agent is asked to save under output/. */
  deliverables: z.array(DeliverableName).optional(),
  /** Seconds the judge gives tests/check. */
  check_timeout: wholeSeconds().optional(),
});
export type TaskSettings = z.infer<typeof TaskSettings>;

/** The fix for a bad value of each task.toml key. */
export const SETTING_FIXES: Record<keyof TaskSettings, string> = {
  domain: `domain must be a single folder name without / or .. (${NAME_RULE}), e.g. domain = "finance"`,
  timeout: "timeout must be a whole number of seconds ≥ 1, e.g. timeout = 600",
  deliverables: 'deliverables must be a list of file names, e.g. deliverables = ["report.md"]',
  check_timeout: "check_timeout must be a whole number of seconds ≥ 1, e.g. check_timeout = 60",
};
export const DELIVERABLE_ENTRY_FIX =
  'each deliverables entry must be a file path relative to output/, without .. or a leading /, e.g. "report.md" or "tables/summary.csv"';

export const EXPECTED: Record<string, string> = {
  array: "a list",
  string: "a string",
  number: "a number",
  int: "a whole number",
};

/** One task.toml issue as a problem prefixed with the key it is about, and that key's own fix. */
export function settingsProblem(
  issue: z.core.$ZodIssue,
  raw: unknown,
): { problem: string; fix: string } {
  if (issue.code === "unrecognized_keys") {
    return {
      problem: `unknown key(s) ${issue.keys.join(", ")}`,
      fix: `allowed keys: ${Object.keys(TaskSettings.shape).join(", ")}`,
    };
  }
  const key = String(issue.path[0] ?? "") as keyof TaskSettings;
  const at = issue.path
    .map((k, i) => (typeof k === "number" ? `[${k}]` : i > 0 ? `.${String(k)}` : String(k)))
    .join("");
  const what =
    issue.code === "invalid_type"
      ? `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${tomlValueKind(valueAt(raw, issue.path))}`
      : issue.message;
  const fix =
    key === "deliverables" && issue.path.length > 1 ? DELIVERABLE_ENTRY_FIX : SETTING_FIXES[key];
  return { problem: `${at}: ${what}`, fix: fix ?? "see fixtures/tasks/README.md" };
}

export function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const k of path) v = (v as Record<PropertyKey, unknown> | null)?.[k];
  return v;
}

export function tomlValueKind(v: unknown): string {
  if (typeof v === "string") return `a string (${JSON.stringify(v)})`;
  if (typeof v === "number") return Number.isInteger(v) ? `${v}` : `the number ${v}`;
  if (typeof v === "boolean") return `a boolean (${v})`;
  if (Array.isArray(v)) return "a list";
  if (v instanceof Date) return "a date";
  return v === null || v === undefined ? "nothing" : "a table";
}
