// Validation of a harness tree against its surface (docs/method.md §1): collects EVERY problem
// and throws one TreeValidationError whose message (problems joined by " | ") is fed verbatim to
// the proposer as retry feedback. It never writes files and never runs a harness script.

import { z } from "zod";
import { Harness2Error } from "../lib/errors.ts";
import { comparePathSegments } from "../lib/safe-fs.ts";
import { type Frontmatter, parseFrontmatter, scalarField } from "./frontmatter.ts";
import { defaultPythonChecker, type PythonChecker, type PythonSource } from "./python-check.ts";
import {
  alwaysOnText,
  codePointLength,
  isSurfaceKey,
  mentionsName,
  type SurfaceSpec,
  skillNames,
  subagentNames,
  surfacePatterns,
  type Tree,
  type TreeValue,
  textOf,
} from "./surface.ts";

/** Script basenames a harness may invoke without shipping them: the runtime provides them. */
export const RESERVED_SCRIPTS: ReadonlySet<string> = new Set([
  "read_doc.py",
  "pack.py",
  "unpack.py",
]);

/** The tree breaks its surface's rules; `problems` lists every one, in check order. */
export class TreeValidationError extends Harness2Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join(" | "));
  }
}

/** What a valid tree holds. Keys keep the original's spelling: they are written to summaries. */
export const Census = z.object({
  always_on_chars: z.number().int().nonnegative(),
  n_files: z.number().int().nonnegative(),
  skills: z.number().int().nonnegative(),
  sub_agents: z.number().int().nonnegative(),
  /** Top-level scripts only. */
  scripts: z.number().int().nonnegative(),
  /** Present only on surfaces with a plugin directory. */
  plugins: z.number().int().nonnegative().optional(),
  /** 1 when the hooks file is present, 0 when not; only on surfaces with a hooks file. */
  hooks: z.number().int().min(0).max(1).optional(),
});
export type Census = z.infer<typeof Census>;

export type ValidateOptions = {
  /**
   * Whether sub-agents may ship. Defaults to false, like BenchSpec (the original defaulted to true
   * here and to false in BenchSpec, docs/differences.md H20).
   */
  allowSubagents?: boolean;
  /** Overrides the surface's always-on cap. */
  alwaysOnMax?: number;
  /** Extra reserved script basenames, always in addition to RESERVED_SCRIPTS. */
  reservedScripts?: Iterable<string>;
  /** Syntax checker for Python scripts; default python3 on PATH. */
  python?: PythonChecker;
  /** The sweep's interrupt, handed to the Python check (which then throws InterruptedError). */
  signal?: AbortSignal;
};

const notText = (rel: string, why: string) =>
  `${rel} must be UTF-8 text (it holds bytes that are not): ${why}`;

/**
 * Checks `tree` against `surface` and returns its census, or throws TreeValidationError listing
 * every problem. Throws PythonUnavailableError when scripts need checking and python3 is missing.
 */
export async function validate(
  surface: SurfaceSpec,
  tree: Tree,
  opts: ValidateOptions = {},
): Promise<Census> {
  const pats = surfacePatterns(surface);
  const cap = opts.alwaysOnMax ?? surface.alwaysOnMax;
  const reserved = new Set([...RESERVED_SCRIPTS, ...(opts.reservedScripts ?? [])]);
  const keys = Object.keys(tree).sort(comparePathSegments);
  const problems: string[] = [];

  // A key off the surface would be refused by writeTree anyway; say so here (docs/differences.md H10).
  for (const key of keys) {
    if (!isSurfaceKey(surface, key)) {
      problems.push(`\`${key}\` is not on the editable surface of ${surface.name}`);
    }
  }

  // 1. Cap. 2. Empty always-on.
  const aoText = alwaysOnText(surface, tree);
  const aoChars = codePointLength(aoText);
  for (const p of surface.alwaysOn) {
    if (tree[p] instanceof Uint8Array) {
      problems.push(notText(p, "it is always-on and goes into every turn"));
    }
  }
  if (aoChars > cap) {
    problems.push(
      `always-on text is ${aoChars} chars, over the cap of ${cap}: ${surface.alwaysOnCapReason}`,
    );
  }
  if (surface.rejectEmptyAlwaysOn && aoText.trim() === "") {
    problems.push(
      surface.alwaysOn.length === 1
        ? `${surface.alwaysOn[0]} is empty, and it is the only always-on file: without it this harness does not exist`
        : `the always-on files (${surface.alwaysOn.join(", ")}) are all empty: without them this harness does not exist`,
    );
  }

  // 3. Skills.
  const skills = skillNames(surface, tree);
  for (const name of skills) {
    const rel = `${surface.skillDir}/${name}/SKILL.md`;
    const fm = frontmatterOf(rel, tree[rel], problems, "the skill is dropped silently at load");
    if (fm.kind !== "invalid") {
      if (!scalarField(fm, "description")) {
        problems.push(
          `${rel} needs a non-empty \`description:\` in a \`---\` frontmatter block at its top${
            fm.kind === "none" ? " (it has no frontmatter block)" : ""
          }, or the skill is dropped silently at load`,
        );
      }
      const declared = scalarField(fm, "name");
      if (surface.skillNameRule === "must_match" && declared !== name) {
        problems.push(
          `${rel} needs \`name: ${name}\` in its frontmatter, matching its directory (found ${
            declared === undefined ? "no name" : `\`name: ${declared}\``
          }); a missing or different name drops the skill silently at load`,
        );
      }
      if (
        surface.skillNameRule === "overrides_dir" &&
        declared !== undefined &&
        declared !== name
      ) {
        problems.push(
          `${rel} sets \`name: ${declared}\`, which overrides the directory name \`${name}\`, so trigger lines naming the directory stop matching; drop \`name:\` or make it \`${name}\``,
        );
      }
    }
    if (!mentionsName(aoText, name)) {
      problems.push(
        `skill \`${name}\` is never named in the always-on text, so nothing loads it (dead weight): ${surface.triggerHint.replaceAll("{name}", name)}`,
      );
    }
  }

  // 4. Sub-agents.
  const subagents = subagentNames(surface, tree);
  if (subagents.length > 0 && !opts.allowSubagents) {
    problems.push(
      `sub-agents are not available on this deployment; remove ${subagents
        .map((n) => `sub_agents/${n}/`)
        .join(", ")}`,
    );
  }
  for (const name of subagents) {
    const rel = `sub_agents/${name}/AGENT.md`;
    const fm = frontmatterOf(rel, tree[rel], problems, "the sub-agent cannot be loaded");
    if (fm.kind === "invalid") continue;
    if (surface.subagentRequiresMode && scalarField(fm, "mode") !== "subagent") {
      problems.push(`${rel} needs \`mode: subagent\` in a \`---\` frontmatter block at its top`);
    }
    if (!scalarField(fm, "description")) {
      problems.push(
        `${rel} needs a non-empty \`description:\` in a \`---\` frontmatter block at its top`,
      );
    }
  }

  // 5. Compile. Python runs once for all scripts (after the other checks are collected); its
  // answers go back into this slot, in key order with any non-text scripts.
  const sources: PythonSource[] = [];
  const compileSlot = problems.length;
  const compileOrder: (string | number)[] = [];
  for (const key of keys) {
    const isScript = pats.script.test(key);
    const isSkillPy =
      surface.compileSkillScripts && key.endsWith(".py") && pats.skillScript.test(key);
    if (!isScript && !isSkillPy) continue;
    const value = tree[key] as TreeValue;
    if (typeof value === "string") {
      compileOrder.push(sources.length);
      sources.push({ rel: key, source: value });
    } else compileOrder.push(`${key} does not compile: it is not UTF-8 text`);
  }

  // 6. Hooks.
  const hf = surface.hooksFile;
  if (hf !== null && tree[hf] !== undefined) {
    const value = tree[hf];
    if (typeof value === "string") problems.push(...checkHooks(surface, value));
    else problems.push(notText(hf, "it is a JSON file"));
  }

  // 7. Script references.
  problems.push(...scriptRefProblems(surface, tree, skills, reserved));

  const check = opts.python ?? defaultPythonChecker();
  const answers =
    sources.length > 0 ? await check(sources, opts.signal ? { signal: opts.signal } : {}) : [];
  const compileProblems = compileOrder
    .map((slot) => (typeof slot === "string" ? slot : answers[slot]))
    .filter((p): p is string => typeof p === "string");
  problems.splice(compileSlot, 0, ...compileProblems);

  if (problems.length > 0) throw new TreeValidationError(problems);
  const census: Census = {
    always_on_chars: aoChars,
    n_files: keys.length,
    skills: skills.length,
    sub_agents: subagents.length,
    scripts: keys.filter((k) => pats.script.test(k)).length,
  };
  const plugin = pats.plugin;
  if (plugin !== null) census.plugins = keys.filter((k) => plugin.test(k)).length;
  if (hf !== null) census.hooks = tree[hf] === undefined ? 0 : 1;
  return census;
}

function frontmatterOf(
  rel: string,
  value: TreeValue | undefined,
  problems: string[],
  consequence: string,
): Frontmatter {
  if (value instanceof Uint8Array) problems.push(notText(rel, "it is read as markdown"));
  const fm = parseFrontmatter(textOf(value));
  if (fm.kind === "invalid") {
    problems.push(
      `${rel} has a \`---\` frontmatter block that does not parse (${fm.error}); ${consequence}`,
    );
  }
  return fm;
}

/**
 * Fix docs/differences.md H5: a SKILL.md's `python3 scripts/x.py` also resolves against the skill's
 * own folder, `python` no longer matches inside a word, and each (file, reference) is reported
 * once. Sub-agent files (`sub_agents/<n>/AGENT.md`) and plugins are scanned too, not only SKILL.md
 * and the always-on files; their relative `scripts/…` resolves against the top level.
 */
function scriptRefProblems(
  surface: SurfaceSpec,
  tree: Tree,
  skills: readonly string[],
  reserved: ReadonlySet<string>,
): string[] {
  const pats = surfacePatterns(surface);
  const have = new Set(
    Object.keys(tree).filter((k) => pats.script.test(k) || pats.skillScript.test(k)),
  );
  const scanned: { rel: string; skillFolder: string | null }[] = [
    ...skills.map((n) => ({
      rel: `${surface.skillDir}/${n}/SKILL.md`,
      skillFolder: `${surface.skillDir}/${n}`,
    })),
    ...surface.alwaysOn.map((rel) => ({ rel, skillFolder: null })),
    ...subagentNames(surface, tree).map((n) => ({
      rel: `sub_agents/${n}/AGENT.md`,
      skillFolder: null,
    })),
    ...Object.keys(tree)
      .filter((k) => pats.plugin?.test(k) === true)
      .sort(comparePathSegments)
      .map((rel) => ({ rel, skillFolder: null })),
    // A hook command that runs a script the harness does not ship fails at every event it fires.
    ...(surface.hooksFile !== null && tree[surface.hooksFile] !== undefined
      ? [{ rel: surface.hooksFile, skillFolder: null }]
      : []),
  ];
  const out = new Set<string>();
  for (const { rel, skillFolder } of scanned) {
    const text = tree[rel];
    if (typeof text !== "string") continue;
    for (const m of text.matchAll(pats.scriptRef)) {
      const ref = m[1] as string;
      if (reserved.has(ref.slice(ref.lastIndexOf("/") + 1))) continue;
      if (have.has(ref)) continue;
      if (skillFolder !== null && ref.startsWith("scripts/") && have.has(`${skillFolder}/${ref}`)) {
        continue;
      }
      out.add(`${rel} invokes \`${ref}\` but that file is not in the harness`);
    }
  }
  return [...out];
}

/** Problems of a hooks file's text (docs/method.md §1); empty when it is well formed. */
export function checkHooks(surface: SurfaceSpec, src: string): string[] {
  const hf = surface.hooksFile ?? "hooks file";
  let data: unknown;
  try {
    data = JSON.parse(src);
  } catch (err) {
    return [`${hf} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`];
  }
  const hooks = isObject(data) ? data.hooks : undefined;
  if (!isObject(hooks) || Object.keys(hooks).length === 0) {
    return [
      `${hf} needs a top-level {"hooks": {"<Event>": [...]}} object with at least one event (a malformed hooks file never fires)`,
    ];
  }
  const allowed = new Set(surface.hookEvents);
  const errs: string[] = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!allowed.has(event)) {
      errs.push(
        `${hf}: unknown hook event \`${event}\`; events are PascalCase, one of: ${[...allowed].sort().join(", ")}`,
      );
      continue;
    }
    if (!Array.isArray(entries)) {
      errs.push(`${hf}: \`${event}\` must map to a LIST of matcher entries`);
      continue;
    }
    entries.forEach((entry: unknown, i) => {
      const list = isObject(entry) ? entry.hooks : undefined;
      if (!Array.isArray(list)) {
        errs.push(`${hf}: \`${event}[${i}]\` needs a \`hooks\` list`);
        return;
      }
      list.forEach((hook: unknown, j) => {
        const at = `\`${event}[${i}].hooks[${j}]\``;
        if (!isObject(hook) || hook.type !== "command") {
          errs.push(
            `${hf}: ${at} must have \`"type": "command"\` (async, prompt and agent hooks are skipped by codex as not supported yet)`,
          );
        } else if (String(hook.command ?? "").trim() === "") {
          errs.push(`${hf}: ${at} has an empty \`command\``);
        }
      });
    });
  }
  return errs;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
