// Record ids: prefixed, time-sortable, unique within a millisecond, typeable as prefixes.
import { describe, expect, test } from "bun:test";
import { idTime, isRecordId, newId, newSweepId, newTaskRecordId } from "../../store/ids.ts";

describe("record ids", () => {
  test("carry their prefix and the time they were made", () => {
    const t = Date.UTC(2026, 10, 30, 12, 0, 0);
    const id = newSweepId(t);
    expect(id).toMatch(/^swp_[0-9a-z]{18}$/);
    expect(isRecordId(id)).toBe(true);
    expect(idTime(id)).toBe(t);
    expect(newTaskRecordId(t)).toMatch(/^tsk_/);
  });

  test("sort by creation time, including many made in the same millisecond", () => {
    const t = Date.UTC(2026, 10, 30, 12, 0, 0);
    const ids = [
      ...Array.from({ length: 500 }, () => newId("tsk", t)),
      newId("tsk", t + 1),
      newId("tsk", t + 1000),
      newId("tsk", t + 86_400_000),
    ];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("use no ambiguous letters, so a prefix can be typed", () => {
    for (let i = 0; i < 200; i++) expect(newSweepId().slice(4)).not.toMatch(/[ilou]/);
  });

  test("isRecordId rejects other shapes", () => {
    for (const s of ["swp_", "run_0123456789abcdefgh", "swp_0123456789ABCDEFGH", "last"]) {
      expect(isRecordId(s)).toBe(false);
    }
  });
});
