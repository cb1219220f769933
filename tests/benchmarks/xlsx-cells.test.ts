// The spreadsheet reader on jszip + fast-xml-parser (issue 32: exceljs and its 169 packages gone).
// kinds.xlsx and date1904.xlsx were written by ExcelJS 4.4.0, the library harness2 read them with
// before; the expected text below is what the ExcelJS-based renderer printed for them, so the
// improver sees the same cells as before: values, shared strings, rich text, booleans, errors,
// dates under date and time formats (1900 and 1904 systems), formulas with and without a cached
// value, and shared formulas.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  isDateFormatCode,
  readWorkbook,
  serialToDate,
} from "../../src/benchmarks/common/xlsx-cells.ts";
import { renderWorkbook } from "../../src/benchmarks/workbuddy/wb-render.ts";

const FIXTURES = join(import.meta.dir, "fixtures");

describe("renderWorkbook on workbooks ExcelJS wrote", () => {
  test("every kind of cell reads as it did with ExcelJS", async () => {
    expect(await renderWorkbook(join(FIXTURES, "kinds.xlsx"))).toBe(
      [
        '## Sheet "Kinds" (5 rows × 8 columns)',
        "A1: text",
        "B1: 42.5",
        "C1: true",
        "D1: 2026-03-15T00:00:00.000Z",
        "E1: 2026-03-15T13:30:00.000Z",
        "F1: rich bold",
        "G1: #DIV/0!",
        "A2: 0.25",
        "B2: 1234.5",
        "C2: =B1*2 → 85",
        "D2: =SUM(B1:B2) → no cached value: a reader that loads values only sees this cell empty",
        'E2: =A1&"x" → textx',
        "F2: =B1>1 → true",
        "A4: after a gap",
        "H4: 7",
        "B5: same",
        "C5: same",
        '## Sheet "Shared" (3 rows × 3 columns)',
        "A1: 1",
        "B1: =A1*10 → 10",
        "C1: 2024-02-29T00:00:00.000Z",
        "A2: 2",
        "B2: =(shared) B1 → 20",
        "A3: 3",
        "B3: =(shared) B1 → 30",
        '## Sheet "Empty" (0 rows × 0 columns)',
      ].join("\n"),
    );
  });

  test("a workbook in the 1904 date system keeps its dates; plain numbers stay numbers", async () => {
    expect(await renderWorkbook(join(FIXTURES, "date1904.xlsx"))).toBe(
      ['## Sheet "Mac" (2 rows × 1 columns)', "A1: 2026-01-01T00:00:00.000Z", "A2: 45000"].join(
        "\n",
      ),
    );
  });

  test("the benchmarks' own workbooks: inline strings and numbers, sheet by sheet", async () => {
    const path = join(
      import.meta.dir,
      "../../fixtures/benchmarks/workbuddy/datasets/wb-bench-office-v1.0/tasks/q3-expense-totals/environment/files/expenses.xlsx",
    );
    const sheets = await readWorkbook(readFileSync(path));
    expect(sheets.map((s) => [s.name, s.rowCount, s.columnCount])).toEqual([
      ["Expenses", 7, 3],
      ["Notes", expect.any(Number), expect.any(Number)],
    ]);
    expect(sheets[0]?.cells.slice(0, 6).map((c) => `${c.address}=${String(c.value)}`)).toEqual([
      "A1=Date",
      "B1=Category",
      "C1=Amount",
      "A2=2026-07-03",
      "B2=Travel",
      "C2=310",
    ]);
  });

  test("a file that is not a workbook is refused, not read as empty", async () => {
    await expect(readWorkbook(new TextEncoder().encode("not a zip"))).rejects.toThrow();
    const JSZip = (await import("jszip")).default;
    const zip = new JSZip();
    zip.file("word/document.xml", "<w/>");
    const bytes = await zip.generateAsync({ type: "uint8array" });
    await expect(readWorkbook(bytes)).rejects.toThrow(/not an \.xlsx workbook/);
  });
});

describe("number formats", () => {
  test("date and time codes are dates; percentages, currencies and quoted letters are not", () => {
    for (const code of [
      "yyyy-mm-dd",
      "m/d/yy",
      "dd/mm/yyyy hh:mm",
      "mmm d, yyyy",
      "[h]:mm:ss",
      "h:mm AM/PM",
    ]) {
      expect({ code, date: isDateFormatCode(code) }).toEqual({ code, date: true });
    }
    for (const code of [
      "General",
      "0.00%",
      '#,##0.00 "days"',
      "[Red]0.00",
      "0.00E+00",
      '"$"#,##0',
    ]) {
      expect({ code, date: isDateFormatCode(code) }).toEqual({ code, date: false });
    }
  });

  test("serial days: 1900 and 1904 systems, with the time of day", () => {
    expect(serialToDate(46096, false).toISOString()).toBe("2026-03-15T00:00:00.000Z");
    expect(serialToDate(46096.5625, false).toISOString()).toBe("2026-03-15T13:30:00.000Z");
    expect(serialToDate(44561, true).toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });
});
