// The one small editable surface the core tests use (two always-on files, skills, a plugin dir),
// with what a test varies (its name, its stubs) as overrides. Built through the real schema.

import { SurfaceSpec } from "../../src/core/harness/surface.ts";

const BASE = {
  name: "testsurface",
  alwaysOn: ["systemprompt.md", "guardrails.md"],
  alwaysOnMax: 10_000,
  alwaysOnCapReason: "kept short in tests",
  skillDir: "skills",
  skillNameRule: "must_match",
  triggerHint: "name {name} in guardrails.md",
  autotriggerFile: "guardrails.md",
  triggerLine: "- When {desc}, load `{name}`.",
  subagentRequiresMode: true,
  pluginDir: "plugin",
  hooksFile: null,
  stubs: [] as { path: string; body: string }[],
};

/** The test surface, with `overrides` applied (e.g. another name, or a stub file). */
export function testSurface(overrides: Partial<typeof BASE> = {}): SurfaceSpec {
  return SurfaceSpec.parse({ ...BASE, ...overrides });
}
