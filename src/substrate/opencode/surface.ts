// The OpenCode editable surface (docs/method.md §1) and the starting OpenCode harness
// (docs/method.md §1), as data. Pure values: nothing here touches the disk or knows how a tree is
// rendered for OpenCode.

import { SurfaceSpec, type Tree } from "../../core/harness/tree.ts";

/** OpenCode's output-token ceiling used when it runs a rollout. */
export const OUTPUT_TOKEN_MAX = 64_000;

export const OPENCODE_SURFACE: SurfaceSpec = SurfaceSpec.parse({
  name: "opencode",
  alwaysOn: [
    "systemprompt.md",
    "guardrails.md",
    "LongTermMEMORY.md",
    "tool_descriptions/tool_guidance.md",
  ],
  alwaysOnMax: 24_000,
  alwaysOnCapReason:
    "these files ride along on every turn, and every token in them is taken from the budget the agent has for its own output",
  skillDir: "skills",
  skillNameRule: "must_match",
  triggerHint:
    "add a trigger line naming it to systemprompt.md or guardrails.md, e.g. 'When <situation>, load the `{name}` skill.'",
  autotriggerFile: "guardrails.md",
  triggerLine: "- When {desc}, load the `{name}` skill.\n",
  subagentRequiresMode: true,
  pluginDir: "plugin",
  hooksFile: null,
  stubs: [
    {
      path: "scripts/README.md",
      body: "<!-- c7 helper scripts: deterministic Python the agent runs as `python3 scripts/<name>.py`. Add one by creating scripts/<name>.py (snake_case). -->\n",
    },
    {
      path: "sub_agents/README.md",
      body: "<!-- c5 sub-agents: delegated workers the agent starts with the `task` tool, each in its own context. Add sub_agents/<name>/AGENT.md with frontmatter `mode: subagent` and a `description:`. -->\n",
    },
    {
      path: "plugin/README.md",
      body: "<!-- c8 plugins: OpenCode plugins run inside the tool loop, the one lever that can enforce what the model cannot skip. Add plugin/<name>.ts. -->\n",
    },
    {
      path: "skills/README.md",
      body: "<!-- c6 skills: reusable workflows the agent loads on demand with the `skill` tool. Add skills/<name>/SKILL.md whose frontmatter has `name: <name>` (same as the folder) and a `description:`. -->\n",
    },
  ],
});

/**
 * The starting OpenCode harness: every always-on file holds only a comment, so the agent runs as
 * stock OpenCode until a stage writes something real.
 */
export const OPENCODE_BASELINE_TREE: Readonly<Tree> = Object.freeze({
  "systemprompt.md":
    "<!-- c1 system prompt: empty in the baseline, so the agent runs with OpenCode's own prompt. Role and procedure go here. Template slots available when rendered: {{ env_description }}, {{ domain_focus }}, {{ date }}, {{ working_directory }}. -->\n",
  "guardrails.md":
    "<!-- c6 guardrails: short rules that hold on every turn (what to check before finishing, what never to do). Empty in the baseline. -->\n",
  "LongTermMEMORY.md":
    "<!-- c3 long-term memory: durable, general facts about the domain that help on the next task. Never answers to a particular task. Empty in the baseline. -->\n",
  "tool_descriptions/tool_guidance.md":
    "<!-- c4 tool guidance: prose on when and how to use the available tools. Empty in the baseline. -->\n",
});
