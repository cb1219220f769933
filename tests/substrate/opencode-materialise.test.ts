// Rendering a harness tree into an OpenCode workspace (install mode workspace_agents_md).
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeTree } from "../../src/core/harness/tree.ts";
import { treeFingerprint } from "../../src/core/lib/fingerprint.ts";
import { isRunComplete, writeRunMark } from "../../src/core/rollout/runmark.ts";
import {
  composeAgentsMd,
  docstringSummary,
  ensureSubagentMode,
  MATERIALISE_VERSION,
  MaterialiseError,
  materialise,
  rolloutFingerprint,
  SECTIONS,
} from "../../src/substrate/opencode/materialise.ts";
import { OPENCODE_BASELINE_TREE, OPENCODE_SURFACE } from "../../src/substrate/opencode/surface.ts";

/** Every temporary directory of this file lives here and is removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "h2-mat-test-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const tmp = (p: string) => mkdtempSync(join(SCRATCH, `h2-mat-${p}-`));

const TREE = {
  "systemprompt.md":
    "<!-- role -->You work in {{ working_directory }} on {{ domain_focus }} tasks ({{ date }}). Keep {{ other }}.\n",
  "guardrails.md":
    "- Check output/ before finishing.\n- When a table needs cleaning, load the `csv-clean` skill.\n",
  "LongTermMEMORY.md": "Amounts use two decimals.\n",
  "tool_descriptions/tool_guidance.md": "<!-- only a comment -->\n",
  "skills/csv-clean/SKILL.md":
    "---\nname: csv-clean\ndescription: a table needs cleaning\n---\nRun python3 skills/csv-clean/scripts/clean.py\n",
  "skills/csv-clean/scripts/clean.py": "print('clean')\n",
  "sub_agents/checker/AGENT.md": "---\ndescription: checks numbers\nmode: primary\n---\nCheck.\n",
  "sub_agents/plain/AGENT.md": "No frontmatter here.\n",
  "scripts/totals.py": '#!/usr/bin/env python3\n"""Sum the amount column of a CSV.\n\nMore."""\n',
  "scripts/_shared.py": "X = 1\n",
  "scripts/nodoc.py": "print(1)\n",
  "plugin/verify.ts": "export const V = async () => ({});\n",
};

describe("composeAgentsMd", () => {
  const ctx = {
    envDescription: "env",
    domainFocus: "bookkeeping",
    date: "2026-11-30",
    workingDirectory: "/ws",
  };

  test("one documented order: system, guardrails, memory, tool guidance, helper scripts", () => {
    expect(SECTIONS.map((s) => s.path)).toEqual(OPENCODE_SURFACE.alwaysOn);
    const md = composeAgentsMd(
      { ...TREE, "tool_descriptions/tool_guidance.md": "Prefer read over cat.\n" },
      ctx,
    );
    expect(md).toBe(
      [
        "You work in /ws on bookkeeping tasks (2026-11-30). Keep {{ other }}.",
        "",
        "# Operating Guardrails",
        "",
        "- Check output/ before finishing.\n- When a table needs cleaning, load the `csv-clean` skill.",
        "",
        "# Long-Term Memory",
        "",
        "Amounts use two decimals.",
        "",
        "# Tool Guidance",
        "",
        "Prefer read over cat.",
        "",
        "# Helper scripts (run via Bash)",
        "",
        "- `python3 scripts/nodoc.py` — helper script",
        "- `python3 scripts/totals.py` — Sum the amount column of a CSV.",
        "",
      ].join("\n"),
    );
  });

  test("a comment-only harness (the baseline) renders nothing", () => {
    expect(composeAgentsMd({ ...OPENCODE_BASELINE_TREE }, ctx)).toBe("");
  });
});

describe("helpers", () => {
  test("docstringSummary reads the first docstring line after a shebang and comments", () => {
    expect(docstringSummary('#!/usr/bin/env python3\n# c\n\n"""  First line.\nSecond."""\n')).toBe(
      "First line.",
    );
    expect(docstringSummary("r'''\n\nRaw doc'''")).toBe("Raw doc");
    expect(docstringSummary("import os\n'''late'''")).toBeNull();
    expect(docstringSummary(`"""${"a".repeat(200)}"""`)).toBe("a".repeat(120));
  });

  test("ensureSubagentMode sets, inserts or adds a frontmatter with mode: subagent", () => {
    expect(ensureSubagentMode("---\ndescription: d\nmode: primary\n---\nBody\n", "x")).toBe(
      "---\ndescription: d\nmode: subagent\n---\nBody\n",
    );
    expect(ensureSubagentMode("---\ndescription: d\n---\nBody\n", "x")).toBe(
      "---\nmode: subagent\ndescription: d\n---\nBody\n",
    );
    expect(ensureSubagentMode("Body\n", "x")).toBe(
      "---\ndescription: The x sub-agent.\nmode: subagent\n---\n\nBody\n",
    );
  });
});

describe("materialise", () => {
  test("places every component where OpenCode and the relative script paths find it", async () => {
    const src = tmp("src");
    writeTree(OPENCODE_SURFACE, TREE, src);
    writeFileSync(join(src, "harness.yaml"), "off-surface\n");
    const dest = join(tmp("dest"), "ws");
    const got = await materialise(src, dest, {
      model: "local/mock-model",
      steps: 42,
      template: { domainFocus: "bookkeeping", date: "2026-11-30" },
    });
    expect(got.files).toEqual([
      ".opencode/agent/checker.md",
      ".opencode/agent/plain.md",
      ".opencode/plugin/verify.ts",
      ".opencode/skills/csv-clean/SKILL.md",
      ".opencode/skills/csv-clean/scripts/clean.py",
      "AGENTS.md",
      "opencode.json",
      "scripts/_shared.py",
      "scripts/nodoc.py",
      "scripts/totals.py",
      "skills/csv-clean/scripts/clean.py",
    ]);
    const read = (rel: string) => readFileSync(join(dest, rel), "utf8");
    expect(read("AGENTS.md")).toStartWith(`You work in ${dest} on bookkeeping tasks (2026-11-30).`);
    expect(read("skills/csv-clean/scripts/clean.py")).toBe("print('clean')\n");
    expect(read(".opencode/skills/csv-clean/scripts/clean.py")).toBe("print('clean')\n");
    expect(read(".opencode/agent/checker.md")).toContain("mode: subagent");
    expect(read(".opencode/agent/plain.md")).toStartWith("---\ndescription: The plain sub-agent.");
    expect(read("scripts/_shared.py")).toBe("X = 1\n");
    expect(existsSync(join(dest, "harness.yaml"))).toBe(false);
    expect(existsSync(join(dest, "scripts/README.md"))).toBe(false);

    const config = JSON.parse(read("opencode.json"));
    expect(config).toEqual({
      $schema: "https://opencode.ai/config.json",
      model: "local/mock-model",
      autoupdate: false,
      share: "disabled",
      snapshot: false,
      agent: { build: { steps: 42 } },
      permission: {
        external_directory: expect.objectContaining({
          "*": "deny",
          [dest]: "allow",
          [`${dest}/**`]: "allow",
        }),
      },
    });
    // The fingerprint is of the SOURCE tree (stubs and off-surface files included) AND of the
    // materialiser version that rendered it (docs/differences.md H12).
    expect(got.fingerprint).toBe(await rolloutFingerprint(src));
    expect(got.fingerprint).toBe(`m${MATERIALISE_VERSION}-${await treeFingerprint(src)}`);
    expect(got.agentsMd).toBe(true);
  });

  test("the baseline renders no AGENTS.md; a non-tree or a non-empty destination is refused", async () => {
    const base = tmp("base");
    writeTree(OPENCODE_SURFACE, { ...OPENCODE_BASELINE_TREE }, base);
    const dest = join(tmp("bdest"), "ws");
    const got = await materialise(base, dest, { model: "p/m", steps: 1 });
    expect(got.agentsMd).toBe(false);
    expect(got.files).toEqual(["opencode.json"]);

    const empty = tmp("empty");
    await expect(
      materialise(empty, join(tmp("d"), "ws"), { model: "p/m", steps: 1 }),
    ).rejects.toThrow(MaterialiseError);
    const busy = tmp("busy");
    mkdirSync(join(busy, "x"));
    await expect(materialise(base, busy, { model: "p/m", steps: 1 })).rejects.toThrow(
      /is not empty/,
    );
  });
});

describe("rollout fingerprint (docs/differences.md H12)", () => {
  test("a changed materialise version makes a finished run incomplete; the same one reuses it", async () => {
    const src = tmp("fp-src");
    writeTree(
      OPENCODE_SURFACE,
      { ...OPENCODE_BASELINE_TREE, "guardrails.md": "- Be brief.\n" },
      src,
    );
    const runDir = tmp("fp-run");
    await writeRunMark(runDir, { runId: "r", harnessFingerprint: await rolloutFingerprint(src) });

    expect(await isRunComplete(runDir, await rolloutFingerprint(src))).toBe(true);
    expect(await rolloutFingerprint(src, MATERIALISE_VERSION)).toBe(await rolloutFingerprint(src));
    const bumped = await rolloutFingerprint(src, MATERIALISE_VERSION + 1);
    expect(bumped).not.toBe(await rolloutFingerprint(src));
    expect(await isRunComplete(runDir, bumped)).toBe(false);
    // A mark keyed on the source tree alone (what the original recorded) is not adopted either.
    expect(await isRunComplete(runDir, await treeFingerprint(src))).toBe(false);
  });

  test("the source tree still counts: an edited harness is a different fingerprint", async () => {
    const src = tmp("fp-edit");
    writeTree(OPENCODE_SURFACE, { ...OPENCODE_BASELINE_TREE }, src);
    const before = await rolloutFingerprint(src);
    writeFileSync(join(src, "guardrails.md"), "- Check output/.\n");
    expect(await rolloutFingerprint(src)).not.toBe(before);
  });
});

describe("install mode workspace_config: the tool gate and the runtime's additions", () => {
  test("the gate denies web and sub-agents in opencode.json, and skill only without skills", async () => {
    const src = tmp("gate-src");
    writeTree(OPENCODE_SURFACE, TREE, src);
    const gated = join(tmp("gate"), "ws");
    await materialise(src, gated, { model: "p/m", steps: 9, toolGate: true });
    const perm = JSON.parse(readFileSync(join(gated, "opencode.json"), "utf8")).permission;
    expect(perm).toMatchObject({
      webfetch: "deny",
      websearch: "deny",
      codesearch: "deny",
      task: "deny",
      skill: "allow",
    });
    expect(perm.external_directory["*"]).toBe("deny");
    const plain = join(tmp("nogate"), "ws");
    await materialise(src, plain, { model: "p/m", steps: 9 });
    const open = JSON.parse(readFileSync(join(plain, "opencode.json"), "utf8")).permission;
    expect(Object.keys(open)).toEqual(["external_directory"]);
    const bare = tmp("bare-src");
    writeTree(OPENCODE_SURFACE, { ...OPENCODE_BASELINE_TREE }, bare);
    const noSkills = join(tmp("gate2"), "ws");
    await materialise(bare, noSkills, { model: "p/m", steps: 9, toolGate: true });
    expect(JSON.parse(readFileSync(join(noSkills, "opencode.json"), "utf8")).permission.skill).toBe(
      "deny",
    );
  });

  test("prepareWorkspace writes runtime files over the harness's and appends the note to AGENTS.md", async () => {
    const { prepareWorkspace } = await import("../../src/substrate/rollout-workspace.ts");
    const src = tmp("rt-src");
    writeTree(OPENCODE_SURFACE, TREE, src);
    const runDir = join(tmp("rt"), "run");
    const { workspace } = await prepareWorkspace(
      {
        runId: "r",
        runDir,
        inputsDir: null,
        install: {
          runtimeFiles: { "scripts/totals.py": "# the runtime's\n" },
          agentsNote: "# Note\n\nLast.",
        },
      },
      (ws) => materialise(src, ws, { model: "p/m", steps: 9 }),
      process.env,
      (reason) => new Error(reason),
    );
    expect(readFileSync(join(workspace, "scripts/totals.py"), "utf8")).toBe("# the runtime's\n");
    const agents = readFileSync(join(workspace, "AGENTS.md"), "utf8");
    expect(agents.startsWith("You work in")).toBe(true);
    expect(agents.endsWith("\n\n# Note\n\nLast.\n")).toBe(true);
    // a harness that renders no AGENTS.md gets one holding only the note
    const bare = tmp("rt-bare");
    writeTree(OPENCODE_SURFACE, { ...OPENCODE_BASELINE_TREE }, bare);
    const run2 = join(tmp("rt2"), "run");
    const made = await prepareWorkspace(
      { runId: "r", runDir: run2, inputsDir: null, install: { agentsNote: "Only this." } },
      (ws) => materialise(bare, ws, { model: "p/m", steps: 9 }),
      process.env,
      (reason) => new Error(reason),
    );
    expect(readFileSync(join(made.workspace, "AGENTS.md"), "utf8")).toBe("Only this.\n");
  });
});
