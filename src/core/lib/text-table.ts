// The plain text table of every headless command (`runs`, `show`, `report`): columns padded to
// their widest cell in terminal columns (a CJK name or an emoji never shifts a column), two
// spaces between, no trailing blanks. Colour is applied after padding, so codes never misalign.

import { pad, textWidth } from "./format.ts";

export type TextColumn = {
  header: string;
  align?: "left" | "right";
  /**
   * When the table must fit a width, columns with a `drop` rank are hidden lowest rank first
   * (a column whose every cell is empty, "0" or "-" before any other); columns without one —
   * ids, statuses, the numbers that matter — always stay.
   */
  drop?: number;
};

export type TextTableOptions<T extends string> = {
  /** Paints a padded cell; the header row gets `headerTone`. Default: no colour. */
  paint?: (text: string, tone: T) => string;
  tone?: (row: number, col: number) => T;
  headerTone?: T;
  indent?: string;
};

/** The header line, then one line per row. */
export function textTable<T extends string = string>(
  columns: readonly TextColumn[],
  rows: readonly (readonly string[])[],
  opts: TextTableOptions<T> = {},
): string[] {
  const widths = columns.map((c, i) =>
    Math.max(textWidth(c.header), ...rows.map((r) => textWidth(r[i] ?? ""))),
  );
  const paint = opts.paint ?? ((text: string) => text);
  const line = (cells: readonly string[], toneAt: (col: number) => T | undefined) =>
    `${opts.indent ?? ""}${columns
      .map((c, i) => {
        const padded = pad(cells[i] ?? "", widths[i] ?? 0, c.align);
        const tone = toneAt(i);
        return tone === undefined ? padded : paint(padded, tone);
      })
      .join("  ")}`.trimEnd();
  return [
    line(
      columns.map((c) => c.header),
      () => opts.headerTone,
    ),
    ...rows.map((r, ri) => line(r, (ci) => opts.tone?.(ri, ci))),
  ];
}

const BLANK = new Set(["", "0", "-"]);

export type KeepOptions = {
  /** Each column's drop rank; undefined: the column always stays. */
  ranks: readonly (number | undefined)[];
  maxWidth: number;
  /** Terminal columns between two columns. */
  gap: number;
  indent?: number;
  /** Columns with nothing in them, dropped before any ranked one. */
  blank?: readonly boolean[];
  /** How far each column could still shrink on its own (a table's cut-to-fit column). */
  slack?: readonly number[];
};

/**
 * Which columns of the given widths to keep so a table fits `maxWidth`: ranked columns go lowest
 * rank first, blank ones before any; unranked ones always stay. The one rule behind every table
 * that must fit a terminal (`runs`, the report view); `fits` says whether it then does.
 */
export function columnsToKeep(
  widths: readonly number[],
  o: KeepOptions,
): { keep: number[]; fits: boolean } {
  const shown = new Set(widths.map((_, i) => i));
  const total = () =>
    (o.indent ?? 0) +
    [...shown].reduce((n, i) => n + (widths[i] ?? 0) - (o.slack?.[i] ?? 0), 0) +
    o.gap * Math.max(0, shown.size - 1);
  const rank = (i: number) => (o.blank?.[i] ? -1e6 : 0) + (o.ranks[i] ?? 0);
  while (total() > o.maxWidth) {
    const candidates = [...shown].filter((i) => o.ranks[i] !== undefined);
    if (candidates.length === 0) break;
    shown.delete(candidates.reduce((a, b) => (rank(b) < rank(a) ? b : a)));
  }
  return { keep: [...shown].sort((a, b) => a - b), fits: total() <= o.maxWidth };
}

/**
 * The columns (and the rows' cells) that fit `maxWidth` terminal columns, hiding droppable
 * columns as TextColumn.drop describes (columnsToKeep), and the headers it hid. Whatever cannot
 * be hidden stays, even when the table is still too wide (`fits` is then false).
 */
export function fitColumns(
  columns: readonly TextColumn[],
  rows: readonly (readonly string[])[],
  maxWidth: number,
  indent = 0,
): { columns: TextColumn[]; rows: string[][]; hidden: string[]; fits: boolean } {
  const widths = columns.map((c, i) =>
    Math.max(textWidth(c.header), ...rows.map((r) => textWidth(r[i] ?? ""))),
  );
  const blank = columns.map((_, i) => rows.every((r) => BLANK.has((r[i] ?? "").trim())));
  const { keep, fits } = columnsToKeep(widths, {
    ranks: columns.map((c) => c.drop),
    maxWidth,
    gap: 2,
    indent,
    blank,
  });
  return {
    columns: keep.map((i) => columns[i] as TextColumn),
    rows: rows.map((r) => keep.map((i) => r[i] ?? "")),
    hidden: columns.filter((_, i) => !keep.includes(i)).map((c) => c.header),
    fits,
  };
}
