import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePython } from "../../src/core/lib/python.ts";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-validate-cli-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

let n = 0;
function harness(files: Record<string, string>): string {
  const dir = join(ROOT, `h${n++}`);
  for (const [rel, text] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

const VALID_OC = {
  "systemprompt.md": "You are careful.",
  "guardrails.md": "- When a table needs cleaning, load the `csv-clean` skill.\n",
  "LongTermMEMORY.md": "",
  "tool_descriptions/tool_guidance.md": "",
  "skills/csv-clean/SKILL.md":
    "---\nname: csv-clean\ndescription: a table needs cleaning\n---\nRun python3 scripts/clean.py\n",
  "skills/csv-clean/scripts/clean.py": "print('ok')\n",
  "scripts/totals.py": "def total(xs):\n    return sum(xs)\n",
  "harness.yaml": "components: []\n",
};

describe("harness2 validate", () => {
  test("a valid tree exits 0 and prints the census, noting ignored files", async () => {
    const dir = harness(VALID_OC);
    const r = await runCli(["validate", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${dir} (opencode surface)`);
    expect(r.stdout).toContain("ignored, off the editable surface: harness.yaml");
    expect(r.stdout).toContain(
      "valid: always-on 81/24000 chars, 7 files, 1 skills, 0 sub-agents, 1 scripts, 0 plugins",
    );
  });

  test("an invalid tree exits 1 and prints each problem on its own line", async () => {
    const dir = harness({
      "AGENTS.md": "Run python3 scripts/gone.py",
      ".agents/skills/notes/SKILL.md": "---\nname: memo\n---\n",
      "scripts/bad.py": "def f(:\n",
    });
    const r = await runCli(["validate", dir, "--surface", "codex"]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toContain("autotrigger would add trigger lines to AGENTS.md for: notes");
    expect(lines).toContain("invalid: 4 problems");
    expect(lines.slice(-4)).toEqual([
      "  .agents/skills/notes/SKILL.md needs a non-empty `description:` in a `---` frontmatter block at its top, or the skill is dropped silently at load",
      "  .agents/skills/notes/SKILL.md sets `name: memo`, which overrides the directory name `notes`, so trigger lines naming the directory stop matching; drop `name:` or make it `notes`",
      "  scripts/bad.py does not compile: SyntaxError: invalid syntax (line 1)",
      "  AGENTS.md invokes `scripts/gone.py` but that file is not in the harness",
    ]);
  });

  test("autotrigger repairs an untriggered skill in memory only", async () => {
    const dir = harness({
      "guardrails.md": "Be brief.\n",
      "skills/plots/SKILL.md": "---\nname: plots\ndescription: a chart is due\n---\n",
    });
    const r = await runCli(["validate", dir, "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      surface: "opencode",
      valid: true,
      problems: [],
      ignored: [],
      autotriggered: ["plots"],
      census: { skills: 1, n_files: 2 },
    });
    expect(readFileSync(join(dir, "guardrails.md"), "utf8")).toBe("Be brief.\n");
  });

  test("--json reports problems and sub-agents follow --allow-subagents", async () => {
    const dir = harness({
      "guardrails.md": "x",
      "sub_agents/critic/AGENT.md": "---\nmode: subagent\ndescription: critiques\n---\n",
    });
    const denied = await runCli(["validate", dir, "--json"]);
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      valid: false,
      census: null,
      problems: ["sub-agents are not available on this deployment; remove sub_agents/critic/"],
    });
    const allowed = await runCli(["validate", dir, "--json", "--allow-subagents"]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).census.sub_agents).toBe(1);
  });

  test("a symlink in the tree is a problem naming it", async () => {
    const dir = harness({ "guardrails.md": "x" });
    symlinkSync("/etc/hostname", join(dir, "systemprompt.md"));
    const r = await runCli(["validate", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("systemprompt.md");
    expect(r.stdout).toContain("symlink");
  });

  test("a directory with nothing on the surface is invalid", async () => {
    const dir = harness({ "README.md": "hello" });
    const r = await runCli(["validate", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("holds no file of the opencode editable surface");
    expect(r.stdout).toContain("ignored, off the editable surface: README.md");
  });

  test("a bad surface name, a missing directory or no DIR exit 2 with one line", async () => {
    const bad = await runCli(["validate", harness({}), "--surface", "claude"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toContain("--surface must be one of opencode, codex, got 'claude'");
    const missing = await runCli(["validate", join(ROOT, "nowhere")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toContain("no harness directory at");
    const none = await runCli(["validate"]);
    expect(none.code).toBe(2);
  });

  test("HARNESS2_PYTHON is the interpreter when python3 is not on PATH", async () => {
    const dir = harness({ ...VALID_OC, "scripts/bad.py": "def f(:\n" });
    const noPython = join(ROOT, "empty-bin");
    mkdirSync(noPython, { recursive: true });
    const without = await runCli(["validate", dir], {
      env: { PATH: noPython, HARNESS2_PYTHON: undefined },
    });
    // No Python is the environment's (exit 4).
    expect(without.code).toBe(4);
    expect(without.stderr).toContain("python3 is required");
    const real = (await resolvePython(process.env)) as string;
    const r = await runCli(["validate", dir], { env: { PATH: noPython, HARNESS2_PYTHON: real } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("scripts/bad.py does not compile: SyntaxError");
  });

  test("is listed in the help", async () => {
    const r = await runCli(["--help"]);
    expect(r.stdout).toContain("validate");
    const h = await runCli(["help", "validate"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("--allow-subagents");
  });
});
