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

/** A judgments row's verdict (its unit, when the event named one, comes from the event log). */
export function verdictOf(r: Row) {
  return {
    label: str(r.label),
    runId: str(r.run_id),
    graded: bool(r.graded),
    score: numOrNull(r.score),
    passed: numOrNull(r.passed),
    total: numOrNull(r.total),
    reason: str(r.reason),
    judge: str(r.judge),
  };
}

/** JSON text as a value, or `fallback` when the cell is NULL or not JSON. */
export function parse<T>(v: unknown, fallback: T): T {
  try {
    return v === null || v === undefined ? fallback : (JSON.parse(String(v)) as T);
  } catch {
    return fallback;
  }
}
