// The one reader of JSON-lines output (agent CLIs' event streams): every line that is a JSON
// object, parsed, in order. Blank lines, log text, malformed JSON and non-objects are skipped, so
// a stream cut mid-line or mixed with log output still reads as far as it is whole.

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (v: unknown): v is JsonObject =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The JSON objects of `text`, one per line that holds one. */
export function jsonObjects(text: string): JsonObject[] {
  const out: JsonObject[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith("{")) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isJsonObject(value)) out.push(value);
  }
  return out;
}
