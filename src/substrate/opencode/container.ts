// A harness for OpenCode running inside a benchmark's container (install mode `home_dir_jinja`,
// docs/benchmarks.md "WorkBuddy"): the container's agent installs the tree's skills, sub-agents,
// plugins and scripts into its home and is started with ONE prompt — this module's template, the
// always-on text followed by the task's instruction in its single `{{ instruction }}` slot.
//
// The template is composed by the same rules as the local AGENTS.md (composeAgentsMd): the
// surface's always-on order, HTML comments removed, the known `{{ token }}` slots filled. The
// original used the files verbatim here, comments and all, and moved tool_guidance.md to a place
// the agent never read (docs/differences.md B16).

import { posix } from "node:path";
import { parseFrontmatter, scalarField } from "../../core/harness/frontmatter.ts";
import { type Tree, textOf } from "../../core/harness/tree.ts";
import {
  type ContainerInstall,
  INSTRUCTION_SLOT,
  type RolloutTemplate,
} from "../../core/seams/executor.ts";
import { composeAgentsMd, type TemplateContext, utcDate } from "./materialise.ts";

/** Where the container's agent puts the tree's scripts (`python ~/harness_scripts/<name>.py`). */
export const CONTAINER_SCRIPTS_DIR = "~/harness_scripts";

function describe(text: string): string {
  const fm = parseFrontmatter(text);
  return scalarField(fm, "description")?.trim() || "(no description)";
}

function bullets(tree: Tree, pattern: RegExp): string[] {
  return Object.keys(tree)
    .map((k) => [k, pattern.exec(k)?.[1]] as const)
    .filter((e): e is readonly [string, string] => e[1] !== undefined)
    .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, name]) => `- \`${name}\`: ${describe(textOf(tree[k]))}`);
}

/**
 * The prompt template of `tree`: the always-on text (as composeAgentsMd renders it, minus its
 * local helper-script list), then the available skills, sub-agents and container helper scripts,
 * then the instruction slot last; parts joined by a `---` rule.
 */
export function composeContainerPrompt(tree: Tree, ctx: Required<TemplateContext>): string {
  const scriptless: Tree = Object.fromEntries(
    Object.entries(tree).filter(([k]) => !k.startsWith("scripts/")),
  );
  const parts: string[] = [];
  const always = composeAgentsMd(scriptless, ctx).trim();
  if (always !== "") parts.push(always);
  const skills = bullets(tree, /^skills\/([^/]+)\/SKILL\.md$/);
  if (skills.length > 0) {
    parts.push(
      [
        "# AVAILABLE SKILLS",
        "",
        "Load one with the `skill` tool when the situation it describes comes up.",
        ...skills,
      ].join("\n"),
    );
  }
  const agents = bullets(tree, /^sub_agents\/([^/]+)\/AGENT\.md$/);
  if (agents.length > 0) {
    parts.push(
      [
        "# AVAILABLE SUBAGENTS",
        "",
        "Hand work to one with the `task` tool when its description fits.",
        ...agents,
      ].join("\n"),
    );
  }
  const scripts = Object.keys(tree)
    .filter((k) => /^scripts\/[^/]+\.py$/.test(k))
    .map((k) => posix.basename(k))
    .sort();
  if (scripts.length > 0) {
    parts.push(
      [
        "# HELPER SCRIPTS",
        "",
        `These scripts are installed in ${CONTAINER_SCRIPTS_DIR}/: ${scripts.join(", ")}.`,
        `Run one with \`python ${CONTAINER_SCRIPTS_DIR}/<name>.py\`.`,
      ].join("\n"),
    );
  }
  parts.push(INSTRUCTION_SLOT);
  return `${parts.join("\n\n---\n\n")}\n`;
}

/** A tree for OpenCode's container agent: the files it installs and the prompt template. */
export function containerInstall(tree: Tree, template: RolloutTemplate): ContainerInstall {
  const ctx: Required<TemplateContext> = {
    envDescription: "a Linux container holding the task's files; shell commands run in it",
    domainFocus: "",
    date: utcDate(),
    workingDirectory: "the container's working directory",
    ...template,
  };
  const files: Tree = Object.fromEntries(
    Object.entries(tree).filter(([k]) =>
      /^(skills\/[^/]+\/|sub_agents\/[^/]+\/AGENT\.md$|plugin\/[^/]+\.ts$|scripts\/[^/]+\.py$)/.test(
        k,
      ),
    ),
  );
  return { files, promptTemplate: composeContainerPrompt(tree, ctx) };
}
