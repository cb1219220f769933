import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  alwaysOnText,
  isAllowed,
  readTree,
  SurfaceSpec,
  validate,
  writeTree,
} from "../../src/core/harness/tree.ts";
import { CODEX_SURFACE } from "../../src/substrate/codex/surface.ts";
import { OPENCODE_BASELINE_TREE, OPENCODE_SURFACE } from "../../src/substrate/opencode/surface.ts";

describe("OPENCODE_SURFACE", () => {
  const s = OPENCODE_SURFACE;
  test("carries the spec's values", () => {
    expect(s.name).toBe("opencode");
    expect(s.alwaysOn).toEqual([
      "systemprompt.md",
      "guardrails.md",
      "LongTermMEMORY.md",
      "tool_descriptions/tool_guidance.md",
    ]);
    expect(s.alwaysOnMax).toBe(24_000);
    expect(s.skillDir).toBe("skills");
    expect(s.skillNameRule).toBe("must_match");
    expect(s.autotriggerFile).toBe("guardrails.md");
    expect(s.triggerLine).toBe("- When {desc}, load the `{name}` skill.\n");
    expect(s.subagentRequiresMode).toBe(true);
    expect(s.pluginDir).toBe("plugin");
    expect(s.hooksFile).toBeNull();
    expect(s.hookEvents).toEqual([]);
    expect(s.compileSkillScripts).toBe(false);
    expect(s.rejectEmptyAlwaysOn).toBe(false);
    expect(s.triggerHint).toContain("systemprompt.md or guardrails.md");
    expect(s.stubs.map((x) => x.path)).toEqual([
      "scripts/README.md",
      "sub_agents/README.md",
      "plugin/README.md",
      "skills/README.md",
    ]);
  });

  test("each stub is one HTML comment line", () => {
    for (const stub of s.stubs) expect(stub.body).toMatch(/^<!--[^\n]*-->\n$/);
  });

  test("the baseline tree is on the surface, comment-only, valid and round-trips", async () => {
    const tree = { ...OPENCODE_BASELINE_TREE };
    expect(Object.keys(tree).sort()).toEqual([...s.alwaysOn].sort());
    for (const [k, v] of Object.entries(tree)) {
      expect(isAllowed(s, k)).toBe(true);
      expect(String(v)).toMatch(/^<!--[\s\S]*-->\n$/);
    }
    expect(alwaysOnText(s, tree).length).toBeLessThan(1_000);
    await validate(s, tree);
    const dir = mkdtempSync(join(tmpdir(), "h2-base-"));
    try {
      writeTree(s, tree, dir);
      expect(readTree(s, dir)).toEqual(tree);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("CODEX_SURFACE", () => {
  const s = CODEX_SURFACE;
  test("carries the spec's values", () => {
    expect(s.name).toBe("codex");
    expect(s.alwaysOn).toEqual(["AGENTS.md"]);
    expect(s.alwaysOnMax).toBe(8_000);
    expect(s.alwaysOnCapReason).toContain("32,768 bytes");
    expect(s.skillDir).toBe(".agents/skills");
    expect(s.skillNameRule).toBe("overrides_dir");
    expect(s.autotriggerFile).toBe("AGENTS.md");
    expect(s.triggerLine).toBe(
      "- When {desc}, read .agents/skills/{name}/SKILL.md and follow it.\n",
    );
    expect(s.subagentRequiresMode).toBe(false);
    expect(s.pluginDir).toBeNull();
    expect(s.hooksFile).toBe(".codex/hooks.json");
    expect([...s.hookEvents].sort()).toEqual([
      "PermissionRequest",
      "PostCompact",
      "PostToolUse",
      "PreCompact",
      "PreToolUse",
      "SessionStart",
      "Stop",
      "SubagentStart",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
    expect(s.compileSkillScripts).toBe(true);
    expect(s.rejectEmptyAlwaysOn).toBe(true);
    expect(s.stubs.map((x) => x.path)).toEqual([
      "scripts/README.md",
      "sub_agents/README.md",
      ".codex/README.md",
      ".agents/skills/README.md",
    ]);
  });

  test("the scripts stub is word for word the OpenCode one", () => {
    const body = (spec: typeof s) => spec.stubs.find((x) => x.path === "scripts/README.md")?.body;
    expect(body(s)).toBe(body(OPENCODE_SURFACE) as string);
  });
});

describe("SurfaceSpec invariants", () => {
  const base = {
    name: "demo",
    alwaysOn: ["AGENTS.md"],
    alwaysOnMax: 100,
    alwaysOnCapReason: "short",
    skillDir: "skills",
    skillNameRule: "must_match",
    triggerHint: "name {name}",
    autotriggerFile: "AGENTS.md",
    triggerLine: "- {desc}: {name}\n",
    subagentRequiresMode: false,
    pluginDir: null,
    hooksFile: null,
  } as const;

  test("a minimal spec parses with the documented defaults", () => {
    const s = SurfaceSpec.parse(base);
    expect(s.hookEvents).toEqual([]);
    expect(s.stubs).toEqual([]);
    expect(s.compileSkillScripts).toBe(false);
    expect(s.rejectEmptyAlwaysOn).toBe(false);
  });

  test.each([
    [{ autotriggerFile: "other.md" }, "autotriggerFile 'other.md' must be one of alwaysOn"],
    [{ triggerLine: "- {desc}\n" }, "triggerLine must contain {name}"],
    [{ skillDir: "../skills" }, "must be a normalised relative path"],
    [{ alwaysOn: ["a.md", "a.md"], autotriggerFile: "a.md" }, "alwaysOn lists a file twice"],
    [{ stubs: [{ path: "AGENTS.md", body: "x" }] }, "stub 'AGENTS.md' is on the editable surface"],
    [{ skillNameRule: "loose" }, "skillNameRule"],
  ])("refuses %p", (patch, message) => {
    const r = SurfaceSpec.safeParse({ ...base, ...patch });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain(message);
  });
});
