// A small line-based unified diff (Myers' O(ND) algorithm) for the pool's `harness.diff`: what a
// candidate changed relative to the harness being edited. Pure text in, text out; it never reads
// files. Hunks may differ from Python difflib's (a different matcher); the format is the standard one.

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

type Op = { kind: " " | "-" | "+"; line: string };

/** Beyond this many edits the middle is shown as one replacement (bounded time and memory). */
const MAX_EDITS = 1000;

/** The shortest edit script between two line lists, as a sequence of kept/removed/added lines. */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
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
  const head: Op[] = a.slice(0, pre).map((line) => ({ kind: " ", line }));
  const tail: Op[] = a.slice(a.length - suf).map((line) => ({ kind: " ", line }));
  const x = a.slice(pre, a.length - suf);
  const y = b.slice(pre, b.length - suf);
  return [...head, ...middle(x, y), ...tail];
}

function replaceAll(x: readonly string[], y: readonly string[]): Op[] {
  return [
    ...x.map((line): Op => ({ kind: "-", line })),
    ...y.map((line): Op => ({ kind: "+", line })),
  ];
}

function middle(x: readonly string[], y: readonly string[]): Op[] {
  const n = x.length;
  const m = y.length;
  if (n === 0 || m === 0) return replaceAll(x, y);
  const max = Math.min(n + m, MAX_EDITS);
  const off = max + 1;
  // Updated in place: step d writes diagonals of d's parity and reads only the other parity.
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let i: number;
      if (k === -d || (k !== d && (v[off + k - 1] as number) < (v[off + k + 1] as number))) {
        i = v[off + k + 1] as number;
      } else {
        i = (v[off + k - 1] as number) + 1;
      }
      let j = i - k;
      while (i < n && j < m && x[i] === y[j]) {
        i++;
        j++;
      }
      v[off + k] = i;
      if (i >= n && j >= m) return backtrack(x, y, trace, d, k);
    }
  }
  return replaceAll(x, y);
}

/** Walks the saved frontiers back from (n, m) to (0, 0), emitting operations in order. */
function backtrack(
  x: readonly string[],
  y: readonly string[],
  trace: readonly Int32Array[],
  dEnd: number,
  kEnd: number,
): Op[] {
  const ops: Op[] = [];
  let i = x.length;
  let k = kEnd;
  for (let d = dEnd; d > 0; d--) {
    // trace[d] holds v[-d-1 .. d+1] as it was before step d.
    const frame = trace[d] as Int32Array;
    const at = (kk: number) => frame[kk + d + 1] as number;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const pk = down ? k + 1 : k - 1;
    const pi = at(pk);
    const pj = pi - pk;
    const si = down ? pi : pi + 1; // start of the snake after the one edit
    while (i > si) {
      i--;
      ops.push({ kind: " ", line: x[i] as string });
    }
    if (down) ops.push({ kind: "+", line: y[pj] as string });
    else ops.push({ kind: "-", line: x[pi] as string });
    i = pi;
    k = pk;
  }
  while (i > 0) {
    i--;
    ops.push({ kind: " ", line: x[i] as string });
  }
  return ops.reverse();
}

function range(start: number, length: number): string {
  if (length === 1) return `${start + 1}`;
  return `${length === 0 ? start : start + 1},${length}`;
}

const NO_NEWLINE = "\\ No newline at end of file\n";

function emit(op: Op): string {
  const text = `${op.kind}${op.line}`;
  // Unlike difflib, a last line without `\n` gets the standard marker instead of running on.
  return op.line.endsWith("\n") ? text : `${text}\n${NO_NEWLINE}`;
}

/**
 * A unified diff of two texts with `context` lines around each change, headed by
 * `--- fromLabel` / `+++ toLabel` (no timestamps). Identical texts give "".
 */
export function unifiedDiff(
  before: string,
  after: string,
  fromLabel: string,
  toLabel: string,
  context = 3,
): string {
  if (before === after) return "";
  const ops = editScript(splitLines(before), splitLines(after));
  const changed: number[] = [];
  ops.forEach((op, idx) => {
    if (op.kind !== " ") changed.push(idx);
  });
  if (changed.length === 0) return "";
  let out = `--- ${fromLabel}\n+++ ${toLabel}\n`;
  // Line numbers before each op, so a hunk can report where it starts on both sides.
  const aAt = new Int32Array(ops.length + 1);
  const bAt = new Int32Array(ops.length + 1);
  for (let idx = 0; idx < ops.length; idx++) {
    const kind = (ops[idx] as Op).kind;
    aAt[idx + 1] = (aAt[idx] as number) + (kind === "+" ? 0 : 1);
    bAt[idx + 1] = (bAt[idx] as number) + (kind === "-" ? 0 : 1);
  }
  let c = 0;
  while (c < changed.length) {
    const from = Math.max(0, (changed[c] as number) - context);
    let last = changed[c] as number;
    while (c + 1 < changed.length && (changed[c + 1] as number) - last - 1 <= 2 * context) {
      c++;
      last = changed[c] as number;
    }
    const to = Math.min(ops.length, last + context + 1);
    const aStart = aAt[from] as number;
    const bStart = bAt[from] as number;
    const aLen = (aAt[to] as number) - aStart;
    const bLen = (bAt[to] as number) - bStart;
    out += `@@ -${range(aStart, aLen)} +${range(bStart, bLen)} @@\n`;
    for (let idx = from; idx < to; idx++) out += emit(ops[idx] as Op);
    c++;
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
