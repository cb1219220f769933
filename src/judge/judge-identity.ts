// Who judges: a flat record (scorer, version, model, …) stored on every judgment as canonical JSON,
// and the field-by-field difference when an experiment's judge would change. Judgments by
// different judges are not comparable, so a change is refused, never mixed in silently.

import { Harness2Error } from "../core/lib/errors.ts";

export type JudgeIdentity = Readonly<Record<string, string>>;

/** Canonical text of an identity: JSON with sorted keys (what the store's `judge` column holds). */
export function judgeIdentityText(identity: JudgeIdentity): string {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(identity).sort()) sorted[key] = identity[key] as string;
  return JSON.stringify(sorted);
}

/** An identity read back from the store; a legacy free-text judge becomes `{judge: text}`. */
export function parseJudgeIdentity(text: string): JudgeIdentity {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      const out: Record<string, string> = {};
      for (const [k, x] of Object.entries(v))
        out[k] = typeof x === "string" ? x : JSON.stringify(x);
      return out;
    }
  } catch {
    // not JSON: a free-text judge name
  }
  return { judge: text };
}

export type IdentityChange = { field: string; before: string | null; after: string | null };

/** The fields that differ between two identities, by field name. */
export function judgeIdentityChanges(
  before: JudgeIdentity,
  after: JudgeIdentity,
): IdentityChange[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return fields.flatMap((field) => {
    const b = before[field] ?? null;
    const a = after[field] ?? null;
    return b === a ? [] : [{ field, before: b, after: a }];
  });
}

/** One readable line per change: `model: was "a/x", now "a/y"`. */
export function describeChanges(changes: readonly IdentityChange[]): string {
  const show = (v: string | null) => (v === null ? "(absent)" : JSON.stringify(v));
  return changes.map((c) => `${c.field}: was ${show(c.before)}, now ${show(c.after)}`).join("; ");
}

/** The judge changed for an experiment that already has judgments. */
export class JudgeChangedError extends Harness2Error {
  constructor(
    readonly experiment: string,
    readonly previous: string,
    readonly changes: readonly IdentityChange[],
    readonly sweeps: readonly string[],
  ) {
    super(
      `the judge of experiment ${experiment} changed (${describeChanges(changes)}); it already judged sweep(s) ${sweeps.join(", ")}. Judgments by different judges are not comparable: judge with the recorded judge, or use a new runs directory (--runs / HARNESS2_RUNS_DIR) for a new experiment.`,
    );
  }
}
