// The reply protocol of every improver, selector and reflection session: the tokens the prompts
// ask for (shared with src/core/prompts so they cannot drift) and tolerant parsers that turn a
// model's reply into typed values or an error string. Parsers never throw on model text.

import { z } from "zod";

/** Said in the notes when the harness should stay as it is. */
export const KEEP_BASE = "KEEP_BASE";
/** Written in place of the `<experience>` block when no lesson transfers. */
export const NO_ENTRY = "NO_ENTRY";
/** Info string of the fenced block that carries the selector's chosen id. */
export const CHOICE_INFO = "choice";
/** The selector's `<why>` text is kept up to this many characters. */
export const WHY_MAX = 2000;

/** Tags of the reply blocks, without angle brackets. */
export const TAG = {
  notes: "notes",
  why: "why",
  edits: "edits",
  experience: "experience",
} as const;
export type TagName = (typeof TAG)[keyof typeof TAG];

/** Decisions a composer writes at the head of each notes line (`restored`: seq composers only). */
export const NOTE_DECISIONS = ["kept", "revised", "dropped", "restored"] as const;
export type NoteDecision = (typeof NOTE_DECISIONS)[number];

/** The four verdicts of an `<edits>` row, exactly as the prompt spells them. */
export const EDIT_VERDICTS = ["helped", "hurt", "no observed effect", "confounded"] as const;
export type EditVerdict = (typeof EDIT_VERDICTS)[number];

/** Keys of one `<edits>` row, in the order the prompt asks for them. */
export const EDIT_KEYS = ["component", "candidates", "change", "observed", "verdict"] as const;
/** Keys of the `<experience>` block, in the order the prompt asks for them. */
export const EXPERIENCE_KEYS = ["cue", "lesson", "evidence", "confidence"] as const;

// ---------------------------------------------------------------------------------------------
// Tagged blocks

export type TagBlock = {
  /** The block's content, trimmed. */
  body: string;
  /** False when the opening tag was never closed and the body runs to the end of the reply. */
  closed: boolean;
};

function tagRegex(tag: string, closing: boolean): RegExp {
  return new RegExp(`<\\s*${closing ? "\\/\\s*" : ""}${tag}\\s*>`, "gi");
}

/**
 * The first complete `<tag>…</tag>` block: the one whose closing tag comes first, opened by the
 * nearest opening tag before it (so a stray earlier `<tag>` mention does not swallow the block).
 * Tags match case-insensitively and tolerate inner spaces (`< notes >`). With no closing tag,
 * the text after the first opening tag is returned as an unclosed block; with no opening tag,
 * null.
 */
export function firstTagBlock(text: string, tag: TagName): TagBlock | null {
  const close = tagRegex(tag, true).exec(text);
  const opens = [...text.matchAll(tagRegex(tag, false))];
  if (close) {
    let open: RegExpExecArray | RegExpMatchArray | undefined;
    for (const m of opens) {
      if ((m.index ?? 0) < close.index) open = m;
    }
    if (open) {
      const start = (open.index ?? 0) + open[0].length;
      return { body: text.slice(start, close.index).trim(), closed: true };
    }
  }
  const first = opens[0];
  if (!first) return null;
  const rest = text.slice((first.index ?? 0) + first[0].length);
  return { body: rest.trim(), closed: false };
}

/** Every complete `<tag>…</tag>` block in reply order (each found as firstTagBlock finds one). */
export function closedTagBlocks(text: string, tag: TagName): string[] {
  const out: string[] = [];
  let rest = text;
  for (;;) {
    const close = tagRegex(tag, true).exec(rest);
    if (!close) return out;
    const block = firstTagBlock(rest.slice(0, close.index + close[0].length), tag);
    if (block?.closed) out.push(block.body);
    rest = rest.slice(close.index + close[0].length);
  }
}

// ---------------------------------------------------------------------------------------------
// Notes (every authoring stage)

export type Notes = {
  /** The notes text, trimmed: the first `<notes>` block, or the whole reply when there is none. */
  notes: string;
  /** Whether a `<notes>` block was found. */
  tagged: boolean;
};

/** The stage's notes (docs/method.md §5): first `<notes>` block, else the whole reply, trimmed. */
export function extractNotes(reply: string): Notes {
  const block = firstTagBlock(reply, TAG.notes);
  if (block) return { notes: block.body, tagged: true };
  return { notes: reply.trim(), tagged: false };
}

const KEEP_BASE_RE = /(?<![A-Za-z0-9_])keep[_ -]base(?![A-Za-z0-9_])/i;

/**
 * Whether the text says KEEP_BASE (any case; `_`, `-` or a space between the words). A signal
 * for reports only: whether a stage kept its base is decided by comparing trees, never by text.
 */
export function saysKeepBase(text: string): boolean {
  return KEEP_BASE_RE.test(text);
}

export const DecisionLine = z.object({
  decision: z.enum(NOTE_DECISIONS),
  edit: z.string().min(1),
  evidence: z.string().min(1),
});
export type DecisionLine = z.infer<typeof DecisionLine>;

const ARROW = "(?:->|→|=>|—>|–>)";
const DECISION_RE = new RegExp(
  String.raw`^\s*(?:[-*+]\s+|\d+[.)]\s+)?[\x60*_]*(kept|revised|dropped|restored)[\x60*_]*\s*${ARROW}\s*(.+?)\s*${ARROW}\s*(.+?)\s*$`,
  "i",
);

/**
 * The composer's decision lines (`kept|revised|dropped|restored -> <edit> -> <evidence>`), in
 * order. Bullets, numbering, backticks and bold around the decision word are tolerated; lines of
 * any other shape are skipped.
 */
export function parseDecisionLines(notes: string): DecisionLine[] {
  const out: DecisionLine[] = [];
  for (const line of notes.split(/\r?\n/)) {
    const m = DECISION_RE.exec(line);
    if (!m) continue;
    out.push(
      DecisionLine.parse({
        decision: (m[1] as string).toLowerCase(),
        edit: (m[2] as string).trim(),
        evidence: (m[3] as string).replace(/[\x60]+$/, "").trim(),
      }),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Selection reply: <why> + ```choice fence

export type SelectionParse =
  | { ok: true; id: string; why: string }
  | { ok: false; error: string; why: string };

const CHOICE_OPEN_RE = /`{3,}[ \t]*choice(?![A-Za-z0-9_-])/gi;
const ANON_ID_RE = /^[A-Za-z0-9_-]+$/;

/** Ids written inside every ```choice fence, in reply order (raw fence contents, trimmed). */
function choiceFenceContents(reply: string): string[] {
  const out: string[] = [];
  for (const m of reply.matchAll(CHOICE_OPEN_RE)) {
    const start = (m.index ?? 0) + m[0].length;
    const end = reply.indexOf("```", start);
    if (end < 0) continue;
    out.push(reply.slice(start, end).trim());
  }
  return out;
}

function matchId(written: string, ids: readonly string[]): string | null {
  if (ids.includes(written)) return written;
  const folded = ids.filter((id) => id.toLowerCase() === written.toLowerCase());
  return folded.length === 1 ? (folded[0] as string) : null;
}

/**
 * The selector's pick among `ids`. The LAST ```choice fence holding a single id decides (fences
 * holding anything else, such as an echoed `<id>` template, are skipped); the info string and
 * the id match case-insensitively, an exact id winning over a case-folded one. `why` is the
 * first `<why>` block, trimmed and cut to WHY_MAX characters ("" when absent).
 *
 * Fix docs/differences.md S1, last match wins: the select prompt and the repair turn ask for the
 * choice "as the very last thing", so an earlier fence is a draft or a quote (Python took the
 * first). When that last single-id fence names no candidate, the reply is an error, NOT a fall-back
 * to an earlier valid fence: the selector's final word was something else, an earlier fence is
 * one it moved past, and the error buys a repair turn that asks again instead of silently
 * adopting a choice the selector may have rejected.
 */
export function parseSelection(reply: string, ids: readonly string[]): SelectionParse {
  const whyBlock = firstTagBlock(reply, TAG.why);
  const why = whyBlock?.closed ? whyBlock.body.slice(0, WHY_MAX) : "";
  const fences = choiceFenceContents(reply);
  if (fences.length === 0) {
    return { ok: false, error: "the reply has no ```choice block", why };
  }
  const written = fences.findLast((c) => ANON_ID_RE.test(c));
  if (written === undefined) {
    const shown = JSON.stringify((fences[0] as string).slice(0, 80));
    return { ok: false, error: `no \`\`\`choice block holds a single id (first: ${shown})`, why };
  }
  const id = matchId(written, ids);
  if (id === null) {
    return {
      ok: false,
      error: `the choice '${written}' is not one of the candidates (${ids.join(", ") || "none"})`,
      why,
    };
  }
  return { ok: true, id, why };
}

// ---------------------------------------------------------------------------------------------
// Reflection reply: <edits> rows and <experience> (or NO_ENTRY)

export const EditRow = z.object({
  component: z.string().min(1),
  candidates: z.string(),
  change: z.string(),
  observed: z.string(),
  /** One of the four verdicts, or null when the row's verdict is missing or not one of them. */
  verdict: z.enum(EDIT_VERDICTS).nullable(),
  /** The verdict as written. */
  verdictText: z.string(),
});
export type EditRow = z.infer<typeof EditRow>;

export type EditsBlock = {
  /** The block's full trimmed text (saved as `edits.md`). */
  text: string;
  rows: EditRow[];
};

export const ExperienceEntry = z.object({
  cue: z.string().min(1, "cue is empty"),
  lesson: z.string().min(1, "lesson is empty"),
  evidence: z.string().min(1, "evidence is empty"),
  /** "high|medium|low" plus why; "" when the reply gave none. */
  confidence: z.string(),
});
export type ExperienceEntry = z.infer<typeof ExperienceEntry>;

export type ExperienceParse =
  | { kind: "entry"; entry: ExperienceEntry; edits: EditsBlock | null }
  | { kind: "no_entry"; edits: EditsBlock | null }
  | { kind: "error"; error: string; edits: EditsBlock | null };

const KEY_LINE_RE =
  /^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__|\x60)?\s*([A-Za-z][A-Za-z ]*?)\s*(?:\*\*|__|\x60)?\s*:\s*(?:\*\*|__)?\s*(.*)$/;

type Field = { key: string; lines: string[] };

/**
 * Splits a block into `key: value` fields. Keys match case-insensitively and may be bulleted,
 * numbered, bold or in backticks; only `known` keys start a field, and every other non-blank line
 * continues the current field (so multi-line values and stray `Note:` lines are kept).
 */
function keyedFields(body: string, known: readonly string[]): Field[] {
  const fields: Field[] = [];
  let current: Field | null = null;
  for (const line of body.split(/\r?\n/)) {
    const m = KEY_LINE_RE.exec(line);
    const key = m?.[1]?.toLowerCase().replace(/\s+/g, " ");
    if (m && key !== undefined && known.includes(key)) {
      current = { key, lines: [m[2] ?? ""] };
      fields.push(current);
    } else if (current && line.trim() !== "") {
      current.lines.push(line.trim());
    }
  }
  return fields;
}

/**
 * A field value: joined lines, trimmed. A value made only of `<placeholders>`, ellipses and
 * punctuation (an echoed template) counts as empty.
 */
function fieldValue(field: Field): string {
  const v = field.lines.join("\n").trim();
  const residue = v
    .replace(/<[^<>]*>/g, "")
    .replace(/\.\.\.|…/g, "")
    .replace(/[\s,;|]/g, "");
  return residue === "" ? "" : v;
}

function normaliseVerdict(text: string): EditVerdict | null {
  const v = text
    .toLowerCase()
    .replace(/[\x60*_"'.]/g, " ")
    .replace(/-/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return (EDIT_VERDICTS as readonly string[]).includes(v) ? (v as EditVerdict) : null;
}

function editRows(text: string): EditRow[] {
  const rows: EditRow[] = [];
  let row: Partial<Record<(typeof EDIT_KEYS)[number], string>> = {};
  const flush = () => {
    const component = row.component ?? "";
    if (component !== "") {
      const verdictText = row.verdict ?? "";
      rows.push(
        EditRow.parse({
          component,
          candidates: row.candidates ?? "",
          change: row.change ?? "",
          observed: row.observed ?? "",
          verdict: normaliseVerdict(verdictText),
          verdictText,
        }),
      );
    }
    row = {};
  };
  for (const field of keyedFields(text, EDIT_KEYS)) {
    const key = field.key as (typeof EDIT_KEYS)[number];
    if (key === "component" || row[key] !== undefined) flush();
    row[key] = fieldValue(field);
  }
  flush();
  return rows;
}

/**
 * The `<edits>` block and its rows. The first complete block with at least one row wins (so an
 * echoed template of placeholders does not hide the real block); failing that, the first block.
 * A row starts at each `component:` (or when a key repeats inside the current row); rows without
 * a component are dropped. An unclosed block runs to the `<experience>` tag or the end of the
 * reply. Null when the reply has no `<edits>` tag.
 */
export function parseEdits(reply: string): EditsBlock | null {
  for (const text of closedTagBlocks(reply, TAG.edits)) {
    const rows = editRows(text);
    if (rows.length > 0) return { text, rows };
  }
  const block = firstTagBlock(reply, TAG.edits);
  if (!block) return null;
  const text = block.closed
    ? block.body
    : (block.body.split(/<\s*experience\s*>/i)[0] ?? "").trim();
  return { text, rows: editRows(text) };
}

const NO_ENTRY_RE = /(?<![A-Za-z0-9_])NO[_ ]ENTRY(?![A-Za-z0-9_])/i;
const NO_ENTRY_BODY_RE = /^[\x60*_\s]*NO[_ ]ENTRY[\x60*_\s.]*$/i;

type Lesson = { entry: ExperienceEntry } | { missing: string[] };

function lessonOf(body: string): Lesson {
  const values: Record<string, string> = {};
  for (const field of keyedFields(body, EXPERIENCE_KEYS)) {
    values[field.key] = fieldValue(field);
  }
  const missing = (["cue", "lesson", "evidence"] as const).filter((k) => !values[k]);
  if (missing.length > 0) return { missing };
  return {
    entry: ExperienceEntry.parse({
      cue: values.cue,
      lesson: values.lesson,
      evidence: values.evidence,
      confidence: values.confidence ?? "",
    }),
  };
}

/**
 * The reflection's lesson. The first `<experience>` block that is NO_ENTRY or a complete lesson
 * decides (so an echoed template does not hide the real block); a complete lesson needs
 * non-empty `cue`, `lesson` and `evidence` (a later duplicate key overwrites an earlier one;
 * `confidence` is optional; a value of mere `<placeholders>` counts as empty). Failing that, the
 * first block decides, an unclosed one running to the end of the reply. A reply without a complete
 * lesson that says NO_ENTRY anywhere is `no_entry`; anything else is an `error` naming what is
 * missing.
 */
export function parseExperience(reply: string): ExperienceParse {
  const edits = parseEdits(reply);
  for (const body of closedTagBlocks(reply, TAG.experience)) {
    if (NO_ENTRY_BODY_RE.test(body)) return { kind: "no_entry", edits };
    const lesson = lessonOf(body);
    if ("entry" in lesson) return { kind: "entry", entry: lesson.entry, edits };
  }
  const block = firstTagBlock(reply, TAG.experience);
  const lesson = block ? lessonOf(block.body) : null;
  if (lesson && "entry" in lesson) return { kind: "entry", entry: lesson.entry, edits };
  if (NO_ENTRY_RE.test(reply)) return { kind: "no_entry", edits };
  if (!lesson) {
    return {
      kind: "error",
      error: `the reply has neither an <experience> block nor ${NO_ENTRY}`,
      edits,
    };
  }
  return {
    kind: "error",
    error: `the <experience> block lacks a non-empty ${lesson.missing.map((k) => `${k}:`).join(", ")}`,
    edits,
  };
}

/** The level a `confidence:` value starts with, or null when it names none. */
export function confidenceLevel(confidence: string): "high" | "medium" | "low" | null {
  const m = /^[\s\x60*_([]*(high|medium|low)\b/i.exec(confidence);
  return m ? ((m[1] as string).toLowerCase() as "high" | "medium" | "low") : null;
}
