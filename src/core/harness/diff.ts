// The pool's `harness.diff`: what a candidate changed relative to the harness it was edited from,
// as a standard unified diff (file headers, no timestamps, 3 lines of context). The edit script
// comes from the `diff` package; this module only frames it. Pure text in, text out; reads no files.

import { structuredPatch } from "diff";
import { sortPaths } from "../lib/safe-fs.ts";
import type { Tree } from "./surface.ts";

/** Splits text into lines that keep their `\n` (a last line may lack one). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) {
      if (start < text.length) out.push(text.slice(start));
      return out;
    }
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
}

/** Beyond this many edits a file's change is shown as one replacement (bounded time and memory). */
const MAX_EDITS = 1000;

const NO_NEWLINE = "\\ No newline at end of file";

function range(start: number, length: number): string {
  if (length === 1) return `${start + 1}`;
  return `${length === 0 ? start : start + 1},${length}`;
}

type Hunk = {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
};

/** `-`/`+`/` ` lines of `text`, each followed by the no-newline marker where the text ends without one. */
function marked(prefix: string, lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.endsWith("\n")) out.push(`${prefix}${line.slice(0, -1)}`);
    else out.push(`${prefix}${line}`, NO_NEWLINE);
  }
  return out;
}

/**
 * The change past the edit bound: one hunk that replaces everything between the common first and
 * last lines, with `context` lines of each around it.
 */
function replacementHunk(a: readonly string[], b: readonly string[], context: number): Hunk {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (
    suf < a.length - pre &&
    suf < b.length - pre &&
    a[a.length - 1 - suf] === b[b.length - 1 - suf]
  ) {
    suf++;
  }
  const head = Math.max(0, pre - context);
  const tail = Math.min(suf, context);
  const lines = [
    ...marked(" ", a.slice(head, pre)),
    ...marked("-", a.slice(pre, a.length - suf)),
    ...marked("+", b.slice(pre, b.length - suf)),
    ...marked(" ", a.slice(a.length - suf, a.length - suf + tail)),
  ];
  const oldLines = a.length - suf + tail - head;
  const newLines = b.length - suf + tail - head;
  return { oldStart: head + 1, oldLines, newStart: head + 1, newLines, lines };
}

/**
 * A unified diff of two texts with `context` lines around each change, headed by
 * `--- fromLabel` / `+++ toLabel` (no timestamps). Identical texts give "". The edit script is the
 * `diff` package's (Myers); past MAX_EDITS edits the file's change is one replacement hunk.
 */
export function unifiedDiff(
  before: string,
  after: string,
  fromLabel: string,
  toLabel: string,
  context = 3,
): string {
  if (before === after) return "";
  const patch = structuredPatch(fromLabel, toLabel, before, after, undefined, undefined, {
    context,
    maxEditLength: MAX_EDITS,
  });
  const hunks: Hunk[] =
    patch === undefined
      ? [replacementHunk(splitLines(before), splitLines(after), context)]
      : patch.hunks;
  if (hunks.length === 0) return "";
  let out = `--- ${fromLabel}\n+++ ${toLabel}\n`;
  for (const h of hunks) {
    const aStart = h.oldStart - 1;
    const bStart = h.newStart - 1;
    out += `@@ -${range(aStart, h.oldLines)} +${range(bStart, h.newLines)} @@\n`;
    for (const line of h.lines) out += `${line}\n`;
  }
  return out;
}

function asText(value: Tree[string] | undefined): string | null {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(value);
  } catch {
    return null;
  }
}

/**
 * The concatenated diffs of every file in the sorted union of two trees (a missing side is
 * empty), labelled `<fromPrefix>/<name>` and `<toPrefix>/<name>`. Binary files get one line.
 */
export function treeDiff(before: Tree, after: Tree, fromPrefix: string, toPrefix: string): string {
  const names = sortPaths(new Set([...Object.keys(before), ...Object.keys(after)]));
  let out = "";
  for (const name of names) {
    const from = `${fromPrefix}/${name}`;
    const to = `${toPrefix}/${name}`;
    const a = asText(before[name]);
    const b = asText(after[name]);
    if (a === null || b === null) {
      const same =
        before[name] !== undefined &&
        after[name] !== undefined &&
        Buffer.from(before[name] as Uint8Array | string).equals(
          Buffer.from(after[name] as Uint8Array | string),
        );
      if (!same) out += `Binary files ${from} and ${to} differ\n`;
      continue;
    }
    out += unifiedDiff(a, b, from, to);
  }
  return out;
}
