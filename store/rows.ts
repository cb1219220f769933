// How a row read from the store becomes typed values: SQL NULL, 0/1 flags, JSON text and epoch
// milliseconds decoded one way for every query module. Never throws on a bad cell.

export type Row = Record<string, unknown>;

export const bool = (v: unknown): boolean => v === 1 || v === true;
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
export const numOrNull = (v: unknown): number | null =>
  v === null || v === undefined ? null : Number(v);
export const str = (v: unknown): string => (v === null || v === undefined ? "" : String(v));
export const strOrNull = (v: unknown): string | null =>
  v === null || v === undefined ? null : String(v);
export const iso = (ms: unknown): string => new Date(Number(ms)).toISOString();
export const isoOrNull = (ms: unknown): string | null => (ms === null ? null : iso(ms));

/** JSON text as a value, or `fallback` when the cell is NULL or not JSON. */
export function parse<T>(v: unknown, fallback: T): T {
  try {
    return v === null || v === undefined ? fallback : (JSON.parse(String(v)) as T);
  } catch {
    return fallback;
  }
}
