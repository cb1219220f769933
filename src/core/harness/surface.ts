// The editable surface of one executor framework (docs/method.md §1) as a zod value, the harness
// Tree type, and the pure path rules over them (docs/method.md §1). Pure functions of their inputs:
// no file system, no processes. Each surface's patterns are compiled once and cached.

import { z } from "zod";
import { PathEscapeError, relSegments } from "../lib/safe-fs.ts";

/**
 * A harness: relative path → file content. Text files (valid UTF-8) are strings; any other file
 * is kept as its exact bytes, so binary files round-trip unchanged (fix docs/differences.md H9).
 */
export const Tree = z.record(
  z.string(),
  z.union([
    z.string(),
    z.custom<Uint8Array>(
      (v) => v instanceof Uint8Array,
      "a tree value is text or Uint8Array bytes",
    ),
  ]),
);
export type Tree = z.infer<typeof Tree>;
export type TreeValue = Tree[string];

/** Normalises a tree-relative path, or throws PathEscapeError (docs/method.md §1). */
export function normalizeRel(rel: string): string {
  // Fix docs/differences.md H11: `//` and `/./` collapse instead of silently failing isAllowed.
  return relSegments(String(rel).trim()).join("/");
}

function isNormalRel(p: string): boolean {
  try {
    return p !== "" && normalizeRel(p) === p;
  } catch {
    return false;
  }
}

const RelPath = z.string().refine(isNormalRel, {
  error: (iss) =>
    `must be a normalised relative path (no leading '/', '..', '//' or './'), got ${JSON.stringify(iss.input)}`,
});

const SurfaceFields = z.object({
  /** Surface id; also selects the per-surface prompt block. */
  name: z.string().regex(/^[a-z][a-z0-9_-]*$/, "name must be a lowercase id like 'opencode'"),
  /** Files concatenated (in this order) into the always-on text. */
  alwaysOn: z.array(RelPath).min(1, "alwaysOn must list at least one file"),
  /** Character cap on the concatenated always-on text. */
  alwaysOnMax: z.number().int().positive(),
  /** Why the cap exists; appended to the over-cap error. */
  alwaysOnCapReason: z.string().min(1),
  /** Directory holding `<name>/SKILL.md`. */
  skillDir: RelPath,
  /** `must_match`: `name:` required and equal to the directory; `overrides_dir`: optional but equal. */
  skillNameRule: z.enum(["must_match", "overrides_dir"]),
  /** Appended to the "untriggered skill" error; `{name}` is the skill. */
  triggerHint: z.string().includes("{name}", { message: "triggerHint must contain {name}" }),
  /** Always-on file that autotrigger appends trigger lines to. */
  autotriggerFile: RelPath,
  /** Line autotrigger inserts; `{name}` and `{desc}` are substituted. */
  triggerLine: z
    .string()
    .includes("{name}", { message: "triggerLine must contain {name}" })
    .includes("{desc}", { message: "triggerLine must contain {desc}" }),
  /** Whether AGENT.md must declare `mode: subagent`. */
  subagentRequiresMode: z.boolean(),
  /** Plugin directory; null means the surface has no plugin component. */
  pluginDir: RelPath.nullable(),
  /** The single hooks JSON file; null means the surface has no hooks component. */
  hooksFile: RelPath.nullable(),
  /** Allowed top-level event names in the hooks file. */
  hookEvents: z.array(z.string().min(1)).default([]),
  /** Also syntax-check `.py` files under skill `scripts/`. */
  compileSkillScripts: z.boolean().default(false),
  /** Reject a tree whose always-on text is blank. */
  rejectEmptyAlwaysOn: z.boolean().default(false),
  /** README placeholders written by writeTree; never part of the tree. */
  stubs: z.array(z.object({ path: RelPath, body: z.string() })).default([]),
});

export const SurfaceSpec = SurfaceFields.superRefine((s, ctx) => {
  if (new Set(s.alwaysOn).size !== s.alwaysOn.length) {
    ctx.addIssue({ code: "custom", path: ["alwaysOn"], message: "alwaysOn lists a file twice" });
  }
  if (!s.alwaysOn.includes(s.autotriggerFile)) {
    ctx.addIssue({
      code: "custom",
      path: ["autotriggerFile"],
      message: `autotriggerFile '${s.autotriggerFile}' must be one of alwaysOn (${s.alwaysOn.join(", ")})`,
    });
  }
  const pats = compilePatterns(s);
  for (const [i, stub] of s.stubs.entries()) {
    if (allowedBy(s, pats, stub.path)) {
      ctx.addIssue({
        code: "custom",
        path: ["stubs", i, "path"],
        message: `stub '${stub.path}' is on the editable surface; stubs must lie off it`,
      });
    }
  }
}).readonly();
export type SurfaceSpec = z.infer<typeof SurfaceSpec>;

/** The whole-path patterns of one surface (docs/method.md §1). */
export type SurfacePatterns = {
  skill: RegExp;
  skillScript: RegExp;
  subagent: RegExp;
  script: RegExp;
  plugin: RegExp | null;
  /** Global: finds `python[3] <path>` invocations inside text; capture 1 is the path. */
  scriptRef: RegExp;
};

const NAME = "[a-z0-9][a-z0-9_-]*";
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

function compilePatterns(s: z.infer<typeof SurfaceFields>): SurfacePatterns {
  const skillDir = escapeRe(s.skillDir);
  return {
    skill: new RegExp(`^${skillDir}/(${NAME})/SKILL\\.md$`),
    skillScript: new RegExp(`^${skillDir}/(${NAME})/scripts/([A-Za-z0-9_.-]+)$`),
    subagent: new RegExp(`^sub_agents/(${NAME})/AGENT\\.md$`),
    script: /^scripts\/[a-z0-9_][a-z0-9_]*\.py$/,
    plugin: s.pluginDir === null ? null : new RegExp(`^${escapeRe(s.pluginDir)}/(${NAME})\\.ts$`),
    // Fix docs/differences.md H5: `python` must start a word (no `cpython3 scripts/x.py`) and the
    // path must end the word (no `scripts/x.pyc`), while a sentence's closing `.` is still allowed.
    scriptRef: new RegExp(
      `(?<![\\w.-])python3?\\s+((?:${skillDir}/[\\w-]+/)?scripts/[\\w.-]+?\\.py)(?![\\w-]|[.][\\w-])`,
      "g",
    ),
  };
}

const PATTERN_CACHE = new WeakMap<object, SurfacePatterns>();

export function surfacePatterns(surface: SurfaceSpec): SurfacePatterns {
  let p = PATTERN_CACHE.get(surface);
  if (!p) {
    p = compilePatterns(surface);
    PATTERN_CACHE.set(surface, p);
  }
  return p;
}

function allowedBy(s: z.infer<typeof SurfaceFields>, p: SurfacePatterns, rel: string): boolean {
  return (
    s.alwaysOn.includes(rel) ||
    (s.hooksFile !== null && rel === s.hooksFile) ||
    p.skill.test(rel) ||
    p.skillScript.test(rel) ||
    p.subagent.test(rel) ||
    p.script.test(rel) ||
    (p.plugin?.test(rel) ?? false)
  );
}

/** Whether `rel` is on the editable surface (docs/method.md §1). Never throws. README stubs are not. */
export function isAllowed(surface: SurfaceSpec, rel: string): boolean {
  let norm: string;
  try {
    norm = normalizeRel(rel);
  } catch (err) {
    if (err instanceof PathEscapeError) return false;
    throw err;
  }
  return allowedBy(surface, surfacePatterns(surface), norm);
}

/** Whether `rel` is already in normal form AND on the surface: the test for a tree key. */
export function isSurfaceKey(surface: SurfaceSpec, rel: string): boolean {
  return isNormalRel(rel) && allowedBy(surface, surfacePatterns(surface), rel);
}

export function isStubPath(surface: SurfaceSpec, rel: string): boolean {
  return surface.stubs.some((s) => s.path === rel);
}

function captured(re: RegExp, tree: Tree): string[] {
  const names = new Set<string>();
  for (const key of Object.keys(tree)) {
    const m = re.exec(key);
    if (m?.[1]) names.add(m[1]);
  }
  return [...names].sort();
}

/** Sorted skill names found in the tree's keys. */
export function skillNames(surface: SurfaceSpec, tree: Tree): string[] {
  return captured(surfacePatterns(surface).skill, tree);
}

/** Sorted sub-agent names found in the tree's keys. */
export function subagentNames(surface: SurfaceSpec, tree: Tree): string[] {
  return captured(surfacePatterns(surface).subagent, tree);
}

const UTF8_STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const UTF8_LOSSY = new TextDecoder("utf-8", { ignoreBOM: true });

/** A file's bytes as a tree value: text when it is valid UTF-8 (a BOM is kept), else the bytes. */
export function treeValueOf(bytes: Uint8Array): TreeValue {
  try {
    return UTF8_STRICT.decode(bytes);
  } catch {
    return bytes;
  }
}

/** A tree value as text for text-only checks; bytes are decoded with replacement characters. */
export function textOf(value: TreeValue | undefined): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : UTF8_LOSSY.decode(value);
}

/** Length in Unicode code points, as the original measured (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

/** The always-on files' texts in surface order joined by a blank line (docs/method.md §1). */
export function alwaysOnText(surface: SurfaceSpec, tree: Tree): string {
  return surface.alwaysOn.map((p) => textOf(tree[p])).join("\n\n");
}

const NAME_CHAR = /[A-Za-z0-9_-]/;

/**
 * Whether `name` occurs in `text` as a whole word: not touching letters, digits, `_` or `-`.
 * Fix docs/differences.md H2: the original used a raw substring test, so `data` was "named" by
 * `database` and a one-letter skill by almost any text.
 */
export function mentionsName(text: string, name: string): boolean {
  if (name === "") return false;
  let from = 0;
  for (;;) {
    const at = text.indexOf(name, from);
    if (at < 0) return false;
    const before = at > 0 ? text[at - 1] : undefined;
    const after = text[at + name.length];
    const okBefore = before === undefined || !NAME_CHAR.test(before);
    const okAfter = after === undefined || !NAME_CHAR.test(after);
    if (okBefore && okAfter) return true;
    from = at + 1;
  }
}
