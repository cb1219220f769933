// The library's values and texts: the lesson (Experience), where a domain's library lives, the
// inventory line of an adopted harness, the selector's reasoning made readable for a later
// reader, and the view a later task is served. No file is read or written here.

import { join } from "node:path";
import { z } from "zod";
import {
  codePointLength,
  type SurfaceSpec,
  skillNames,
  subagentNames,
  surfacePatterns,
  type Tree,
  textOf,
} from "../harness/surface.ts";
import { thousands } from "../proposer/prompts/text.ts";
import { ExperienceEntry } from "../proposer/reply.ts";
import { validateTag } from "../run/naming.ts";
import { compareAnonIds } from "../safety/anon-ids.ts";

/** The lesson a reflection distilled: cue, lesson and evidence (all non-blank), plus extras. */
export const Experience = ExperienceEntry.extend({
  cue: z.string().trim().min(1, "cue is blank"),
  lesson: z.string().trim().min(1, "lesson is blank"),
  evidence: z.string().trim().min(1, "evidence is blank"),
  confidence: z.string().default(""),
  /** The reflection's `<edits>` rows, verbatim ("" when it wrote none). */
  edits: z.string().default(""),
});
export type Experience = z.infer<typeof Experience>;

/** True iff `x` carries a non-blank cue, lesson and evidence (docs/method.md §8). */
export function hasExperience(x: unknown): x is Experience {
  return Experience.safeParse(x).success;
}

/**
 * One directory name for a domain: every `/` or `\` with the whitespace around it becomes `__`,
 * the result is trimmed, and an empty (or dots-only, which would name a parent) result becomes
 * `unknown`. Inner spaces are kept: "Business / Financial Ops" → `Business__Financial Ops`.
 */
export function domainDir(domain: string): string {
  const d = domain
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .replace(/\s*[/\\]\s*/g, "__")
    .trim();
  return d === "" || /^\.+$/.test(d) ? "unknown" : d;
}

/**
 * The library root of one sweep configuration (docs/method.md §10), before `/<mode>/<domain dir>`:
 * `<runsRoot>/library/<bench>/k<k>-<substrate>[-s<seed>][-<tag>]`.
 */
export function libraryRootFor(cell: {
  runsRoot: string;
  bench: string;
  substrate: string;
  k: number;
  seed?: number | null;
  tag?: string;
}): string {
  const seed = cell.seed === undefined || cell.seed === null ? "" : `-s${cell.seed}`;
  const tag = cell.tag ? `-${validateTag(cell.tag)}` : "";
  return join(cell.runsRoot, "library", cell.bench, `k${cell.k}-${cell.substrate}${seed}${tag}`);
}

/**
 * What a stored tree holds, e.g. "2 skills, 1 sub_agents, 3 scripts; 1,234 always-on chars".
 * Fixes docs/differences.md S9: sub-agents are counted as agents (not files), skill-local scripts
 * count as scripts, and the always-on count is the files' own characters, without the separators.
 */
export function inventory(surface: SurfaceSpec, tree: Tree): string {
  const pats = surfacePatterns(surface);
  const keys = Object.keys(tree);
  const counts: [string, number][] = [
    ["skills", skillNames(surface, tree).length],
    ["sub_agents", subagentNames(surface, tree).length],
    ["scripts", keys.filter((k) => pats.script.test(k) || pats.skillScript.test(k)).length],
  ];
  if (pats.plugin !== null) {
    const plugin = pats.plugin;
    counts.push(["plugins", keys.filter((k) => plugin.test(k)).length]);
  }
  if (surface.hooksFile !== null) counts.push(["hooks", surface.hooksFile in tree ? 1 : 0]);
  const shown = counts.filter(([, n]) => n > 0).map(([key, n]) => `${n} ${key}`);
  const alwaysOn = surface.alwaysOn.reduce((sum, p) => sum + codePointLength(textOf(tree[p])), 0);
  const head = shown.length > 0 ? shown.join(", ") : "always-on edits only";
  return `${head}; ${thousands(alwaysOn)} always-on chars`;
}

/**
 * The selector's reasoning for a later reader. Fix docs/differences.md S7: a non-trivial `why`
 * names anonymous ids (A, B, …) that mean nothing without the id map, so a legend decoding every id
 * to its label is appended. Ids are not rewritten inside the text, where "A" may be an article.
 */
export function whyWithLegend(why: string, idMap: Readonly<Record<string, string>>): string {
  const text = why.trim();
  const ids = Object.keys(idMap).sort(compareAnonIds);
  if (text === "" || ids.length < 2) return text;
  const legend = ids.map((id) => `${id} = \`${idMap[id]}\``).join(", ");
  return `${text}\n\n(The selector saw anonymous ids: ${legend}.)`;
}

/** One entry's directory name: a single path segment (a task slug), never `.` or `..`. */
export const EntryName = z
  .string()
  .regex(/^[^/\\]+$/, {
    error: (iss) => `entry name must be one path segment, got ${JSON.stringify(iss.input)}`,
  })
  .refine((n) => n !== "." && n !== "..", { error: "entry name must not be . or .." });

/**
 * What later tasks are shown of a library. With `entries` null the folder is served whole (no
 * cap, as the original). Otherwise only `harnesses/<entry>/` of the listed entries is served,
 * with `index` as INDEX.md; `omitted` older entries stay on disk but are not shown.
 */
export const LibraryView = z
  .object({
    dir: z.string().min(1),
    entries: z.array(EntryName).readonly().nullable(),
    index: z.string().nullable(),
    omitted: z.number().int().nonnegative(),
  })
  .refine((v) => (v.entries === null) === (v.index === null), {
    error: "a library view lists its entries and their INDEX.md together, or neither",
  })
  .readonly();
export type LibraryView = z.infer<typeof LibraryView>;

/** The bookkeeping file of one entry: its raw task id and when, in stream order, it was added. */
