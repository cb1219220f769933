// The continual-learning order of a sweep (docs/method.md §10): which domains run, in which order,
// and the strict order of tasks inside each. A seeded order reproduces CPython's string-seeded
// Mersenne Twister shuffle exactly, so a seed names the same stream as the original. Never reads
// a score or anything but task ids and domains.

import { createHash } from "node:crypto";
import { Harness2Error } from "../lib/errors.ts";
import { compareCodePoints } from "../lib/safe-fs.ts";

/** The adapter surface the stream needs (the narrowest view of a BenchmarkAdapter). */
export interface StreamSource {
  tasks(split?: string): readonly string[] | Promise<readonly string[]>;
  domainOf(taskId: string): string;
  referenceDomainOrder?(): readonly string[];
}

/** A stream request the tasks cannot satisfy (unknown domain or task, stale reference order). */
export class StreamError extends Harness2Error {
  constructor(
    message: string,
    readonly unknown: readonly string[],
    readonly valid: readonly string[],
  ) {
    super(message);
  }
}

export type StreamEntry = { domain: string; task: string };

const sortStrings = (xs: Iterable<string>): string[] => [...xs].sort(compareCodePoints);

/** Domains by descending task count, then by name: the default reference order. */
export function defaultDomainOrder(
  tasksByDomain: ReadonlyMap<string, readonly string[]>,
): string[] {
  return [...tasksByDomain.keys()].sort((a, b) => {
    const d = (tasksByDomain.get(b)?.length ?? 0) - (tasksByDomain.get(a)?.length ?? 0);
    return d !== 0 ? d : compareCodePoints(a, b);
  });
}

/**
 * The ordered (domain, task) stream. Without a seed: domains in `referenceOrder` (which must name
 * every present domain), tasks sorted. With a seed: the sorted domains shuffled by a PRNG seeded
 * with "<seed>:__domains__", each domain's sorted tasks shuffled by one seeded "<seed>:<domain>",
 * so a domain's order depends only on (seed, domain, its tasks).
 */
export function streamOrder(
  tasksByDomain: ReadonlyMap<string, readonly string[]>,
  seed: number | null,
  referenceOrder: readonly string[] | null = null,
): StreamEntry[] {
  let domains: string[];
  const tasksOf = (d: string): string[] => sortStrings(tasksByDomain.get(d) ?? []);
  if (seed === null) {
    const ref = referenceOrder ?? defaultDomainOrder(tasksByDomain);
    const known = new Set(ref);
    const stale = sortStrings([...tasksByDomain.keys()].filter((d) => !known.has(d)));
    if (stale.length > 0) {
      throw new StreamError(
        `the reference domain order is stale: it does not list ${stale.join(", ")}`,
        stale,
        [...ref],
      );
    }
    domains = ref.filter((d) => tasksByDomain.has(d));
    return domains.flatMap((domain) => tasksOf(domain).map((task) => ({ domain, task })));
  }
  domains = pyShuffle(sortStrings(tasksByDomain.keys()), `${seed}:__domains__`);
  return domains.flatMap((domain) =>
    pyShuffle(tasksOf(domain), `${seed}:${domain}`).map((task) => ({ domain, task })),
  );
}

export type StreamOptions = {
  split?: string;
  seed?: number | null;
  onlyDomains?: readonly string[];
  onlyTasks?: readonly string[];
  /** At most this many tasks per domain (the first N of its stream), not a total. */
  maxTasks?: number | null;
};

/** Groups the adapter's tasks by domain and orders them (docs/method.md §10). */
export async function taskStream(
  source: StreamSource,
  opts: StreamOptions = {},
): Promise<Map<string, string[]>> {
  const all = await source.tasks(opts.split ?? "all");
  const byDomain = new Map<string, string[]>();
  for (const task of all) {
    const domain = source.domainOf(task);
    const list = byDomain.get(domain);
    if (list) list.push(task);
    else byDomain.set(domain, [task]);
  }
  if (opts.onlyDomains && opts.onlyDomains.length > 0) {
    const valid = sortStrings(byDomain.keys());
    const unknown = opts.onlyDomains.filter((d) => !byDomain.has(d));
    if (unknown.length > 0) {
      throw new StreamError(
        `unknown domain(s) ${unknown.join(", ")}; valid domains: ${valid.join(", ")}`,
        unknown,
        valid,
      );
    }
    const keep = new Set(opts.onlyDomains);
    for (const d of [...byDomain.keys()]) if (!keep.has(d)) byDomain.delete(d);
  }
  const onlyTasks = opts.onlyTasks && opts.onlyTasks.length > 0 ? new Set(opts.onlyTasks) : null;
  if (onlyTasks) {
    const present = new Set([...byDomain.values()].flat());
    const unknown = [...onlyTasks].filter((t) => !present.has(t));
    if (unknown.length > 0) {
      throw new StreamError(`unknown task(s) ${unknown.join(", ")}`, unknown, sortStrings(present));
    }
  }
  const maxTasks = opts.maxTasks ?? null;
  if (maxTasks !== null && (!Number.isInteger(maxTasks) || maxTasks < 1)) {
    throw new StreamError(`max tasks must be an integer ≥ 1, got ${maxTasks}`, [], []);
  }
  const ordered = streamOrder(byDomain, opts.seed ?? null, source.referenceDomainOrder?.() ?? null);
  const out = new Map<string, string[]>();
  for (const { domain, task } of ordered) {
    if (onlyTasks && !onlyTasks.has(task)) continue;
    const list = out.get(domain) ?? [];
    if (maxTasks !== null && list.length >= maxTasks) continue;
    list.push(task);
    out.set(domain, list);
  }
  return out;
}

// ── CPython's random.Random(str).shuffle, bit for bit ───────────────────────────────────────

const N = 624;
const M = 397;

/** MT19937 as CPython seeds it from a string (version 2: bytes + SHA-512, as a big integer). */
export class PyRandom {
  readonly #mt = new Uint32Array(N);
  #index = N + 1;

  constructor(seed: string) {
    const bytes = new TextEncoder().encode(seed);
    const digest = createHash("sha512").update(bytes).digest();
    const all = new Uint8Array(bytes.length + digest.length);
    all.set(bytes, 0);
    all.set(digest, bytes.length);
    this.#initByArray(bigEndianToWords(all));
  }

  #initGenrand(s: number): void {
    const mt = this.#mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] as number;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.#index = N;
  }

  #initByArray(key: readonly number[]): void {
    const mt = this.#mt;
    this.#initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] =
        (((mt[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1664525)) >>> 0) +
        (key[j] as number) +
        j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] = ((((mt[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) >>> 0) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** genrand_uint32. */
  nextUint32(): number {
    const mt = this.#mt;
    if (this.#index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = ((mt[kk] as number) & 0x80000000) | ((mt[(kk + 1) % N] as number) & 0x7fffffff);
        mt[kk] = ((mt[(kk + M) % N] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)) >>> 0;
      }
      this.#index = 0;
    }
    let y = mt[this.#index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** getrandbits(k) for 1 ≤ k ≤ 32. */
  getrandbits(k: number): number {
    return this.nextUint32() >>> (32 - k);
  }

  /** _randbelow_with_getrandbits(n) for n ≥ 1. */
  randbelow(n: number): number {
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }
}

/** The 32-bit words of a big-endian unsigned integer, least significant first (CPython's key). */
function bigEndianToWords(bytes: Uint8Array): number[] {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  const words: number[] = [];
  for (let end = bytes.length; end > start; end -= 4) {
    let w = 0;
    for (let b = Math.max(start, end - 4); b < end; b++) w = (w * 256 + (bytes[b] as number)) >>> 0;
    words.push(w);
  }
  return words.length > 0 ? words : [0];
}

/** A copy of `items` shuffled exactly as `random.Random(seed).shuffle` would. */
export function pyShuffle<T>(items: readonly T[], seed: string): T[] {
  const out = [...items];
  const rng = new PyRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.randbelow(i + 1);
    const t = out[i] as T;
    out[i] = out[j] as T;
    out[j] = t;
  }
  return out;
}
