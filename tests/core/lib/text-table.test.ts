// fitColumns: what a narrow terminal keeps. Empty columns go first, then by drop rank; columns
// without a rank always stay, even when the table is still too wide.
import { describe, expect, test } from "bun:test";
import { fitColumns, type TextColumn, textTable } from "../../../src/core/lib/text-table.ts";

const COLS: TextColumn[] = [
  { header: "ID" },
  { header: "NAME", drop: 2 },
  { header: "IDLE", drop: 9 },
  { header: "NOTE", drop: 1 },
  { header: "N", align: "right" },
];
const ROWS = [
  ["a1", "a long descriptive name", "0", "short", "12"],
  ["b2", "another long name here", "-", "note", "7"],
];

describe("fitColumns", () => {
  test("wide enough: nothing hidden", () => {
    const f = fitColumns(COLS, ROWS, 200);
    expect(f.hidden).toEqual([]);
    expect(f.columns).toHaveLength(5);
  });

  test("an empty column goes before any ranked one, then the lowest rank", () => {
    const full = textTable(COLS, ROWS)[0]?.length ?? 0;
    expect(fitColumns(COLS, ROWS, full - 1).hidden).toEqual(["IDLE"]);
    const f = fitColumns(COLS, ROWS, 20);
    expect(f.hidden).toEqual(["NAME", "IDLE", "NOTE"]);
    expect(f.rows).toEqual([
      ["a1", "12"],
      ["b2", "7"],
    ]);
  });

  test("unranked columns stay even when the table cannot fit", () => {
    const f = fitColumns(COLS, ROWS, 3);
    expect(f.columns.map((c) => c.header)).toEqual(["ID", "N"]);
  });
});
