// The "what you can change" text of each substrate (docs/method.md §4), for both prompt packs, plus
// the two per-surface phrases the dimension blocks borrow. The substrate enters the prompts only
// here, picked by the surface's name; nothing here may import a substrate module.
//
// The tts texts are assembled from the same named parts as the adapt ones, so no copy can drift.
// Deliberate changes from the original: the tts texts keep the deliverable-shape paragraph
// (docs/differences.md E4), the tts codex text carries the full hooks paragraph, and the tts
// opencode table says outright that c6 has two homes instead of printing "c6" twice unexplained
// (docs/differences.md E9). The codex texts have no template-brace rule: AGENTS.md is not rendered
// as a template.

import { KEEP_BASE, TAG } from "../reply.ts";
import { HEADING } from "./blocks.ts";
import {
  type PromptPack,
  type PromptSurface,
  prose,
  section,
  surfaceName,
  thousands,
} from "./text.ts";

const NOTES_OPEN = `<${TAG.notes}>`;

const HOW_TO_CHANGE = section(
  HEADING.HOW_TO_CHANGE,
  prose`The harness is in \`context/harness/\`. Edit it in place with your own tools: **the files on
disk when you finish are your proposal**, and nothing you write in your reply changes the harness.
Files you leave alone are inherited; deleting a file removes that component. If nothing is
warranted, leave every file as it is and say \`${KEEP_BASE}\` in your notes.

Reply with exactly one \`${NOTES_OPEN}\` block and nothing else. For each change, name the
trajectory moment that motivated it. The notes are read by a person; no machine applies them.`,
);

const DELIVERABLE_SHAPE = prose`The shape of the deliverable belongs to the request. A harness changes HOW
the agent works, never WHAT SHAPE it delivers: no added explanatory columns, no restated
derivations, no renamed headers, no exposed intermediate results. A value that was asked for is
delivered as a value, not as a formula, a placeholder or a description of a calculation.`;

const RARE_LEVERS = prose`Both levers are rare in adopted harnesses. Read that as a gap, not a verdict,
but add one only when a trajectory shows the failure it fixes.`;

// ── opencode ──────────────────────────────────────────────────────────────────────────────────

const OC_TABLE = prose`| path | what it is | in context |
|---|---|---|
| \`systemprompt.md\` | role and working procedure | always |
| \`guardrails.md\` | standing rules | always |
| \`LongTermMEMORY.md\` | durable facts of the domain | always |
| \`tool_descriptions/tool_guidance.md\` | how to use the tools | always |
| \`skills/<name>/SKILL.md\` | a reusable workflow | on demand, once loaded |
| \`sub_agents/<name>/AGENT.md\` | a delegated subagent | in its own context; returns text |
| \`scripts/<name>.py\` | a deterministic helper | when run through bash |
| \`plugin/<name>.ts\` | a plugin | always registered; acts inside the tool loop |`;

const OC_PITFALLS = prose`Three components are easy to get wrong:
- **Skills.** The frontmatter needs \`name:\` (identical to the directory name) and
  \`description:\`; without them the skill is dropped without a warning. A skill must be named in
  always-on text, and every helper it calls must travel with it.
- **Subagents.** The frontmatter needs \`mode: subagent\` and \`description:\`. A subagent sees
  only its own file and the call it receives, and it returns text. It pays off only when the input
  is large and the answer small.
- **Plugins.** The only lever inside the tool loop, and so the only enforcement the model cannot
  skip.`;

function formGuidance(loopLever: string, loopUses: string, alwaysOnNote: string): string {
  return prose`Change only what a trajectory shows needs changing, and choose the form with care.
Always-on prose is the expensive option: it competes with the output budget on every turn, and
the costliest failure is a run that reasons until its budget is gone and delivers nothing.
Prefer, in this order:
1. SKILL: the default for anything that has a trigger.
2. SCRIPT: a deterministic operation the agent performs badly or slowly by hand.
3. SUBAGENT: a bounded investigation with a large input and a small answer.
4. ${loopLever}: ${loopUses}
5. ALWAYS-ON text: last, and only for short rules that hold everywhere. If you add some, cut
   some.${alwaysOnNote}`;
}

const OC_FORM = formGuidance(
  "PLUGIN",
  prose`recurring mechanical problems in the tool loop: trimming noisy output, appending a hint
   after a recurring error signature, capping a runaway tool, verifying a write.`,
  "",
);

const OC_DISCARD_RULES = prose`Three rules make validation discard your whole proposal:
1. **Every skill needs a trigger line.** Its directory name must appear verbatim in
   \`systemprompt.md\` or \`guardrails.md\` in the same edit, in a sentence such as: When
   <situation>, load the \`<name>\` skill.
2. **No template braces in always-on text:** no \`{{ … }}\` placeholders and no \`{% … %}\` tags.
   Those files are rendered as templates with strict checking of undefined names, and an unknown
   placeholder kills the job.
3. **Every script the harness names ships in the proposal.** A skill's helper lives at
   \`skills/<skill>/scripts/<file>.py\`; a helper loose in the skill directory is off the surface
   and silently dropped. Scripts the runtime itself provides are the only exception.`;

const OC_TTS_HEAD = (alwaysOnMax: number) =>
  section(
    HEADING.EDITABLE_SURFACE,
    prose`Only the paths below may be written. Anything else is dropped, however good it is.

| path | component | what it is |
|---|---|---|
| \`systemprompt.md\` | c1 | persona and procedure; always on |
| \`guardrails.md\` | c6 (rules) | standing rules; always on |
| \`LongTermMEMORY.md\` | c3 | durable facts; always on |
| \`tool_descriptions/tool_guidance.md\` | c4 | prose on the tools; always on |
| \`skills/<name>/SKILL.md\` | c6 (skills) | a workflow, loaded through the \`skill\` tool |
| \`sub_agents/<name>/AGENT.md\` | c5 | a subagent, run through the \`task\` tool |
| \`scripts/<name>.py\` | c7 | a helper, run as \`python scripts/<name>.py\` |
| \`plugin/<name>.ts\` | c8 | always registered; acts inside the tool loop |

Component c6 has two homes: standing rules in \`guardrails.md\` and triggered workflows in skills.
The always-on files together are capped at ${thousands(alwaysOnMax)} characters.

## The two on-demand levers

- **Subagent.** Frontmatter \`mode: subagent\` plus \`description:\`; called through the \`task\`
  tool, in a separate context. Example: read twelve PDFs and return one table. A bad trade when
  the output is about as large as the input.
- **Plugin.** \`plugin/<name>.ts\` exports a constant typed \`Plugin\` (imported from
  \`@opencode-ai/plugin\`): an async function that returns an object of hooks. Three keys are
  useful:
  - \`"tool.execute.after"\`: inspect or transform a tool's output, e.g. re-open a written
    deliverable and check that it parses;
  - \`"tool"\`: register a new deterministic tool;
  - \`"experimental.chat.system.transform"\`: inject per-task guidance computed at run time.

${RARE_LEVERS}

## Hard rules

- The most common failure is no deliverable at all, because the model spent its output budget
  reasoning. Prefer on-demand skills; if you add always-on text, cut something.
- Skills load through the \`skill\` tool, subagents through \`task\`, scripts through Bash. Never
  tell the agent to read a SKILL.md or AGENT.md off the filesystem: a past harness wasted its
  whole run that way.
- \`scripts/*.py\` names are snake_case and must compile under \`py_compile\`.
- Never write \`AGENTS.md\` or \`harness.yaml\`; the runtime owns both.`,
  );

// ── codex ─────────────────────────────────────────────────────────────────────────────────────

const CX_TABLE = prose`| path | what it is | in context |
|---|---|---|
| \`AGENTS.md\` | the only always-on file | injected into every turn |
| \`.agents/skills/<name>/SKILL.md\` | a reusable workflow | name and description advertised; body read on demand |
| \`.agents/skills/<name>/scripts/*\` | helpers that travel with their skill | when run |
| \`sub_agents/<name>/AGENT.md\` | a delegated role | in its own context |
| \`scripts/<name>.py\` | a deterministic helper | when run through the shell |
| \`.codex/hooks.json\` | lifecycle hooks | fire inside the tool loop |`;

const CX_HOOKS = prose`\`.codex/hooks.json\` follows the Claude-Code hook schema. A top-level \`"hooks"\`
object maps the events \`PreToolUse\`, \`PostToolUse\` and \`SessionStart\` to lists of matcher
entries; each entry has a \`"matcher"\` (e.g. \`"Bash"\`) and a \`"hooks"\` list of command
entries:

\`\`\`json
{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 scripts/check_output.py"}]}]}}
\`\`\`

Each command receives the event as JSON on stdin (\`tool_name\`, \`tool_input\`; PostToolUse adds
\`tool_response\`). A PostToolUse command that prints a JSON object with \`"decision": "block"\`
and a \`"reason"\` sends the reason back to the model; a PreToolUse command can deny a call the
same way. Keep commands fast and put the real logic in a \`scripts/\` helper.`;

const CX_PITFALLS = prose`Three components are easy to get wrong:
- **Skills.** The YAML frontmatter needs \`description:\`. \`name:\` is optional, but if present it
  must equal the directory name, because it overrides it. A skill never named in \`AGENTS.md\` is
  never opened.
- **Subagents.** \`AGENT.md\` needs \`description:\`; the runner installs each subagent as a named
  role. Do not write one where spawning is unavailable.
- **Hooks.** ${CX_HOOKS}`;

const CX_FORM = (alwaysOnMax: number) =>
  formGuidance(
    "HOOK",
    prose`recurring mechanical problems in the tool loop: a hint after a recurring error, blocking a
   known-bad call with a reason that teaches, verifying a write.`,
    ` \`AGENTS.md\` is hard-capped at ${thousands(alwaysOnMax)} characters.`,
  );

const CX_RULES = prose`A skill exists only if its literal name appears in \`AGENTS.md\` as a trigger, in a
sentence such as: When <situation>, read .agents/skills/<name>/SKILL.md and follow it.

\`AGENTS.md\` must never be left empty or deleted: a harness without it is rejected before it
runs. Trim it; never empty it.

Helper scripts go at \`.agents/skills/<skill>/scripts/<file>.py\`. A helper placed directly in
the skill directory is off the surface and dropped.`;

const CX_TTS_HEAD = (alwaysOnMax: number) =>
  section(
    HEADING.EDITABLE_SURFACE,
    prose`Only the paths below may be written. Anything else is dropped, however good it is.

| path | component | what it is |
|---|---|---|
| \`AGENTS.md\` | c1/c3/c4/c6 | the only always-on file |
| \`.agents/skills/<name>/SKILL.md\` | c6 | a workflow; name and description advertised, body read on demand |
| \`.agents/skills/<name>/scripts/*\` | c6 | helpers of that skill |
| \`sub_agents/<name>/AGENT.md\` | c5 | a delegated role in its own context |
| \`scripts/<name>.py\` | c7 | a deterministic helper |
| \`.codex/hooks.json\` | c8 | lifecycle hooks inside the tool loop |

## The two on-demand levers

- **Subagent.** \`AGENT.md\` needs \`description:\`; the runner installs it as a named role. Do not
  write one where spawning is unavailable.
- **Hooks.** ${CX_HOOKS}

${RARE_LEVERS}

## Hard rules

- The most common failure is no deliverable at all, because the model spent its output budget
  reasoning. Prefer on-demand skills. \`AGENTS.md\` is hard-capped at
  ${thousands(alwaysOnMax)} characters and never empty.
- A skill's literal directory name must appear in \`AGENTS.md\`.
- Scripts run through the shell; \`scripts/*.py\` names are snake_case and must compile under
  \`py_compile\`.
- Never write \`harness.yaml\` or any other file the runtime owns.`,
  );

// ── assembly ──────────────────────────────────────────────────────────────────────────────────

/** The pack's "what you can change" text for this surface; it ends with `[HOW-TO-CHANGE]`. */
export function surfaceBlock(surface: PromptSurface, pack: PromptPack): string {
  const name = surfaceName(surface);
  const cap = surface.alwaysOnMax;
  if (pack === "tts") {
    const head = name === "opencode" ? OC_TTS_HEAD(cap) : CX_TTS_HEAD(cap);
    const rules = name === "opencode" ? OC_DISCARD_RULES : CX_RULES;
    return [head, rules, DELIVERABLE_SHAPE, HOW_TO_CHANGE].join("\n\n");
  }
  const body =
    name === "opencode"
      ? [OC_TABLE, OC_PITFALLS, OC_FORM, OC_DISCARD_RULES, DELIVERABLE_SHAPE]
      : [CX_TABLE, CX_PITFALLS, CX_FORM(cap), CX_RULES, DELIVERABLE_SHAPE];
  return [section(HEADING.WHAT_YOU_CAN_CHANGE, body.join("\n\n")), HOW_TO_CHANGE].join("\n\n");
}

/**
 * The defensive tool-loop lever named in the adapt INV block's IGNORED INVARIANT bullet; the
 * deliverable word is filled in.
 */
export function loopLever(surface: PromptSurface, deliverable: string): string {
  return surfaceName(surface) === "opencode"
    ? `a \`plugin/<name>.ts\` hook, e.g. one that stops the agent from finishing before a ${deliverable} exists`
    : `a hook in \`.codex/hooks.json\`, e.g. one that blocks finishing before a ${deliverable} exists and gives the agent a corrective reason`;
}

/** The adapt DOM block's reminder that a skill needs its trigger in always-on text. */
export function triggerSentence(surface: PromptSurface): string {
  return surfaceName(surface) === "opencode"
    ? "A skill exists only once its name appears in the always-on text, so write its trigger line in the same edit."
    : "A skill exists only once its name appears in `AGENTS.md`, so write its trigger line there in the same edit.";
}
