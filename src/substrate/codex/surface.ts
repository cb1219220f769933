// The Codex editable surface (docs/method.md §1), as data. A pure value: nothing here touches the
// disk or knows how a tree is installed for Codex.

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
