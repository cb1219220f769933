// Reads the YAML `---` frontmatter block at the very top of a SKILL.md or AGENT.md, the way the
// agent frameworks do when they load it. Parsing only: it never judges what the fields mean.
// Fix of spec/01 §10.1: the original searched the first 600 characters with regexes that could run
// across lines (an empty `description:` followed by `---` passed); here the block is parsed as YAML.

export type Frontmatter =
  | { kind: "none" }
  | { kind: "invalid"; error: string }
  | { kind: "ok"; data: Record<string, unknown> };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*\r?$/m;

export function parseFrontmatter(text: string): Frontmatter {
  const open = OPENING.exec(text);
  if (!open) return { kind: "none" };
  const rest = text.slice(open[0].length);
  const end = rest.search(CLOSING);
  if (end < 0) return { kind: "invalid", error: "the opening `---` is never closed" };
  const body = rest.slice(0, end);
  let data: unknown;
  try {
    data = Bun.YAML.parse(body);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { kind: "invalid", error: `${msg} (quote values that contain ": ")` };
  }
  if (data === null || data === undefined) return { kind: "ok", data: {} };
  if (typeof data !== "object" || Array.isArray(data)) {
    return { kind: "invalid", error: "it is not a mapping of `key: value` lines" };
  }
  return { kind: "ok", data: data as Record<string, unknown> };
}

/**
 * A scalar field as trimmed text: strings as written (quotes already removed by YAML), numbers and
 * booleans in their YAML spelling. Missing, null, lists and mappings give undefined.
 */
export function scalarField(fm: Frontmatter, key: string): string | undefined {
  if (fm.kind !== "ok") return undefined;
  const v = fm.data[key];
  if (typeof v === "string") return v.trim();
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}
