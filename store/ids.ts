// Prefixed, time-sortable record ids (`swp_…` sweeps, `tsk_…` task records): a 48-bit millisecond
// timestamp and 40 random bits in lowercase Crockford base32, so string order is creation order.
// Ids are opaque to everything but this module; never parse meaning out of one elsewhere.

/** Crockford base32 without i, l, o, u; lowercase so ids are easy to type as a `show` prefix. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_CHARS = 10;
const RANDOM_CHARS = 8;
const RANDOM_SPACE = 32 ** RANDOM_CHARS;

export const ID_PREFIXES = ["swp", "tsk"] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const ID_RE = /^(swp|tsk)_[0-9a-hjkmnp-tv-z]{18}$/;

function encode(value: number, width: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function randomPart(): number {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  let n = 0;
  for (const b of bytes) n = n * 256 + b;
  return n;
}

let lastMs = -1;
let lastRandom = 0;

/**
 * A new id with the given prefix. Within one millisecond the random part counts upward, so ids
 * made by one process are strictly increasing even when the clock does not move.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  const ms = Math.max(0, Math.floor(nowMs));
  let random: number;
  if (ms === lastMs) {
    random = (lastRandom + 1) % RANDOM_SPACE;
  } else {
    random = randomPart();
    lastMs = ms;
  }
  lastRandom = random;
  return `${prefix}_${encode(ms, TIME_CHARS)}${encode(random, RANDOM_CHARS)}`;
}

/** The id of a new sweep; the CLI makes one and passes it into core, which stamps every event. */
export function newSweepId(nowMs?: number): string {
  return newId("swp", nowMs);
}

export function newTaskRecordId(nowMs?: number): string {
  return newId("tsk", nowMs);
}

/** Whether `text` has the exact shape of an id this module makes. */
export function isRecordId(text: string): boolean {
  return ID_RE.test(text);
}

/** The millisecond timestamp an id was made at. */
export function idTime(id: string): number {
  const body = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 1 + TIME_CHARS);
  let n = 0;
  for (const ch of body) n = n * 32 + ALPHABET.indexOf(ch);
  return n;
}
