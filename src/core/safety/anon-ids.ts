// Anonymous candidate ids for blind selection (docs/method.md §7): a deterministic, seeded shuffle
// of the candidate labels onto the ids A, B, …, Z, AA, AB, …. It must never hand a label (or
// anything derived from a label's order) to the selector; it sees only the ids.

import { createHash } from "node:crypto";
import { compareCodePoints } from "../lib/safe-fs.ts";

/** Every id this module makes matches this; the choice parser's id class is wider. */
export const ANON_ID_RE = /^[A-Z]+$/;

/** Bijective base-26 over A–Z: 0 → A, 25 → Z, 26 → AA, 27 → AB, 51 → AZ, 52 → BA, … */
export function anonId(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new RangeError(`anonId index must be a non-negative integer, got ${index}`);
  }
  let n = index + 1;
  let out = "";
  while (n > 0) {
    const rem = (n - 1) % 26;
    out = String.fromCharCode(65 + rem) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** The position an id stands for (inverse of anonId), or -1 when it is not such an id. */
export function anonIndex(id: string): number {
  if (!ANON_ID_RE.test(id)) return -1;
  let n = 0;
  for (const ch of id) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** Orders ids by the position they stand for (A, B, …, Z, AA), not lexicographically. */
export function compareAnonIds(a: string, b: string): number {
  return anonIndex(a) - anonIndex(b) || compareCodePoints(a, b);
}

/**
 * A stream of uniform 32-bit words: SHA-256 in counter mode over `seed`. Block i is
 * SHA-256(seed ‖ ":" ‖ i) and yields eight big-endian words.
 */
class HashStream {
  private block = 0;
  private words: number[] = [];

  constructor(private readonly seed: string) {}

  next(): number {
    if (this.words.length === 0) {
      const digest = createHash("sha256")
        .update(`${this.seed}:${this.block++}`)
        .digest();
      for (let i = 28; i >= 0; i -= 4) this.words.push(digest.readUInt32BE(i));
    }
    return this.words.pop() as number;
  }

  /** Uniform integer in [0, bound], by rejection sampling on the smallest covering bit mask. */
  below(bound: number): number {
    if (bound === 0) return 0;
    const mask = 2 ** (32 - Math.clz32(bound)) - 1;
    for (;;) {
      const v = (this.next() & mask) >>> 0;
      if (v <= bound) return v;
    }
  }
}

/**
 * Maps anonymous ids to candidate labels, stable across reruns for one (task, k, mode, labels).
 *
 * Algorithm:
 *  1. seed = lowercase hex SHA-256 of the UTF-8 string `<taskId>|<k>|<mode>` (k in decimal);
 *  2. sort the labels by code point, so the input order never matters;
 *  3. Fisher–Yates: for i from n−1 down to 1, swap position i with j, j uniform in [0, i], drawn
 *     from SHA-256(seed ‖ ":" ‖ block) words (HashStream) by rejection sampling;
 *  4. position i gets anonId(i).
 * Deliberate difference from the original: it seeded Python's Mersenne Twister with 48 bits of a
 * SHA-1, so our ids do not match Python-made artifacts (docs/differences.md S21); they only need to
 * be deterministic, distinct, and independent of how the labels sort.
 *
 * The result's keys are in id order (A, B, …). Duplicate labels are refused.
 */
export function assignIds(
  labels: readonly string[],
  taskId: string,
  k: number,
  mode: string,
): Record<string, string> {
  const order = [...labels].sort(compareCodePoints);
  for (let i = 1; i < order.length; i++) {
    if (order[i] === order[i - 1]) throw new RangeError(`label '${order[i]}' is given twice`);
  }
  const rng = new HashStream(createHash("sha256").update(`${taskId}|${k}|${mode}`).digest("hex"));
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.below(i);
    [order[i], order[j]] = [order[j] as string, order[i] as string];
  }
  const map: Record<string, string> = {};
  order.forEach((label, i) => {
    map[anonId(i)] = label;
  });
  return map;
}

/** The id whose label is `label`, or "" when none is. */
export function idOfLabel(idMap: Readonly<Record<string, string>>, label: string): string {
  for (const [id, l] of Object.entries(idMap)) if (l === label) return id;
  return "";
}
