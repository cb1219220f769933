// Renders a harness tree on the OpenCode surface into a runnable workspace configuration
// (install mode `workspace_agents_md`, docs/method.md §2): AGENTS.md,
// .opencode/{skills,agent,plugin}, scripts/, skills/<n>/scripts/ and opencode.json. Reads only the
// tree; never runs anything.
//
// AGENTS.md, in ONE documented order (fix docs/differences.md H8, where each renderer had its own):
//   1. systemprompt.md (no heading)
//   2. guardrails.md                         under "# Operating Guardrails"
//   3. LongTermMEMORY.md                     under "# Long-Term Memory"
//   4. tool_descriptions/tool_guidance.md    under "# Tool Guidance"
//   5. the helper scripts, as `python3 scripts/<file>` lines, under "# Helper scripts (run via
// Bash)" This is the surface's own always-on order — the order the proposer is told about and the
// cap is measured in. (The original JobBench renderer put tool guidance before memory.) In each
// file every HTML comment is removed and the known `{{ token }}` slots are filled; blank parts are
// skipped, and a harness whose parts are all blank renders no AGENTS.md at all (= stock OpenCode).

import { mkdirSync, readdirSync } from "node:fs";
import { posix } from "node:path";
import { mergeConfig, workspaceFence } from "../../agent-cli/opencode.ts";
import { isTree, readTree, type Tree, type TreeValue, textOf } from "../../core/harness/tree.ts";
import { Harness2Error } from "../../core/lib/errors.ts";
import { treeFingerprint } from "../../core/lib/fingerprint.ts";
import { dirExists, writeFileSafe } from "../../core/lib/safe-fs.ts";
import type { RolloutTemplate } from "../../core/seams/executor.ts";
import { OPENCODE_SURFACE } from "./surface.ts";

/**
 * The version of what materialise writes for a given tree. BUMP IT whenever a change here alters
 * the rendered workspace (AGENTS.md text or order, file placement, opencode.json), so rollouts
 * made by the old rendering are not reused as if the new one had made them.
 */
export const MATERIALISE_VERSION = 1;

/**
 * The key a rollout's run mark records and reuse compares: the SOURCE tree's fingerprint plus
 * MATERIALISE_VERSION. Fix docs/differences.md H12, where only the source dir was hashed, so a
 * changed renderer silently reused rollouts of the old rendering. Hashing the rendered output
 * instead would not work: it embeds the workspace path and today's date, so no run would ever be
 * reused. Resume is unaffected: a finished task is skipped on its recorded selection (harness tree
 * and output digests), never on this key; only rollouts still to be reused re-run after a bump.
 * (The trajectory renderer needs no version: trajectories are rendered afresh from the saved
 * stream on every read.)
 */
export async function rolloutFingerprint(
  harnessDir: string,
  version: number = MATERIALISE_VERSION,
): Promise<string> {
  return `m${version}-${await treeFingerprint(harnessDir)}`;
}

/** The harness cannot be rendered (not a tree, or a destination that is not empty). */
export class MaterialiseError extends Harness2Error {
  constructor(
    readonly harnessDir: string,
    readonly reason: string,
  ) {
    super(`cannot materialise the harness at '${harnessDir}': ${reason}`);
  }
}

/** Values for the `{{ token }}` slots of always-on files. */
export type TemplateContext = RolloutTemplate;

export type MaterialiseOptions = {
  /** `provider/model`, written into opencode.json. */
  model: string;
  /** Agent step cap (`agent.build.steps`). */
  steps: number;
  template?: TemplateContext;
  /** Gate the tools to the base set (install mode workspace_config; see toolGatePermissions). */
  toolGate?: boolean;
};

/**
 * The tool gate of install mode `workspace_config` (LAB): the agent keeps the base tools (read,
 * edit/write, bash, glob, grep, list and its task checklist) and `skill` when the harness has
 * skills; web access and sub-agents (`task`) are denied, which removes them from its tool list.
 */
export function toolGatePermissions(hasSkills: boolean): Record<string, string> {
  return {
    webfetch: "deny",
    websearch: "deny",
    codesearch: "deny",
    task: "deny",
    skill: hasSkills ? "allow" : "deny",
  };
}

export type Installed = {
  /** The destination directory, now holding the rendered configuration. */
  dir: string;
  /** rolloutFingerprint of the SOURCE harness directory (docs/differences.md H12: not of the output). */
  fingerprint: string;
  /** Whether an AGENTS.md was written (false when every always-on part is blank). */
  agentsMd: boolean;
  /** Relative paths written under `dir`, sorted. */
  files: string[];
};

/** The AGENTS.md sections, in the surface's always-on order (a test keeps the two in step). */
export const SECTIONS: readonly { path: string; heading: string | null }[] = [
  { path: "systemprompt.md", heading: null },
  { path: "guardrails.md", heading: "Operating Guardrails" },
  { path: "LongTermMEMORY.md", heading: "Long-Term Memory" },
  { path: "tool_descriptions/tool_guidance.md", heading: "Tool Guidance" },
];

const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const TOKEN = /\{\{\s*(env_description|domain_focus|date|working_directory)\s*\}\}/g;

/**
 * Fills the known `{{ token }}` slots. Unknown `{{ … }}` text is left as written (the original
 * replaced it with nothing, silently eating text the proposer wrote; docs/differences.md H13).
 */
export function fillTemplate(text: string, ctx: Required<TemplateContext>): string {
  return text.replace(TOKEN, (_m, name: string) => {
    if (name === "env_description") return ctx.envDescription;
    if (name === "domain_focus") return ctx.domainFocus;
    if (name === "date") return ctx.date;
    return ctx.workingDirectory;
  });
}

/** First line of a Python module docstring (≤ 120 chars), or null when there is none. */
export function docstringSummary(source: string): string | null {
  let rest = source.replace(/^\uFEFF/, "");
  for (;;) {
    const m = /^(?:[ \t]*(?:#[^\n]*)?\r?\n)/.exec(rest);
    if (!m || m[0].length === 0) break;
    rest = rest.slice(m[0].length);
  }
  const open = /^[ \t]*[rRuU]?("""|''')/.exec(rest);
  if (!open) return null;
  const quote = open[1] as string;
  const body = rest.slice(open[0].length);
  const end = body.indexOf(quote);
  const doc = end < 0 ? body : body.slice(0, end);
  const first = doc
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  return first === undefined ? null : first.slice(0, 120);
}

/** Whether a top-level script is listed in AGENTS.md (`_`-prefixed modules are helpers' helpers). */
const listedScript = (file: string) => !file.startsWith("_");

/** The AGENTS.md text for `tree`, or "" when every part is blank. */
export function composeAgentsMd(tree: Tree, ctx: Required<TemplateContext>): string {
  const parts: string[] = [];
  for (const { path, heading } of SECTIONS) {
    const body = fillTemplate(textOf(tree[path]).replace(HTML_COMMENT, ""), ctx).trim();
    if (body === "") continue;
    parts.push(heading === null ? body : `# ${heading}\n\n${body}`);
  }
  const scripts = Object.keys(tree)
    .filter((k) => /^scripts\/[^/]+\.py$/.test(k))
    .map((k) => posix.basename(k))
    .filter(listedScript)
    .sort();
  if (scripts.length > 0) {
    const lines = scripts.map((f) => {
      const summary = docstringSummary(textOf(tree[`scripts/${f}`])) ?? "helper script";
      return `- \`python3 scripts/${f}\` — ${summary}`;
    });
    parts.push(`# Helper scripts (run via Bash)\n\n${lines.join("\n")}`);
  }
  return parts.length === 0 ? "" : `${parts.join("\n\n")}\n`;
}

const FRONTMATTER_OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const FRONTMATTER_CLOSE = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/**
 * An AGENT.md as OpenCode's `.opencode/agent/<name>.md`, with `mode: subagent` guaranteed: an
 * existing `mode:` line in the frontmatter is set to `subagent`, a missing one is added, and a
 * file without frontmatter gets a minimal block (with a generic description) prepended.
 */
export function ensureSubagentMode(text: string, name: string): string {
  const open = FRONTMATTER_OPEN.exec(text);
  if (open) {
    const rest = text.slice(open[0].length);
    const end = rest.search(FRONTMATTER_CLOSE);
    if (end >= 0) {
      const block = rest.slice(0, end);
      const after = rest.slice(end);
      const modeLine = /^mode[ \t]*:.*$/m;
      const fixed = modeLine.test(block)
        ? block.replace(modeLine, "mode: subagent")
        : `mode: subagent\n${block}`;
      return `${open[0]}${fixed}${after}`;
    }
  }
  return `---\ndescription: The ${name} sub-agent.\nmode: subagent\n---\n\n${text}`;
}

/** The opencode.json of a rollout workspace: model, step cap, permission fence, no update/share. */
export function workspaceConfig(
  dest: string,
  model: string,
  steps: number,
  gate: Record<string, string> = {},
): object {
  const fence = { ...(JSON.parse(workspaceFence(dest)) as Record<string, unknown>), ...gate };
  return mergeConfig(
    { $schema: "https://opencode.ai/config.json" },
    {
      model,
      autoupdate: false,
      share: "disabled",
      // No git snapshots of the workspace: they cost seconds per step and nothing reads them.
      snapshot: false,
      agent: { build: { steps } },
      permission: fence,
    },
  );
}

/** Today's UTC date as YYYY-MM-DD. */
export function utcDate(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Renders the harness at `harnessDir` into `dest` (created; it must be empty or absent):
 * - AGENTS.md composed as described at the top of this file;
 * - each `skills/<n>/` that has a SKILL.md → `.opencode/skills/<n>/` (SKILL.md and its scripts),
 *   and its scripts ALSO → `skills/<n>/scripts/` at the workspace root, so the relative
 *   `python3 skills/<n>/scripts/x.py` that validation accepts works from the workspace (fix of
 *   docs/differences.md H6, where the JobBench layout broke it);
 * - `sub_agents/<n>/AGENT.md` → `.opencode/agent/<n>.md` with `mode: subagent` ensured;
 * - `plugin/<n>.ts` → `.opencode/plugin/<n>.ts`;
 * - `scripts/*.py` → `scripts/` (all of them: the original dropped `_`-prefixed modules, which
 *   broke scripts that import them; those are only left out of the AGENTS.md list;
 *   docs/differences.md H6);
 * - opencode.json (see workspaceConfig).
 * Off-surface files of the source (README stubs, manifests) are not rendered.
 */
export async function materialise(
  harnessDir: string,
  dest: string,
  opts: MaterialiseOptions,
): Promise<Installed> {
  if (!isTree(OPENCODE_SURFACE, harnessDir)) {
    throw new MaterialiseError(
      harnessDir,
      `it holds none of the always-on files (${OPENCODE_SURFACE.alwaysOn.join(", ")})`,
    );
  }
  if (dirExists(dest) && readdirSync(dest).length > 0) {
    throw new MaterialiseError(harnessDir, `the destination '${dest}' is not empty`);
  }
  const tree = readTree(OPENCODE_SURFACE, harnessDir);
  mkdirSync(dest, { recursive: true });
  const ctx: Required<TemplateContext> = {
    envDescription:
      "a Linux workspace holding the task's input files; shell commands run in it with Bash",
    domainFocus: "",
    date: utcDate(),
    workingDirectory: dest,
    ...opts.template,
  };

  const out = new Map<string, TreeValue>();
  const agents = composeAgentsMd(tree, ctx);
  if (agents !== "") out.set("AGENTS.md", agents);

  const skills = new Set(
    Object.keys(tree)
      .map((k) => /^skills\/([^/]+)\/SKILL\.md$/.exec(k)?.[1])
      .filter((n): n is string => n !== undefined),
  );
  for (const [rel, value] of Object.entries(tree)) {
    const skill = /^skills\/([^/]+)\/(.+)$/.exec(rel);
    if (skill) {
      const [, name, rest] = skill as unknown as [string, string, string];
      if (!skills.has(name)) continue; // scripts of a skill without SKILL.md are never loaded
      out.set(`.opencode/skills/${name}/${rest}`, value);
      if (rest.startsWith("scripts/")) out.set(rel, value);
      continue;
    }
    const agent = /^sub_agents\/([^/]+)\/AGENT\.md$/.exec(rel);
    if (agent) {
      const name = agent[1] as string;
      out.set(`.opencode/agent/${name}.md`, ensureSubagentMode(textOf(value), name));
      continue;
    }
    if (/^plugin\/[^/]+\.ts$/.test(rel)) out.set(`.opencode/${rel}`, value);
    else if (/^scripts\/[^/]+\.py$/.test(rel)) out.set(rel, value);
  }
  out.set(
    "opencode.json",
    `${JSON.stringify(workspaceConfig(dest, opts.model, opts.steps, opts.toolGate ? toolGatePermissions(skills.size > 0) : {}), null, 2)}\n`,
  );

  for (const [rel, value] of out) writeFileSafe(dest, rel, value);
  return {
    dir: dest,
    fingerprint: await rolloutFingerprint(harnessDir),
    agentsMd: agents !== "",
    files: [...out.keys()].sort(),
  };
}
