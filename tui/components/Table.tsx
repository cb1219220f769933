// A small table: columns padded to their widest cell, a box-drawing rule under the header, one
// tone per cell, cells cut with an ellipsis so a row never wraps. Pure function of its props;
// tableLines gives the same table as Line[] for screens that scroll.

import { Box } from "ink";
import { pad, textWidth, truncate } from "../../src/core/lib/format.ts";
import { columnsToKeep } from "../../src/core/lib/text-table.ts";
import { type Line, LineView, type Segment } from "./Lines.tsx";
import type { Tone } from "./theme.ts";

/** `spinner`: the text starts with a still spinner glyph, which an animated table turns. */
export type Cell = string | { text: string; tone?: Tone; spinner?: boolean };

export type Column<R> = {
  header: string;
  cell: (row: R) => Cell;
  align?: "left" | "right";
  /** Widest the column may get. */
  max?: number;
  /** This column gives up width first when the table is too wide (e.g. an error column). */
  shrink?: boolean;
  /**
   * When the table is too wide even so, columns with a rank are hidden, lowest first, so the
   * numbers that matter (the unranked columns) are never cut.
   */
  drop?: number;
};

/** The columns that fit `width`: ranked ones hidden lowest first (columnsToKeep). */
export function fittingColumns<R>(columns: Column<R>[], rows: R[], width?: number): Column<R>[] {
  if (width === undefined) return columns;
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  const widths = columnWidths(
    columns.map((c) => ({ ...c, shrink: false })),
    cells,
  );
  const { keep } = columnsToKeep(widths, {
    ranks: columns.map((c) => c.drop),
    maxWidth: width,
    gap: GAP_WIDTH,
    // A cut-to-fit column can give up everything but its header's width.
    slack: columns.map((c, i) => (c.shrink ? (widths[i] ?? 0) - textWidth(c.header) : 0)),
  });
  return keep.map((i) => columns[i] as Column<R>);
}

export type TableProps<R> = {
  columns: Column<R>[];
  rows: R[];
  color: boolean;
  /** Columns available; the shrinking column is cut to fit. */
  width?: number;
  rowKey: (row: R, index: number) => string;
  /** Turn the spinners of cells that have one. */
  animate?: boolean;
};

const GAP = " │ ";
const GAP_WIDTH = textWidth(GAP);

const textOf = (c: Cell) => (typeof c === "string" ? c : c.text);
const toneOf = (c: Cell) => (typeof c === "string" ? undefined : c.tone);

/** Column widths: the widest cell (capped at max), the shrinking column cut to fit `width`. */
export function columnWidths<R>(columns: Column<R>[], cells: Cell[][], width?: number): number[] {
  const widths = columns.map((col, i) => {
    const widest = Math.max(
      textWidth(col.header),
      ...cells.map((r) => textWidth(textOf(r[i] ?? ""))),
    );
    return Math.min(widest, col.max ?? Number.POSITIVE_INFINITY);
  });
  if (width === undefined) return widths;
  const total = widths.reduce((a, b) => a + b, 0) + GAP_WIDTH * Math.max(0, widths.length - 1);
  const over = total - width;
  if (over > 0) {
    const i = columns.findIndex((c) => c.shrink);
    if (i >= 0) widths[i] = Math.max(textWidth(columns[i]?.header ?? ""), (widths[i] ?? 0) - over);
  }
  return widths;
}

/** The table as lines: header, rule, then one line per row. */
export function tableLines<R>(allColumns: Column<R>[], rows: R[], width?: number): Line[] {
  const columns = fittingColumns(allColumns, rows, width);
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  const widths = columnWidths(columns, cells, width);
  const fit = (text: string, i: number) =>
    pad(truncate(text, widths[i] ?? 0), widths[i] ?? 0, columns[i]?.align);
  const last = columns.length - 1;
  const header = columns.map((c, i) => fit(c.header, i)).join(GAP);
  const rule = widths.map((w) => "─".repeat(w)).join("─┼─");
  return [
    [{ text: header.trimEnd(), tone: "strong" }],
    [{ text: rule, tone: "dim" }],
    ...cells.map((row) =>
      row.flatMap((cell, i) => {
        // The last column is not padded on the right (no trailing blanks), but right-aligned
        // numbers still line up.
        const text =
          i === last && columns[i]?.align !== "right"
            ? truncate(textOf(cell), widths[i] ?? 0)
            : fit(textOf(cell), i);
        const tone = toneOf(cell);
        const segs: Segment[] = [];
        const [glyph = "", ...rest] = [...text];
        if (typeof cell !== "string" && cell.spinner && glyph === [...cell.text][0]) {
          // The first character is the spinner's place (unless the cut took it); it is one
          // column wide in every frame.
          segs.push({ text: glyph, spinner: true, ...(tone ? { tone } : {}) });
          segs.push(tone ? { text: rest.join(""), tone } : { text: rest.join("") });
        } else segs.push(tone ? { text, tone } : { text });
        return i > 0 ? [{ text: GAP }, ...segs] : segs;
      }),
    ),
  ];
}

export function Table<R>({ columns, rows, color, width, rowKey, animate }: TableProps<R>) {
  const lines = tableLines(columns, rows, width);
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <LineView
          key={i < 2 ? `head${i}` : rowKey(rows[i - 2] as R, i - 2)}
          line={l}
          color={color}
          animate={animate}
        />
      ))}
    </Box>
  );
}
