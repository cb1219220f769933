// The plain text table of every headless command (`runs`, `show`, `report`): columns padded to
// their widest cell in terminal columns (a CJK name or an emoji never shifts a column), two
// spaces between, no trailing blanks. Colour is applied after padding, so codes never misalign.

import { pad, textWidth } from "./format.ts";

export type TextColumn = { header: string; align?: "left" | "right" };

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
