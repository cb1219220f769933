// The budget identity R = 4k, P = 3k: the label orders recursion produces pass, repeated labels
// are caught before (and even when) the counts agree, sums round to 6 decimals, and the record.
import { describe, expect, test } from "bun:test";
import {
  expectedLabels,
  expectedRollouts,
  expectedSessions,
  Ledger,
  LedgerIdentityError,
} from "../../../src/core/recursion/ledger.ts";

function fill(ledger: Ledger, rollouts: string[], sessions: string[]): Ledger {
  for (const l of rollouts) ledger.rollout(l);
  for (const l of sessions) ledger.session(l);
  return ledger;
}

function identityError(ledger: Ledger): LedgerIdentityError {
  try {
    ledger.assertIdentity();
  } catch (err) {
    if (err instanceof LedgerIdentityError) return err;
    throw err;
  }
  throw new Error("expected LedgerIdentityError");
}

// The label orders of docs/method.md §6, written out by hand.
const ORDERS = {
  "agg-1": {
    rollouts: ["base1", "inv1", "dom1", "agg1"],
    sessions: ["inv1", "dom1", "agg1"],
  },
  "agg-2": {
    rollouts: ["base1", "base2", "inv1", "dom1", "inv2", "dom2", "agg1", "agg2"],
    sessions: ["inv1", "dom1", "inv2", "dom2", "agg1", "agg2"],
  },
  "seq-1": {
    rollouts: ["base1", "inv1", "dom1", "c1"],
    sessions: ["inv1", "dom1", "c1"],
  },
  "seq-2": {
    rollouts: ["base1", "base2", "inv1", "dom1", "c1", "inv2", "dom2", "c2"],
    sessions: ["inv1", "dom1", "c1", "inv2", "dom2", "c2"],
  },
} as const;

describe("expected budget", () => {
  test("R = 4k rollouts and P = 3k sessions", () => {
    expect([1, 2, 3, 5].map(expectedRollouts)).toEqual([4, 8, 12, 20]);
    expect([1, 2, 3, 5].map(expectedSessions)).toEqual([3, 6, 9, 15]);
  });

  test("expectedLabels gives recursion's orders for both modes", () => {
    for (const [key, order] of Object.entries(ORDERS)) {
      const [mode, k] = key.split("-") as ["agg" | "seq", string];
      expect(expectedLabels(mode, Number(k))).toEqual({
        rollouts: [...order.rollouts],
        sessions: [...order.sessions],
      });
    }
  });
});

describe("assertIdentity", () => {
  test("passes for the agg and seq label orders at k = 1 and 2", () => {
    for (const [key, order] of Object.entries(ORDERS)) {
      const [mode, k] = key.split("-") as ["agg" | "seq", string];
      const ledger = fill(
        new Ledger(mode, "t", Number(k)),
        [...order.rollouts],
        [...order.sessions],
      );
      expect(() => ledger.assertIdentity()).not.toThrow();
      expect(ledger.labels("rollout")).toEqual([...order.rollouts]);
      expect(ledger.labels("session")).toEqual([...order.sessions]);
    }
  });

  test("a repeated label fails even when the counts come out right", () => {
    const ledger = fill(
      new Ledger("agg", "t", 1),
      ["base1", "inv1", "inv1", "agg1"],
      ["inv1", "dom1", "agg1"],
    );
    expect(ledger.R).toBe(4);
    expect(ledger.P).toBe(3);
    const err = identityError(ledger);
    expect(err.reason).toBe("duplicate-labels");
    expect(err.duplicates).toEqual({ rollouts: ["inv1"], sessions: [] });
    expect(err.message).toContain("repeated labels: rollout inv1");
    expect(err.message).toContain("overwrote");
  });

  test("duplicates are reported before a count mismatch", () => {
    const ledger = fill(new Ledger("seq", "acct/q1", 2), ["base1", "base2", "inv1"], ["c1", "c1"]);
    const err = identityError(ledger);
    expect(err.reason).toBe("duplicate-labels");
    const lines = err.message.split("\n");
    expect(lines[0]).toBe("seq-2 acct/q1: R=3 (want 8), P=2 (want 6)");
    expect(lines[1]).toContain("repeated labels: session c1");
    expect(lines.findIndex((l) => l.includes("rollouts:"))).toBeGreaterThan(1);
    expect(err.mode).toBe("seq");
    expect(err.taskId).toBe("acct/q1");
    expect(err.k).toBe(2);
    expect(err.R).toBe(3);
    expect(err.P).toBe(2);
    expect(err.labels).toEqual({ rollouts: ["base1", "base2", "inv1"], sessions: ["c1", "c1"] });
  });

  test("a count mismatch alone names actual and wanted counts and every label", () => {
    const ledger = fill(new Ledger("agg", "t", 1), ["base1", "inv1", "dom1"], []);
    const err = identityError(ledger);
    expect(err.reason).toBe("count-mismatch");
    expect(err.message).toBe(
      [
        "agg-1 t: R=3 (want 4), P=0 (want 3)",
        "  rollouts: base1, inv1, dom1",
        "  sessions: (none)",
      ].join("\n"),
    );
  });

  test("the same label once as a rollout and once as a session is normal", () => {
    const ledger = fill(
      new Ledger("agg", "t", 1),
      [...ORDERS["agg-1"].rollouts],
      [...ORDERS["agg-1"].sessions],
    );
    expect(ledger.labels("rollout")).toContain("inv1");
    expect(ledger.labels("session")).toContain("inv1");
    expect(() => ledger.assertIdentity()).not.toThrow();
  });
});

describe("sums and record", () => {
  test("usd sums per kind round to 6 decimals; attempts add up over sessions", () => {
    const ledger = new Ledger("agg", "t", 1);
    ledger.rollout("base1", { usd: 0.1 });
    ledger.rollout("inv1", { usd: 0.2 });
    ledger.session("inv1", { usd: 0.1234567, attempts: 3 });
    ledger.session("dom1", { usd: 0, cached: true, attempts: 0 });
    expect(ledger.rolloutUsd).toBe(0.3);
    expect(ledger.sessionUsd).toBe(0.123457);
    expect(ledger.usd).toBe(0.423457);
    expect(ledger.sessionAttempts).toBe(3);
    expect(ledger.entries[0]).toEqual({
      kind: "rollout",
      label: "base1",
      usd: 0.1,
      cached: false,
      attempts: 1,
    });
    expect(ledger.entries[3]).toEqual({
      kind: "session",
      label: "dom1",
      usd: 0,
      cached: true,
      attempts: 0,
    });
  });

  test("toRecord carries R/P against their expected values and the label lists", () => {
    const ledger = fill(
      new Ledger("seq", "t", 1),
      [...ORDERS["seq-1"].rollouts],
      [...ORDERS["seq-1"].sessions],
    );
    expect(ledger.toRecord()).toEqual({
      mode: "seq",
      taskId: "t",
      k: 1,
      R: 4,
      expectedR: 4,
      P: 3,
      expectedP: 3,
      sessionAttempts: 3,
      usd: 0,
      rolloutUsd: 0,
      sessionUsd: 0,
      rollouts: [...ORDERS["seq-1"].rollouts],
      sessions: [...ORDERS["seq-1"].sessions],
    });
  });

  test("refuses impossible entries and ledgers", () => {
    const ledger = new Ledger("agg", "t", 1);
    expect(() => ledger.session("inv1", { usd: -1 })).toThrow(/usd must be ≥ 0, got -1/);
    expect(() => ledger.session("inv1", { attempts: 1.5 })).toThrow(/attempts/);
    expect(() => ledger.rollout("")).toThrow(/label/);
    expect(ledger.entries).toHaveLength(0);
    expect(() => new Ledger("agg", "t", 0)).toThrow(/k must be an integer ≥ 1, got 0/);
    expect(() => new Ledger("both" as "agg", "t", 1)).toThrow();
  });
});
