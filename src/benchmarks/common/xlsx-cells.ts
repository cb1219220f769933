// The cells of an .xlsx workbook, read straight from its parts (ECMA-376 SpreadsheetML) with jszip
// and fast-xml-parser: each sheet in workbook order with its size, and each non-empty cell's
// value, its formula (a shared formula's followers name their master cell) and the formula's
// cached result. Numbers under a date or time format become dates, in the 1900 or the 1904 date
// system as the workbook says. Used to show a delivered spreadsheet to the improver and the
// selector (workbuddy/wb-render.ts); docs/benchmarks.md "WorkBuddy: what is shown".

import { XMLParser } from "fast-xml-parser";
import JSZip from "jszip";

/** One cell's value as read: text, a number, a boolean, a date, or an error code like #DIV/0!. */
export type CellValue = string | number | boolean | Date | { error: string };

export type Cell = {
  /** A1-style address. */
  address: string;
  /** The value, or for a formula cell its cached result (undefined when it has none). */
  value: CellValue | undefined;
  /** The formula without its `=`, when the cell has one. */
  formula?: string;
  /** For a follower of a shared formula: the address of the master cell that holds its text. */
  sharedFrom?: string;
};

export type Sheet = {
  name: string;
  /** The last row number that has a row element. */
  rowCount: number;
  /** The largest column number of any cell. */
  columnCount: number;
  /** Non-empty cells, row by row, left to right. */
  cells: Cell[];
};

const XML = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) =>
    ["sheet", "row", "c", "si", "r", "Relationship", "numFmt", "xf"].includes(name),
});

type Node = Record<string, unknown>;
const nodes = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : v ? [v as Node] : []);
const node = (v: unknown): Node => (v !== null && typeof v === "object" ? (v as Node) : {});
const attr = (n: Node, name: string): string | undefined => {
  const v = n[`@${name}`];
  return v === undefined ? undefined : String(v);
};

/** The text of a `<t>` element, however the parser shaped it. */
function textOf(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string" || typeof v === "number") return String(v);
  const t = node(v)["#text"];
  return t === undefined ? "" : String(t);
}

/** The text of a string item: its `<t>`, or its rich-text runs' `<t>`s joined. */
function stringItem(si: Node): string {
  if (si.t !== undefined) return textOf(si.t);
  return nodes(si.r)
    .map((r) => textOf(r.t))
    .join("");
}

/** Number formats 14–22 and 45–47 are dates or times in every locale (ECMA-376 §18.8.30). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** A format code shows a date or time when it has y, m, d, h or s outside quotes and brackets. */
export function isDateFormatCode(code: string): boolean {
  const bare = code
    .replace(/"[^"]*"/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\\./g, "");
  return /[ymdhs]/i.test(bare) && !/^General$/i.test(bare.trim());
}

/** The column number of an address's letters (A = 1). */
function columnOf(address: string): number {
  let n = 0;
  for (const ch of /^[A-Z]+/.exec(address)?.[0] ?? "") n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

function columnLetters(n: number): string {
  let s = "";
  for (let c = n; c > 0; c = Math.floor((c - 1) / 26))
    s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
  return s;
}

/** An Excel serial day number as a date (1900 system, or 1904 when the workbook says so). */
export function serialToDate(serial: number, date1904: boolean): Date {
  const epochDays = date1904 ? 24107 : 25569;
  return new Date(Math.round((serial - epochDays) * 86_400_000));
}

async function partText(zip: JSZip, path: string): Promise<string | undefined> {
  return zip.file(path)?.async("string");
}

/** The workbook's sheets, in order, with their cells. Throws when the file is not an .xlsx. */
export async function readWorkbook(bytes: Uint8Array): Promise<Sheet[]> {
  const zip = await JSZip.loadAsync(bytes);
  const workbookXml = await partText(zip, "xl/workbook.xml");
  if (workbookXml === undefined) throw new Error("not an .xlsx workbook (no xl/workbook.xml)");
  const workbook = node(XML.parse(workbookXml).workbook);
  const date1904 = ["1", "true"].includes(attr(node(workbook.workbookPr), "date1904") ?? "");

  const rels = new Map<string, string>();
  const relsXml = await partText(zip, "xl/_rels/workbook.xml.rels");
  for (const r of nodes(node(XML.parse(relsXml ?? "").Relationships).Relationship)) {
    const target = attr(r, "Target") ?? "";
    const id = attr(r, "Id");
    if (id) rels.set(id, target.startsWith("/") ? target.slice(1) : `xl/${target}`);
  }

  const shared = nodes(
    node(XML.parse((await partText(zip, "xl/sharedStrings.xml")) ?? "").sst).si,
  ).map(stringItem);

  const styles = node(XML.parse((await partText(zip, "xl/styles.xml")) ?? "").styleSheet);
  const customFormats = new Map<number, string>();
  for (const f of nodes(node(styles.numFmts).numFmt)) {
    customFormats.set(Number(attr(f, "numFmtId")), attr(f, "formatCode") ?? "");
  }
  const dateStyles = nodes(node(styles.cellXfs).xf).map((xf) => {
    const id = Number(attr(xf, "numFmtId") ?? 0);
    const custom = customFormats.get(id);
    return custom !== undefined ? isDateFormatCode(custom) : BUILTIN_DATE_FORMATS.has(id);
  });

  const sheets: Sheet[] = [];
  for (const s of nodes(node(workbook.sheets).sheet)) {
    const name = attr(s, "name") ?? "";
    const path = rels.get(attr(s, "r:id") ?? "") ?? "";
    const xml = await partText(zip, path);
    sheets.push(readSheet(name, xml ?? "", { shared, dateStyles, date1904 }));
  }
  return sheets;
}

type Context = { shared: string[]; dateStyles: boolean[]; date1904: boolean };

function readSheet(name: string, xml: string, ctx: Context): Sheet {
  const data = node(node(XML.parse(xml).worksheet).sheetData);
  const cells: Cell[] = [];
  const masters = new Map<string, string>();
  let rowCount = 0;
  let columnCount = 0;
  let rowNumber = 0;
  for (const row of nodes(data.row)) {
    rowNumber = Number(attr(row, "r") ?? rowNumber + 1);
    rowCount = Math.max(rowCount, rowNumber);
    let col = 0;
    for (const c of nodes(row.c)) {
      const address = attr(c, "r") ?? `${columnLetters(col + 1)}${rowNumber}`;
      col = columnOf(address);
      columnCount = Math.max(columnCount, col);
      const cell = readCell(c, address, ctx, masters);
      if (cell !== null) cells.push(cell);
    }
  }
  return { name, rowCount, columnCount, cells };
}

function readCell(
  c: Node,
  address: string,
  ctx: Context,
  masters: Map<string, string>,
): Cell | null {
  const type = attr(c, "t") ?? "n";
  const raw = c.v === undefined ? undefined : textOf(c.v);
  let value: CellValue | undefined;
  if (type === "inlineStr") value = stringItem(node(c.is));
  else if (raw === undefined || raw === "") value = undefined;
  else if (type === "s") value = ctx.shared[Number(raw)] ?? "";
  else if (type === "str") value = raw;
  else if (type === "b") value = raw === "1" || raw === "true";
  else if (type === "e") value = { error: raw };
  else {
    const n = Number(raw);
    const style = Number(attr(c, "s") ?? 0);
    value = ctx.dateStyles[style] ? serialToDate(n, ctx.date1904) : n;
  }
  const f = c.f === undefined ? undefined : node(typeof c.f === "object" ? c.f : { "#text": c.f });
  if (f !== undefined) {
    const text = textOf(f);
    const si = attr(f, "si");
    if (attr(f, "t") === "shared" && si !== undefined) {
      if (text !== "") masters.set(si, address);
      else return { address, value, sharedFrom: masters.get(si) ?? "?" };
    }
    if (text !== "") return { address, value, formula: text };
  }
  if (value === undefined || value === "") return null;
  return { address, value };
}
