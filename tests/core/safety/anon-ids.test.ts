// Anonymous ids: the alphabet, and a deterministic shuffle that never exposes labels.
import { describe, expect, test } from "bun:test";
import {
  anonId,
  anonIndex,
  assignIds,
  compareAnonIds,
  idOfLabel,
} from "../../../src/core/safety/anon-ids.ts";

describe("anonId", () => {
  test("is bijective base-26 over A–Z", () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(anonId)).toEqual([
      "A",
      "B",
      "Z",
      "AA",
      "AB",
      "AZ",
      "BA",
      "ZZ",
      "AAA",
    ]);
  });

  test("anonIndex inverts it and rejects non-ids", () => {
    for (let i = 0; i < 2000; i++) expect(anonIndex(anonId(i))).toBe(i);
    expect(anonIndex("a")).toBe(-1);
    expect(anonIndex("agg1")).toBe(-1);
    expect(() => anonId(-1)).toThrow(RangeError);
  });

  test("ids order by position, not lexicographically", () => {
    expect(["AA", "B", "A", "Z"].sort(compareAnonIds)).toEqual(["A", "B", "Z", "AA"]);
  });
});

describe("assignIds", () => {
  const finals = ["agg1", "agg2", "agg3", "agg4"];

  test("is deterministic and independent of input order", () => {
    const a = assignIds(finals, "ledger-1", 4, "agg");
    const b = assignIds([...finals].reverse(), "ledger-1", 4, "agg");
    expect(b).toEqual(a);
    expect(Object.keys(a)).toEqual(["A", "B", "C", "D"]);
  });

  test("is stable across runs (pinned values)", () => {
    // Pinned so an accidental change of the algorithm (and of every stored id) shows up here.
    expect(assignIds(["agg3", "agg1", "agg4", "agg2"], "ledger-1", 4, "agg")).toEqual({
      A: "agg2",
      B: "agg3",
      C: "agg1",
      D: "agg4",
    });
    expect(assignIds(["c1", "c2", "c3"], "ledger-2", 3, "seq")).toEqual({
      A: "c1",
      B: "c3",
      C: "c2",
    });
  });

  test("ids are distinct, cover every label once, and are never a label", () => {
    const labels = Array.from({ length: 30 }, (_, i) => `c${i + 1}`);
    const map = assignIds(labels, "t/1", 30, "seq");
    expect(new Set(Object.keys(map)).size).toBe(30);
    expect(Object.values(map).sort()).toEqual([...labels].sort());
    for (const id of Object.keys(map)) {
      expect(labels).not.toContain(id);
      expect(id).toMatch(/^[A-Z]+$/);
    }
  });

  test("different tasks, k or modes shuffle differently", () => {
    const labels = Array.from({ length: 8 }, (_, i) => `agg${i + 1}`);
    const seen = new Set<string>();
    for (const task of ["a", "b", "c", "d"]) {
      seen.add(JSON.stringify(assignIds(labels, task, 8, "agg")));
    }
    seen.add(JSON.stringify(assignIds(labels, "a", 8, "seq")));
    // 8! orderings: five seeds colliding into fewer than four distinct orders would mean the
    // seed is not reaching the shuffle.
    expect(seen.size).toBeGreaterThanOrEqual(4);
  });

  test("the shuffle is not the sorted order for most seeds", () => {
    const labels = ["agg1", "agg2", "agg3"];
    let identity = 0;
    for (let t = 0; t < 60; t++) {
      const map = assignIds(labels, `task-${t}`, 3, "agg");
      if (Object.values(map).join() === labels.join()) identity++;
    }
    // Uniform over 6 orders: ~10 of 60 expected; all 60 would mean no shuffle at all.
    expect(identity).toBeLessThan(25);
    expect(identity).toBeGreaterThan(0);
  });

  test("refuses duplicate labels; idOfLabel decodes back", () => {
    expect(() => assignIds(["c1", "c1"], "t", 2, "seq")).toThrow(RangeError);
    const map = assignIds(["c1", "c2"], "t", 2, "seq");
    expect(map[idOfLabel(map, "c2")]).toBe("c2");
    expect(idOfLabel(map, "c9")).toBe("");
  });
});
