import { describe, expect, test } from "bun:test";
import {
  PythonUnavailableError,
  pythonSyntaxChecker,
} from "../../../src/core/harness/python-check.ts";
import type { SurfaceSpec } from "../../../src/core/harness/tree.ts";
import {
  type Census,
  checkHooks,
  RESERVED_SCRIPTS,
  type Tree,
  TreeValidationError,
  type ValidateOptions,
  validate,
} from "../../../src/core/harness/tree.ts";
import { CODEX_SURFACE } from "../../../src/substrate/codex/surface.ts";
import { OPENCODE_SURFACE } from "../../../src/substrate/opencode/surface.ts";

const OC = OPENCODE_SURFACE;
const CX = CODEX_SURFACE;

/** The problems validate reports for `tree` (empty when it is valid). */
async function problems(
  surface: SurfaceSpec,
  tree: Tree,
  opts: ValidateOptions = {},
): Promise<string[]> {
  try {
    await validate(surface, tree, opts);
    return [];
  } catch (err) {
    if (err instanceof TreeValidationError) return [...err.problems];
    throw err;
  }
}

const skill = (name: string, desc = "a table needs cleaning") =>
  `---\nname: ${name}\ndescription: ${desc}\n---\n# ${name}\n`;

const validOc = (): Tree => ({
  "systemprompt.md": "You are careful.",
  "guardrails.md": "- When a table needs cleaning, load the `csv-clean` skill.\n",
  "skills/csv-clean/SKILL.md": `${skill("csv-clean")}Run \`python3 scripts/clean.py data.csv\`.\n`,
  "skills/csv-clean/scripts/clean.py": "import sys\nprint(sys.argv)\n",
  "scripts/totals.py": "def total(xs):\n    return sum(xs)\n",
  "plugin/guard.ts": "export default {}\n",
  "sub_agents/reviewer/AGENT.md": "---\nmode: subagent\ndescription: reviews drafts\n---\n",
});

const validCx = (): Tree => ({
  "AGENTS.md": "Work carefully. When notes pile up, read .agents/skills/notes/SKILL.md.\n",
  ".agents/skills/notes/SKILL.md": "---\ndescription: notes pile up\n---\nbody\n",
  ".agents/skills/notes/scripts/tidy.py": "x = 1\n",
  ".codex/hooks.json": JSON.stringify({
    hooks: { PostToolUse: [{ matcher: "shell", hooks: [{ type: "command", command: "true" }] }] },
  }),
});

describe("validate: valid trees", () => {
  test("opencode: returns the census with plugins and without hooks", async () => {
    const tree = validOc();
    const census: Census = await validate(OC, tree, { allowSubagents: true });
    expect(census).toEqual({
      always_on_chars: 16 + 2 + 59 + 2 + 0 + 2 + 0,
      n_files: 7,
      skills: 1,
      sub_agents: 1,
      scripts: 1,
      plugins: 1,
    });
  });

  test("codex: returns the census with hooks and without plugins", async () => {
    const census = await validate(CX, validCx());
    expect(census).toEqual({
      always_on_chars: 72,
      n_files: 4,
      skills: 1,
      sub_agents: 0,
      scripts: 0,
      hooks: 1,
    });
    const noHooks = validCx();
    delete noHooks[".codex/hooks.json"];
    expect((await validate(CX, noHooks)).hooks).toBe(0);
  });

  test("an empty opencode tree is valid (6 separator characters)", async () => {
    expect((await validate(OC, {})).always_on_chars).toBe(6);
  });
});

describe("validate: always-on text", () => {
  test("over the cap names the length, the cap and the reason (both surfaces)", async () => {
    const oc = await problems(OC, { "systemprompt.md": "x".repeat(24_000) });
    expect(oc).toEqual([
      `always-on text is 24006 chars, over the cap of 24000: ${OC.alwaysOnCapReason}`,
    ]);
    const cx = await problems(CX, { "AGENTS.md": "y".repeat(8_001) });
    expect(cx).toEqual([
      `always-on text is 8001 chars, over the cap of 8000: ${CX.alwaysOnCapReason}`,
    ]);
    expect(await problems(CX, { "AGENTS.md": "y".repeat(8_000) })).toEqual([]);
  });

  test("the cap can be overridden and counts code points, not UTF-16 units", async () => {
    expect(await problems(CX, { "AGENTS.md": "😀".repeat(10) }, { alwaysOnMax: 10 })).toEqual([]);
    const over = await problems(CX, { "AGENTS.md": "😀".repeat(11) }, { alwaysOnMax: 10 });
    expect(over[0]).toStartWith("always-on text is 11 chars, over the cap of 10");
  });

  test("codex rejects a blank AGENTS.md; opencode does not", async () => {
    expect(await problems(CX, { "AGENTS.md": " \n\t" })).toEqual([
      "AGENTS.md is empty, and it is the only always-on file: without it this harness does not exist",
    ]);
    expect(await problems(CX, {})).toHaveLength(1);
    expect(await problems(OC, { "guardrails.md": "  " })).toEqual([]);
  });

  test("an always-on file that is not UTF-8 is an error", async () => {
    const p = await problems(OC, { "guardrails.md": new Uint8Array([0xff, 0xfe, 0x41]) });
    expect(p).toEqual([
      "guardrails.md must be UTF-8 text (it holds bytes that are not): it is always-on and goes into every turn",
    ]);
  });
});

describe("validate: skills", () => {
  test("no frontmatter, an empty description, or a description only later in the file", async () => {
    const tree: Tree = {
      "guardrails.md": "Use `a`, `b` and `c`.",
      "skills/a/SKILL.md": "# a\ndescription: only prose, no frontmatter\n",
      // docs/differences.md H1: the original let this pass because the regex ran on to the `---`
      // line.
      "skills/b/SKILL.md": "---\nname: b\ndescription:\n---\nbody\n",
      "skills/c/SKILL.md": "---\nname: c\ndescription: '   '\n---\n",
    };
    expect(await problems(OC, tree)).toEqual([
      "skills/a/SKILL.md needs a non-empty `description:` in a `---` frontmatter block at its top (it has no frontmatter block), or the skill is dropped silently at load",
      "skills/a/SKILL.md needs `name: a` in its frontmatter, matching its directory (found no name); a missing or different name drops the skill silently at load",
      "skills/b/SKILL.md needs a non-empty `description:` in a `---` frontmatter block at its top, or the skill is dropped silently at load",
      "skills/c/SKILL.md needs a non-empty `description:` in a `---` frontmatter block at its top, or the skill is dropped silently at load",
    ]);
  });

  test("quoted names and block-scalar descriptions are fine (docs/differences.md H1)", async () => {
    const tree: Tree = {
      "guardrails.md": "Load `report` when writing.",
      "skills/report/SKILL.md": '---\nname: "report"\ndescription: |\n  writing a report\n---\n',
    };
    expect(await problems(OC, tree)).toEqual([]);
  });

  test("must_match (opencode): a different name is an error", async () => {
    const tree: Tree = {
      "guardrails.md": "Load `report`.",
      "skills/report/SKILL.md": skill("reports"),
    };
    expect(await problems(OC, tree)).toEqual([
      "skills/report/SKILL.md needs `name: report` in its frontmatter, matching its directory (found `name: reports`); a missing or different name drops the skill silently at load",
    ]);
  });

  test("overrides_dir (codex): a missing name is fine, a different one is an error", async () => {
    const ok: Tree = {
      "AGENTS.md": "Read .agents/skills/notes/SKILL.md.",
      ".agents/skills/notes/SKILL.md": "---\ndescription: d\n---\n",
    };
    expect(await problems(CX, ok)).toEqual([]);
    const bad: Tree = {
      ...ok,
      ".agents/skills/notes/SKILL.md": "---\nname: memo\ndescription: d\n---\n",
    };
    expect(await problems(CX, bad)).toEqual([
      ".agents/skills/notes/SKILL.md sets `name: memo`, which overrides the directory name `notes`, so trigger lines naming the directory stop matching; drop `name:` or make it `notes`",
    ]);
  });

  test("frontmatter that does not parse is one error, not three", async () => {
    const tree: Tree = {
      "guardrails.md": "Load `x`.",
      "skills/x/SKILL.md": "---\nname: x\ndescription: when: this\n---\n",
    };
    const p = await problems(OC, tree);
    expect(p).toHaveLength(1);
    expect(p[0]).toStartWith(
      "skills/x/SKILL.md has a `---` frontmatter block that does not parse (",
    );
    expect(p[0]).toEndWith("; the skill is dropped silently at load");
  });

  test('an unclosed [ in frontmatter is reported as such, not as a value with ": "', async () => {
    const p = await problems(OC, {
      "guardrails.md": "Load `x`.",
      "skills/x/SKILL.md": "---\nname: [unclosed\ndescription: does x\n---\n",
    });
    expect(p).toHaveLength(1);
    // Bun's own words in between ("YAML Parse error: …") are not ours to pin.
    expect(p[0]).toStartWith(
      "skills/x/SKILL.md has a `---` frontmatter block that does not parse (",
    );
    expect(p[0]).toEndWith(
      ' at line 2 `name: [unclosed`: a value starting with [ or { must be closed, or quoted, e.g. `name: "[unclosed"`); the skill is dropped silently at load',
    );
    expect(p[0]).not.toContain('": "');
  });

  test("an untriggered skill gets the surface's hint; a name inside a word does not count (docs/differences.md H2)", async () => {
    const oc = await problems(OC, {
      "guardrails.md": "Check the database first.",
      "skills/data/SKILL.md": skill("data"),
    });
    expect(oc).toEqual([
      "skill `data` is never named in the always-on text, so nothing loads it (dead weight): add a trigger line naming it to systemprompt.md or guardrails.md, e.g. 'When <situation>, load the `data` skill.'",
    ]);
    const cx = await problems(CX, {
      "AGENTS.md": "Be brief.",
      ".agents/skills/fmt/SKILL.md": "---\ndescription: d\n---\n",
    });
    expect(cx).toEqual([
      "skill `fmt` is never named in the always-on text, so nothing loads it (dead weight): add a trigger line naming it to AGENTS.md, e.g. 'When <situation>, read .agents/skills/fmt/SKILL.md and follow it.'",
    ]);
  });
});

describe("validate: sub-agents", () => {
  const agents: Tree = {
    "sub_agents/critic/AGENT.md": "---\ndescription: critiques\n---\n",
    "sub_agents/scout/AGENT.md": "---\nmode: subagent\ndescription:\n---\n",
  };

  test("not allowed by default: one error listing them, plus each file's own problems", async () => {
    expect(await problems(OC, agents)).toEqual([
      "sub-agents are not available on this deployment; remove sub_agents/critic/, sub_agents/scout/",
      "sub_agents/critic/AGENT.md needs `mode: subagent` in a `---` frontmatter block at its top",
      "sub_agents/scout/AGENT.md needs a non-empty `description:` in a `---` frontmatter block at its top",
    ]);
  });

  test("allowed: opencode requires the mode, codex does not", async () => {
    expect(await problems(OC, agents, { allowSubagents: true })).toEqual([
      "sub_agents/critic/AGENT.md needs `mode: subagent` in a `---` frontmatter block at its top",
      "sub_agents/scout/AGENT.md needs a non-empty `description:` in a `---` frontmatter block at its top",
    ]);
    expect(await problems(CX, { "AGENTS.md": "x", ...agents }, { allowSubagents: true })).toEqual([
      "sub_agents/scout/AGENT.md needs a non-empty `description:` in a `---` frontmatter block at its top",
    ]);
  });
});

describe("validate: script compilation", () => {
  test("top-level scripts are compiled (never run) on both surfaces", async () => {
    const marker = `/tmp/h2-never-run-${process.pid}`;
    const tree: Tree = {
      "scripts/bad.py": "def f(:\n    pass\n",
      "scripts/good.py": `open(${JSON.stringify(marker)}, "w").write("ran")\n`,
      "scripts/late.py": "x = 1\nreturn x\n",
    };
    expect(await problems(OC, tree)).toEqual([
      "scripts/bad.py does not compile: SyntaxError: invalid syntax (line 1)",
      "scripts/late.py does not compile: SyntaxError: 'return' outside function (line 2)",
    ]);
    expect(await Bun.file(marker).exists()).toBe(false);
    expect(await problems(CX, { "AGENTS.md": "x", ...tree })).toHaveLength(2);
  });

  test("skill scripts are compiled on codex only, and only .py files", async () => {
    const oc: Tree = {
      "guardrails.md": "Load `s`.",
      "skills/s/SKILL.md": skill("s"),
      "skills/s/scripts/broken.py": "if:\n",
      "skills/s/scripts/run.sh": "if:\n",
    };
    expect(await problems(OC, oc)).toEqual([]);
    const cx: Tree = {
      "AGENTS.md": "Read .agents/skills/s/SKILL.md.",
      ".agents/skills/s/SKILL.md": "---\ndescription: d\n---\n",
      ".agents/skills/s/scripts/broken.py": "if:\n",
      ".agents/skills/s/scripts/run.sh": "if:\n",
    };
    expect(await problems(CX, cx)).toEqual([
      ".agents/skills/s/scripts/broken.py does not compile: SyntaxError: invalid syntax (line 1)",
    ]);
  });

  test("a script that is not UTF-8 text cannot compile", async () => {
    expect(await problems(OC, { "scripts/x.py": new Uint8Array([0xff, 0x00]) })).toEqual([
      "scripts/x.py does not compile: it is not UTF-8 text",
    ]);
  });

  test("the compile detail is capped at 160 characters", async () => {
    const longName = `n${"x".repeat(300)}`;
    const p = await problems(OC, { "scripts/y.py": `def ${longName}(:\n` });
    expect(p).toHaveLength(1);
    const detail = (p[0] as string).slice("scripts/y.py does not compile: ".length);
    expect(detail.length).toBeLessThanOrEqual(160);
  });

  test("without python3 validate fails saying python3 is required, but only if scripts exist", async () => {
    const missing = pythonSyntaxChecker({ python: "/nonexistent/bin/python3" });
    const run = validate(OC, { "scripts/a.py": "x = 1\n" }, { python: missing });
    await expect(run).rejects.toBeInstanceOf(PythonUnavailableError);
    await expect(run).rejects.toThrow("python3 is required to check");
    expect(await validate(OC, { "guardrails.md": "x" }, { python: missing })).toMatchObject({
      scripts: 0,
    });
  });
});

describe("validate: codex hooks", () => {
  const withHooks = (src: string): Tree => ({ "AGENTS.md": "x", ".codex/hooks.json": src });
  const hf = ".codex/hooks.json";

  test.each([
    ["{not json", `${hf} is not valid JSON: `],
    ["[]", `${hf} needs a top-level {"hooks": {"<Event>": [...]}} object`],
    ['{"hooks": []}', `${hf} needs a top-level`],
    ['{"hooks": {}}', `${hf} needs a top-level`],
    ['{"other": {}}', `${hf} needs a top-level`],
  ])("%p is refused as a whole", async (src, start) => {
    const p = await problems(CX, withHooks(src));
    expect(p).toHaveLength(1);
    expect(p[0]).toStartWith(start);
  });

  test("reports each malformed event, entry and hook, and only those", async () => {
    const src = JSON.stringify({
      hooks: {
        postToolUse: [],
        Stop: { hooks: [] },
        PreToolUse: [
          { matcher: "x" },
          "not an object",
          {
            hooks: [
              { type: "prompt", prompt: "x" },
              { type: "command", command: "  " },
              { type: "command", command: "echo ok" },
              42,
            ],
          },
        ],
        SessionStart: [],
        PostToolUse: [{ hooks: [] }],
      },
    });
    const allowed =
      "PermissionRequest, PostCompact, PostToolUse, PreCompact, PreToolUse, SessionStart, Stop, SubagentStart, SubagentStop, UserPromptSubmit";
    const typeMsg =
      'must have `"type": "command"` (async, prompt and agent hooks are skipped by codex as not supported yet)';
    expect(checkHooks(CX, src)).toEqual([
      `${hf}: unknown hook event \`postToolUse\`; events are PascalCase, one of: ${allowed}`,
      `${hf}: \`Stop\` must map to a LIST of matcher entries`,
      `${hf}: \`PreToolUse[0]\` needs a \`hooks\` list`,
      `${hf}: \`PreToolUse[1]\` needs a \`hooks\` list`,
      `${hf}: \`PreToolUse[2].hooks[0]\` ${typeMsg}`,
      `${hf}: \`PreToolUse[2].hooks[1]\` has an empty \`command\``,
      `${hf}: \`PreToolUse[2].hooks[3]\` ${typeMsg}`,
    ]);
    expect(await problems(CX, withHooks(src))).toHaveLength(7);
  });

  test("a hook command must run a script the harness ships", async () => {
    const hooks = (command: string) =>
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } });
    expect(await problems(CX, withHooks(hooks("python3 scripts/check_output.py")))).toEqual([
      `${hf} invokes \`scripts/check_output.py\` but that file is not in the harness`,
    ]);
    const shipped = {
      ...withHooks(hooks("python3 scripts/check_output.py")),
      "scripts/check_output.py": "print(1)\n",
    };
    expect(await problems(CX, shipped)).toEqual([]);
  });

  test("opencode has no hooks file: .codex/hooks.json is simply off its surface", async () => {
    expect(await problems(OC, { ".codex/hooks.json": "{" })).toEqual([
      "`.codex/hooks.json` is not on the editable surface of opencode",
    ]);
  });
});

describe("validate: script references", () => {
  test("missing scripts are reported once per file and reference", async () => {
    const tree: Tree = {
      "guardrails.md":
        "Run python3 scripts/missing.py twice: python3 scripts/missing.py.\nThen python scripts/other.py",
    };
    expect(await problems(OC, tree)).toEqual([
      "guardrails.md invokes `scripts/missing.py` but that file is not in the harness",
      "guardrails.md invokes `scripts/other.py` but that file is not in the harness",
    ]);
  });

  test("reserved scripts (built in and extra) may be invoked without shipping them", async () => {
    expect([...RESERVED_SCRIPTS].sort()).toEqual(["pack.py", "read_doc.py", "unpack.py"]);
    const tree: Tree = {
      "guardrails.md":
        "Use python3 scripts/read_doc.py f, python3 scripts/pack.py, python3 scripts/unpack.py and python3 scripts/lab_tool.py",
    };
    expect(await problems(OC, tree)).toEqual([
      "guardrails.md invokes `scripts/lab_tool.py` but that file is not in the harness",
    ]);
    expect(await problems(OC, tree, { reservedScripts: ["lab_tool.py"] })).toEqual([]);
  });

  test("a SKILL.md's relative reference resolves against its own folder (docs/differences.md H5)", async () => {
    const tree: Tree = {
      "guardrails.md": "Load `s`.",
      "skills/s/SKILL.md": `${skill("s")}python3 scripts/own.py; python3 skills/s/scripts/own.py; python3 scripts/gone.py\n`,
      "skills/s/scripts/own.py": "x = 1\n",
    };
    expect(await problems(OC, tree)).toEqual([
      "skills/s/SKILL.md invokes `scripts/gone.py` but that file is not in the harness",
    ]);
    // The always-on text has no skill folder: the same relative path is top-level there.
    tree["guardrails.md"] = "Load `s`. python3 scripts/own.py";
    expect(await problems(OC, tree)).toEqual([
      "skills/s/SKILL.md invokes `scripts/gone.py` but that file is not in the harness",
      "guardrails.md invokes `scripts/own.py` but that file is not in the harness",
    ]);
  });

  test("`python` inside a word or a longer file name is not a reference (docs/differences.md H5)", async () => {
    const tree: Tree = {
      "guardrails.md":
        "cpython3 scripts/a.py and mypython scripts/b.py; python3 scripts/c.pyc; python3 scripts/d.py.bak",
    };
    expect(await problems(OC, tree)).toEqual([]);
  });

  test("an explicit path to another skill's script must exist", async () => {
    const tree: Tree = {
      "AGENTS.md": "Read .agents/skills/s/SKILL.md. Run python3 .agents/skills/s/scripts/x.py",
      ".agents/skills/s/SKILL.md": "---\ndescription: d\n---\n",
    };
    expect(await problems(CX, tree)).toEqual([
      "AGENTS.md invokes `.agents/skills/s/scripts/x.py` but that file is not in the harness",
    ]);
  });
});

describe("validate: script references from sub-agents and plugins (docs/differences.md H5)", () => {
  const agent = (body: string) => `---\nmode: subagent\ndescription: reviews drafts\n---\n${body}`;

  test("a sub-agent naming a missing script is refused, naming both files", async () => {
    const tree: Tree = {
      "guardrails.md": "Be careful.",
      "sub_agents/reviewer/AGENT.md": agent("Check with python3 scripts/lint_draft.py draft.md\n"),
    };
    const got = await problems(OC, tree, { allowSubagents: true });
    expect(got).toEqual([
      "sub_agents/reviewer/AGENT.md invokes `scripts/lint_draft.py` but that file is not in the harness",
    ]);
    expect(got[0]).not.toContain("\n");
    // Codex carries sub-agent files too (they are refused there, and the reference still is).
    expect(
      await problems(CX, {
        "AGENTS.md": "x",
        "sub_agents/reviewer/AGENT.md": agent("python scripts/gone.py"),
      }),
    ).toContain(
      "sub_agents/reviewer/AGENT.md invokes `scripts/gone.py` but that file is not in the harness",
    );
  });

  test("a sub-agent naming a script the harness ships passes", async () => {
    const tree: Tree = {
      "guardrails.md": "Be careful.",
      "sub_agents/reviewer/AGENT.md": agent("Check with python3 scripts/lint_draft.py draft.md\n"),
      "scripts/lint_draft.py": "print('ok')\n",
    };
    expect(await problems(OC, tree, { allowSubagents: true })).toEqual([]);
  });

  test("a plugin naming a missing script is refused; a shipped or reserved one passes", async () => {
    const plugin = (script: string) =>
      `export default async ({ $ }) => ({ "tool.execute.after": async () => { await $\`python3 ${script}\`; } });\n`;
    expect(
      await problems(OC, {
        "guardrails.md": "x",
        "plugin/after.ts": plugin("scripts/log_step.py"),
      }),
    ).toEqual([
      "plugin/after.ts invokes `scripts/log_step.py` but that file is not in the harness",
    ]);
    expect(
      await problems(OC, {
        "guardrails.md": "x",
        "plugin/after.ts": plugin("scripts/log_step.py"),
        "scripts/log_step.py": "x = 1\n",
      }),
    ).toEqual([]);
    expect(
      await problems(OC, {
        "guardrails.md": "x",
        "plugin/after.ts": plugin("scripts/read_doc.py"),
      }),
    ).toEqual([]);
  });

  test("a sub-agent's relative reference is top-level, not some skill's folder", async () => {
    const tree: Tree = {
      "guardrails.md": "Load `s`.",
      "skills/s/SKILL.md": `${skill("s")}body\n`,
      "skills/s/scripts/own.py": "x = 1\n",
      "sub_agents/reviewer/AGENT.md": agent("python3 scripts/own.py\n"),
    };
    expect(await problems(OC, tree, { allowSubagents: true })).toEqual([
      "sub_agents/reviewer/AGENT.md invokes `scripts/own.py` but that file is not in the harness",
    ]);
  });
});

describe("validate: everything at once", () => {
  test("collects every problem, in check order, joined by ' | '", async () => {
    const tree: Tree = {
      "AGENTS.md": `${"z".repeat(8_000)} python3 scripts/nope.py`,
      ".agents/skills/tidy/SKILL.md": "---\nname: neat\n---\n",
      "sub_agents/helper/AGENT.md": "---\ndescription: helps\n---\n",
      "scripts/broken.py": "while True print(1)\n",
      ".codex/hooks.json": '{"hooks": {"OnStop": []}}',
      "notes.txt": "off the surface",
    };
    let caught: unknown;
    try {
      await validate(CX, tree);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TreeValidationError);
    const expected = [
      "`notes.txt` is not on the editable surface of codex",
      `always-on text is 8024 chars, over the cap of 8000: ${CX.alwaysOnCapReason}`,
      ".agents/skills/tidy/SKILL.md needs a non-empty `description:` in a `---` frontmatter block at its top, or the skill is dropped silently at load",
      ".agents/skills/tidy/SKILL.md sets `name: neat`, which overrides the directory name `tidy`, so trigger lines naming the directory stop matching; drop `name:` or make it `tidy`",
      "skill `tidy` is never named in the always-on text, so nothing loads it (dead weight): add a trigger line naming it to AGENTS.md, e.g. 'When <situation>, read .agents/skills/tidy/SKILL.md and follow it.'",
      "sub-agents are not available on this deployment; remove sub_agents/helper/",
      "scripts/broken.py does not compile: SyntaxError: invalid syntax (line 1)",
      ".codex/hooks.json: unknown hook event `OnStop`; events are PascalCase, one of: PermissionRequest, PostCompact, PostToolUse, PreCompact, PreToolUse, SessionStart, Stop, SubagentStart, SubagentStop, UserPromptSubmit",
      "AGENTS.md invokes `scripts/nope.py` but that file is not in the harness",
    ];
    expect((caught as TreeValidationError).problems).toEqual(expected);
    expect((caught as Error).message).toBe(expected.join(" | "));
  });
});
