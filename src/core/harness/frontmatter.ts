// Reads the YAML `---` frontmatter block at the very top of a SKILL.md or AGENT.md, the way the
// agent frameworks do when they load it. Parsing only: it never judges what the fields mean.
// Fix docs/differences.md H1: the original searched the first 600 characters with regexes that
// could run across lines (an empty `description:` followed by `---` passed); here the block is
// parsed as YAML.

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
    // The file line the block's first line is on: after the opening `---` (and a BOM's none).
    return { kind: "invalid", error: `${msg}${diagnoseYaml(body, 2)}` };
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

// ── what to tell the author when the block does not parse ─────────────────────────────────────
// Bun's YAML errors name neither the line nor the cause ("Unexpected token"), so the block is
// probed one top-level entry at a time and the first entry that fails on its own is explained.

const LINE_SHOWN = 60;

/** ` at line N \`…\`: <hint>` for the first bad entry of `body`, or a general hint. */
function diagnoseYaml(body: string, firstLine: number): string {
  const lines = body.split(/\r?\n/);
  const at = (i: number, hint: string) => {
    const text = (lines[i] ?? "").trim();
    const shown = text.length > LINE_SHOWN ? `${text.slice(0, LINE_SHOWN)}…` : text;
    return ` at line ${firstLine + i} \`${shown}\`: ${hint}`;
  };
  for (const [i, line] of lines.entries()) {
    if (/^ *\t/.test(line)) return at(i, "indent with spaces, not tabs");
  }
  const isContinuation = (line: string) => line.trim() === "" || /^[ \t]/.test(line);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (isContinuation(line)) {
      return at(i, "is indented, but no `key:` line comes before it: start it at the left margin");
    }
    let j = i + 1;
    while (j < lines.length && isContinuation(lines[j] as string)) j++;
    if (!parses(lines.slice(i, j).join("\n"))) {
      if (j > i + 1 && parses(line)) {
        const next = lines.slice(i + 1, j).findIndex((l) => l.trim() !== "") + i + 1;
        return at(
          next,
          "is indented under a `key:` line that already has a value: start it at the left margin, or put a block value's text under `key: |`",
        );
      }
      return at(i, entryHint(line));
    }
    i = j - 1;
  }
  return ': each line must be `key: value` at the left margin; quote values with ": ", " #" or a leading [ { " \' * & ! @ or `';
}

function parses(text: string): boolean {
  try {
    Bun.YAML.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Why one `key: value` line does not parse, and how to fix it. */
function entryHint(line: string): string {
  const m = /^([^:]*?):(?:[ \t]+(.*))?$/.exec(line);
  const key = (m?.[1] ?? "").trim();
  if (m === null || key === "") {
    return "is not a `key: value` line: write `key: value`, or indent it under the value it continues";
  }
  const value = (m[2] ?? "").trim();
  const quoted = `e.g. \`${key}: ${JSON.stringify(value)}\``;
  const first = value[0] ?? "";
  if (first === "[" || first === "{") {
    return `a value starting with [ or { must be closed, or quoted, ${quoted}`;
  }
  if (first === '"' || first === "'") {
    return `a value starting with ${first} must end with a matching ${first}, with nothing after it`;
  }
  if (first === "*" || first === "&" || first === "!") {
    return `a value starting with ${first} is read as YAML syntax (an alias, anchor or tag): quote it, ${quoted}`;
  }
  if (first === "@" || first === "`" || first === "%") {
    return `a value cannot start with ${first} in YAML: quote it, ${quoted}`;
  }
  if (/:[ \t]|:$/.test(value)) return 'quote values that contain ": "';
  return `quote the value, ${quoted}`;
}
