// A harness as each executor's agent in a container installs it (install modes home_dir_jinja and
// codex_root): the OpenCode prompt template and its parts, and the Codex workspace-root files.

import { describe, expect, test } from "bun:test";
import { INSTRUCTION_SLOT } from "../../src/core/seams/executor.ts";
import { CodexSubstrate } from "../../src/substrate/codex/substrate.ts";
import { composeContainerPrompt } from "../../src/substrate/opencode/container.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";

const ctx = {
  envDescription: "a box",
  domainFocus: "books",
  date: "2026-12-02",
  workingDirectory: "/w",
};

describe("OpenCode in a container (home_dir_jinja)", () => {
  test("the always-on text in surface order, comments gone, slots filled; then skills, sub-agents, scripts; the instruction last", () => {
    const tree = {
      "systemprompt.md": "<!-- a note -->You keep {{ domain_focus }}.\n",
      "guardrails.md": "- Check totals.\n",
      "LongTermMEMORY.md": "<!-- only a comment -->\n",
      "tool_descriptions/tool_guidance.md": "Prefer python for sheets.\n",
      "skills/zeta/SKILL.md": "---\nname: zeta\ndescription: last skill\n---\nBody.\n",
      "skills/alpha/SKILL.md": "---\nname: alpha\ndescription: first skill\n---\nBody.\n",
      "sub_agents/checker/AGENT.md":
        "---\ndescription: rereads outputs\nmode: subagent\n---\nCheck.\n",
      "scripts/sum.py": '"""Sums a column."""\n',
      "plugin/gate.ts": "export default {}\n",
    };
    const t = composeContainerPrompt(tree, ctx);
    const parts = t.split("\n\n---\n\n");
    expect(parts[0]).toBe(
      "You keep books.\n\n# Operating Guardrails\n\n- Check totals.\n\n# Tool Guidance\n\nPrefer python for sheets.",
    );
    expect(parts[1]).toContain("# AVAILABLE SKILLS");
    expect(parts[1]?.indexOf("`alpha`: first skill")).toBeLessThan(
      parts[1]?.indexOf("`zeta`") ?? 0,
    );
    expect(parts[2]).toContain("`checker`: rereads outputs");
    expect(parts[3]).toContain("~/harness_scripts/: sum.py");
    expect(parts[4]).toBe(`${INSTRUCTION_SLOT}\n`);
    expect(t).not.toContain("<!--");
    const install = new OpencodeSubstrate().containerInstall(tree, ctx);
    expect(Object.keys(install.files).sort()).toEqual([
      "plugin/gate.ts",
      "scripts/sum.py",
      "skills/alpha/SKILL.md",
      "skills/zeta/SKILL.md",
      "sub_agents/checker/AGENT.md",
    ]);
  });

  test("the stock baseline composes to the instruction alone", () => {
    const oc = new OpencodeSubstrate();
    expect(oc.containerInstall(oc.baselineTree(), {}).promptTemplate).toBe(`${INSTRUCTION_SLOT}\n`);
  });
});

describe("Codex in a container (codex_root)", () => {
  test("only the workspace-root entries (Codex itself comes from the agent's split-mount image)", () => {
    const cx = new CodexSubstrate();
    const install = cx.containerInstall({
      "AGENTS.md": "Do it.\n",
      ".agents/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n",
      "scripts/x.py": "print(1)\n",
      ".codex/hooks.json": "{}\n",
      "sub_agents/r/AGENT.md": "never installed\n",
    });
    expect(Object.keys(install.files).sort()).toEqual([
      ".agents/skills/s/SKILL.md",
      ".codex/hooks.json",
      "AGENTS.md",
      "scripts/x.py",
    ]);
    expect(install.promptTemplate).toBeNull();
  });
});
