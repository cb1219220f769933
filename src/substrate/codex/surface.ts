// The Codex editable surface (docs/method.md §1), as data. A pure value: nothing here touches the
// disk or knows how a tree is installed for Codex.

import type { Tree } from "../../core/harness/surface.ts";
import { SurfaceSpec } from "../../core/harness/tree.ts";

export const CODEX_SURFACE: SurfaceSpec = SurfaceSpec.parse({
  name: "codex",
  alwaysOn: ["AGENTS.md"],
  alwaysOnMax: 8_000,
  alwaysOnCapReason:
    "AGENTS.md is injected whole into every turn, and codex silently cuts it off at 32,768 bytes",
  skillDir: ".agents/skills",
  skillNameRule: "overrides_dir",
  triggerHint:
    "add a trigger line naming it to AGENTS.md, e.g. 'When <situation>, read .agents/skills/{name}/SKILL.md and follow it.'",
  autotriggerFile: "AGENTS.md",
  triggerLine: "- When {desc}, read .agents/skills/{name}/SKILL.md and follow it.\n",
  subagentRequiresMode: false,
  pluginDir: null,
  hooksFile: ".codex/hooks.json",
  hookEvents: [
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SubagentStart",
    "SubagentStop",
    "UserPromptSubmit",
    "Stop",
  ],
  compileSkillScripts: true,
  rejectEmptyAlwaysOn: true,
  stubs: [
    {
      // Word for word the OpenCode surface's scripts stub: helper scripts work the same on both.
      path: "scripts/README.md",
      body: "<!-- c7 helper scripts: deterministic Python the agent runs as `python3 scripts/<name>.py`. Add one by creating scripts/<name>.py (snake_case). -->\n",
    },
    {
      path: "sub_agents/README.md",
      body: "<!-- c5 sub-agents: delegated codex agent roles, each started in its own context. Add sub_agents/<name>/AGENT.md with a `description:`; the runner is meant to install each as an [agents.<name>] role. -->\n",
    },
    {
      path: ".codex/README.md",
      body: '<!-- c8 lifecycle hooks, the only lever inside the tool loop: exactly one file, .codex/hooks.json, in the Claude Code hook schema ({"hooks": {"<Event>": [{"matcher": ..., "hooks": [{"type": "command", "command": ...}]}]}}). A PostToolUse command that prints {"decision": "block", "reason": ...} sends the reason back to the model. -->\n',
    },
    {
      path: ".agents/skills/README.md",
      body: "<!-- c6 skills: add .agents/skills/<name>/SKILL.md with YAML frontmatter. `description:` is required (a skill without frontmatter is dropped silently); `name:` is optional and must equal the folder name. Only name and description are advertised; the body is read when needed. -->\n",
    },
  ],
});

/**
 * The starting Codex harness for tasks that bring none (`harness-codex/`): a short AGENTS.md in
 * our own words. Codex rejects an empty AGENTS.md tree (the surface's only always-on file), so the
 * baseline states the three rules every task here shares instead of staying blank.
 */
export const CODEX_BASELINE_TREE: Readonly<Tree> = Object.freeze({
  "AGENTS.md": [
    "# Working on this task",
    "",
    "- The task's input files are in the working directory; read the ones the task names before you start.",
    "- Write every deliverable under `output/` (create it if it is missing), with the file names the task asks for. Nothing outside `output/` is collected.",
    "- Before you stop, check the deliverable: open it, compare it with what the task asked for, and fix what is missing or wrong.",
    "",
  ].join("\n"),
});
