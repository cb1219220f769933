// The one reader of JSON-lines output (agent CLIs' event streams): every line that is a JSON
// object, parsed, in order. Blank lines, log text, malformed JSON and non-objects are skipped, so
// a stream cut mid-line or mixed with log output still reads as far as it is whole.

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (v: unknown): v is JsonObject =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The JSON object one line holds, or null (blank, log text, malformed, not an object). */
export function jsonObjectOf(raw: string): JsonObject | null {
  const line = raw.trim();
  if (!line.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(line);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** The JSON objects of `text`, one per line that holds one. */
export function jsonObjects(text: string): JsonObject[] {
  const out: JsonObject[] = [];
  for (const raw of text.split("\n")) {
    const value = jsonObjectOf(raw);
    if (value !== null) out.push(value);
  }
  return out;
}

/** Any value as JSON text (bigints as digits); what cannot be JSON as its String(). Never throws. */
export function stringify(value: unknown): string {
  try {
    const json = JSON.stringify(value, (_k, v: unknown) =>
      typeof v === "bigint" ? v.toString() : v,
    );
    return json ?? String(value);
  } catch {
    return String(value);
  }
}
