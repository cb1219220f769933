// The budget ledger of one (mode, task): every executor rollout and improver session the mode
// spends, in the order recorded, and the identity R = 4k rollouts, P = 3k sessions (docs/method.md
// §6). It only counts and checks; it never decides what runs, and never lets a duplicate label
// pass.

import { z } from "zod";
import { expectedRollouts, expectedSessions } from "../events/budget.ts";
import { ModeToken } from "../events/registry.ts";
import { Harness2Error } from "../lib/errors.ts";
import { roundUsd } from "../lib/money.ts";

// The identity itself lives with the events (core/events/budget.ts), where every reader finds it.
export { expectedRollouts, expectedSessions } from "../events/budget.ts";

export const EntryKind = z.enum(["rollout", "session"]);
export type EntryKind = z.infer<typeof EntryKind>;

export const LedgerEntry = z
  .object({
    kind: EntryKind,
    label: z.string().min(1, { error: "a ledger entry's label must be non-empty" }),
    usd: z
      .number()
      .nonnegative({ error: (iss) => `usd must be ≥ 0, got ${String(iss.input)}` })
      .default(0),
    cached: z.boolean().default(false),
    /** Transport sessions actually launched (0 for a fully cached stage); retries are not entries. */
    attempts: z
      .number()
      .int()
      .nonnegative({ error: (iss) => `attempts must be an integer ≥ 0, got ${String(iss.input)}` })
      .default(1),
  })
  .readonly();
export type LedgerEntry = z.infer<typeof LedgerEntry>;

/** The ledger as stored in summaries and events. */
export const LedgerRecord = z.object({
  mode: ModeToken,
  taskId: z.string(),
  k: z.number().int().positive(),
  R: z.number().int().nonnegative(),
  expectedR: z.number().int().nonnegative(),
  P: z.number().int().nonnegative(),
  expectedP: z.number().int().nonnegative(),
  sessionAttempts: z.number().int().nonnegative(),
  usd: z.number().nonnegative(),
  rolloutUsd: z.number().nonnegative(),
  sessionUsd: z.number().nonnegative(),
  rollouts: z.array(z.string()),
  sessions: z.array(z.string()),
});
export type LedgerRecord = z.infer<typeof LedgerRecord>;

function duplicatesOf(labels: readonly string[]): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const l of labels) (seen.has(l) ? dups : seen).add(l);
  return [...dups];
}

/** The budget identity does not hold: a repeated label, or R ≠ 4k / P ≠ 3k. */
export class LedgerIdentityError extends Harness2Error {
  static override readonly errorKind = "bug";
  constructor(
    readonly mode: ModeToken,
    readonly taskId: string,
    readonly k: number,
    readonly R: number,
    readonly P: number,
    readonly labels: { rollouts: string[]; sessions: string[] },
    readonly duplicates: { rollouts: string[]; sessions: string[] },
  ) {
    const list = (xs: string[]) => (xs.length === 0 ? "(none)" : xs.join(", "));
    const lines = [
      `${mode}-${k} ${taskId}: R=${R} (want ${expectedRollouts(k)}), P=${P} (want ${expectedSessions(k)})`,
    ];
    // Repeated labels come first: they can make the counts come out right by accident.
    if (duplicates.rollouts.length + duplicates.sessions.length > 0) {
      const parts = [
        ...duplicates.rollouts.map((l) => `rollout ${l}`),
        ...duplicates.sessions.map((l) => `session ${l}`),
      ];
      lines.push(
        `  repeated labels: ${parts.join(", ")} — two stages wrote the same run id and one silently ` +
          "overwrote the other, so a candidate the ledger counts was never really produced",
      );
    }
    lines.push(`  rollouts: ${list(labels.rollouts)}`, `  sessions: ${list(labels.sessions)}`);
    super(lines.join("\n"));
  }

  /** Which check failed first: duplicates are checked before counts. */
  get reason(): "duplicate-labels" | "count-mismatch" {
    return this.duplicates.rollouts.length + this.duplicates.sessions.length > 0
      ? "duplicate-labels"
      : "count-mismatch";
  }
}

/** Append-only record of one mode's spending on one task. */
export class Ledger {
  readonly mode: ModeToken;
  readonly taskId: string;
  readonly k: number;
  readonly #entries: LedgerEntry[] = [];

  constructor(mode: ModeToken, taskId: string, k: number) {
    this.mode = ModeToken.parse(mode);
    this.taskId = z.string().min(1, { error: "a ledger needs a task id" }).parse(taskId);
    this.k = z
      .number()
      .int()
      .min(1, { error: (iss) => `k must be an integer ≥ 1, got ${String(iss.input)}` })
      .parse(k);
  }

  get entries(): readonly LedgerEntry[] {
    return this.#entries;
  }

  /** Records one executor rollout, dead or alive (a dead rollout still spent its budget slot). */
  rollout(label: string, opts: { usd?: number; cached?: boolean } = {}): LedgerEntry {
    return this.#push({ kind: "rollout", label, ...opts, attempts: 1 });
  }

  /** Records one improvement stage; its retries are `attempts`, never extra entries. */
  session(
    label: string,
    opts: { usd?: number; cached?: boolean; attempts?: number } = {},
  ): LedgerEntry {
    return this.#push({ kind: "session", label, ...opts });
  }

  #push(input: z.input<typeof LedgerEntry>): LedgerEntry {
    const entry = LedgerEntry.parse(input);
    this.#entries.push(entry);
    return entry;
  }

  get R(): number {
    return this.labels("rollout").length;
  }

  get P(): number {
    return this.labels("session").length;
  }

  /** Labels of one kind, in insertion order. */
  labels(kind: EntryKind): string[] {
    return this.#entries.filter((e) => e.kind === kind).map((e) => e.label);
  }

  #sum(kind?: EntryKind): number {
    return roundUsd(
      this.#entries
        .filter((e) => kind === undefined || e.kind === kind)
        .reduce((s, e) => s + e.usd, 0),
    );
  }

  get usd(): number {
    return this.#sum();
  }

  get rolloutUsd(): number {
    return this.#sum("rollout");
  }

  get sessionUsd(): number {
    return this.#sum("session");
  }

  get sessionAttempts(): number {
    return this.#entries.filter((e) => e.kind === "session").reduce((s, e) => s + e.attempts, 0);
  }

  /**
   * Throws LedgerIdentityError unless no label repeats within a kind and R = 4k, P = 3k.
   * The same label once as a session and once as a rollout (`inv1`) is normal.
   */
  assertIdentity(): void {
    const rollouts = this.labels("rollout");
    const sessions = this.labels("session");
    const duplicates = { rollouts: duplicatesOf(rollouts), sessions: duplicatesOf(sessions) };
    const clean = duplicates.rollouts.length === 0 && duplicates.sessions.length === 0;
    if (
      clean &&
      rollouts.length === expectedRollouts(this.k) &&
      sessions.length === expectedSessions(this.k)
    ) {
      return;
    }
    throw new LedgerIdentityError(
      this.mode,
      this.taskId,
      this.k,
      rollouts.length,
      sessions.length,
      { rollouts, sessions },
      duplicates,
    );
  }

  toRecord(): LedgerRecord {
    return LedgerRecord.parse({
      mode: this.mode,
      taskId: this.taskId,
      k: this.k,
      R: this.R,
      expectedR: expectedRollouts(this.k),
      P: this.P,
      expectedP: expectedSessions(this.k),
      sessionAttempts: this.sessionAttempts,
      usd: this.usd,
      rolloutUsd: this.rolloutUsd,
      sessionUsd: this.sessionUsd,
      rollouts: this.labels("rollout"),
      sessions: this.labels("session"),
    });
  }
}

/**
 * The label order recursion produces (docs/method.md §6). agg: rollouts base1..k, inv1, dom1, …,
 * invk, domk, agg1..k; sessions inv1, dom1, …, agg1..k. seq: rollouts base1..k then inv_t, dom_t,
 * c_t per round; sessions inv_t, dom_t, c_t per round.
 */
export function expectedLabels(
  mode: ModeToken,
  k: number,
): { rollouts: string[]; sessions: string[] } {
  const idx = Array.from({ length: k }, (_, i) => i + 1);
  const bases = idx.map((i) => `base${i}`);
  if (mode === "agg") {
    const candidates = idx.flatMap((i) => [`inv${i}`, `dom${i}`]);
    const finals = idx.map((i) => `agg${i}`);
    return { rollouts: [...bases, ...candidates, ...finals], sessions: [...candidates, ...finals] };
  }
  const rounds = idx.flatMap((t) => [`inv${t}`, `dom${t}`, `c${t}`]);
  return { rollouts: [...bases, ...rounds], sessions: rounds };
}
