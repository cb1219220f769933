// `harness2 harness export` (issue 16 §11): the adopted harness of a domain's latest task, as
// the executor installs it, with the domain's lessons and its provenance; --diff against the
// starting harness; and every refusal one line with its exit code, nothing written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-export-"));
const OC = join(ROOT, "oc");
const CX = join(ROOT, "cx");
beforeAll(async () => {
  for (const [runs, sub] of [
    [OC, "oc"],
    [CX, "cx"],
  ] as const) {
    const r = await runCli(["demo", "--no-tui", "--k", "1", "--substrate", sub, "--runs", runs]);
    if (r.code !== 0) throw new Error(`demo --substrate ${sub} failed: ${r.stderr}`);
  }
}, 120_000);
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const exportTo = (runs: string, dir: string, ...args: string[]) =>
  runCli(["harness", "export", dir, "--domain", "accounting", ...args, "--runs", runs]);

describe("harness export", () => {
  test("OpenCode: the installed configuration of the latest task, lessons and provenance", async () => {
    const dir = join(ROOT, "oc-out");
    const r = await exportTo(OC, dir, "--model", "anthropic/claude-sonnet-4-5");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Exported the parallel harness of ledger-2 (accounting, sweep swp_");
    expect(readdirSync(dir).sort()).toEqual([
      "AGENTS.md",
      "harness2-export.json",
      "harness2-lessons.md",
      "opencode.json",
      "scripts",
    ]);
    expect(readFileSync(join(dir, "AGENTS.md"), "utf8")).toContain("scripts/summarize.py");
    expect(readFileSync(join(dir, "scripts", "summarize.py"), "utf8")).not.toContain(
      "if amount > 0",
    );
    expect(JSON.parse(readFileSync(join(dir, "opencode.json"), "utf8")).model).toBe(
      "anthropic/claude-sonnet-4-5",
    );
    const lessons = readFileSync(join(dir, "harness2-lessons.md"), "utf8");
    expect(lessons).toContain("# ledger-1");
    expect(lessons).toContain("# ledger-2");
    expect(lessons).toContain("a ledger holds refunds or fees as negative amounts");
    const made = JSON.parse(readFileSync(join(dir, "harness2-export.json"), "utf8"));
    expect(made).toMatchObject({
      domain: "accounting",
      task: "ledger-2",
      mode: "agg",
      substrate: "oc",
    });
  });

  test("drops into any project: no path of this machine, and the model only when asked", async () => {
    const dir = join(ROOT, "oc-plain");
    const r = await runCli(["harness", "export", dir, "--domain", "accounting", "--runs", OC], {
      env: { HARNESS2_SOLVER_MODEL: "scripted/solver" },
    });
    expect(r.code).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, "opencode.json"), "utf8"));
    expect(config).toEqual({
      $schema: "https://opencode.ai/config.json",
      agent: { build: { steps: 200 } },
    });
    for (const f of ["AGENTS.md", "opencode.json", "scripts/summarize.py"]) {
      expect(readFileSync(join(dir, f), "utf8")).not.toContain(ROOT);
    }
  });

  test("--into merges into a project: a marked AGENTS.md section, its own files kept, never clobbered", async () => {
    const project = join(ROOT, "project");
    mkdirSync(project);
    writeFileSync(join(project, "AGENTS.md"), "# My project\n\nMy own rules.\n");
    writeFileSync(join(project, "opencode.json"), '{"model":"mine/model"}\n');
    const into = () =>
      runCli(["harness", "export", "--into", project, "--domain", "accounting", "--runs", OC]);
    const first = await into();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("kept your opencode.json");
    const agents = readFileSync(join(project, "AGENTS.md"), "utf8");
    expect(
      agents.startsWith("# My project\n\nMy own rules.\n\n<!-- harness2: adopted harness (begin"),
    ).toBe(true);
    expect(agents).toContain("scripts/summarize.py");
    expect(readFileSync(join(project, "opencode.json"), "utf8")).toBe('{"model":"mine/model"}\n');
    expect(readdirSync(join(project, ".harness2")).sort()).toEqual(["export.json", "lessons.md"]);
    expect(readFileSync(join(project, "scripts", "summarize.py"), "utf8")).not.toContain(
      "if amount > 0",
    );
    // Again: the section is replaced, not repeated; identical files are left as they are.
    expect((await into()).code).toBe(0);
    const again = readFileSync(join(project, "AGENTS.md"), "utf8");
    expect(again.match(/adopted harness \(begin/g)).toHaveLength(1);
    expect(again.startsWith("# My project")).toBe(true);
    // A file of the project's that differs stops the merge before anything is written.
    writeFileSync(join(project, "scripts", "summarize.py"), "print('mine')\n");
    writeFileSync(join(project, "AGENTS.md"), "# Changed\n");
    const refused = await into();
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("scripts/summarize.py");
    expect(readFileSync(join(project, "AGENTS.md"), "utf8")).toBe("# Changed\n");
    // Codex: the same into another project.
    const cxProject = join(ROOT, "cx-project");
    mkdirSync(cxProject);
    const cx = await runCli([
      "harness",
      "export",
      "--into",
      cxProject,
      "--domain",
      "accounting",
      "--runs",
      CX,
    ]);
    expect(cx.code).toBe(0);
    expect(readFileSync(join(cxProject, "AGENTS.md"), "utf8")).toContain(
      "<!-- harness2: adopted harness (end) -->",
    );
    expect(existsSync(join(cxProject, "opencode.json"))).toBe(false);
  });

  test("--into refusals: a missing project, or both a DIR and --into, is a bad command line", async () => {
    const missing = await runCli([
      "harness",
      "export",
      "--into",
      join(ROOT, "nope"),
      "--domain",
      "accounting",
      "--runs",
      OC,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("is not an existing folder");
    const both = await runCli([
      "harness",
      "export",
      join(ROOT, "d"),
      "--into",
      ROOT,
      "--domain",
      "accounting",
      "--runs",
      OC,
    ]);
    expect(both.code).toBe(2);
    const neither = await runCli(["harness", "export", "--domain", "accounting", "--runs", OC]);
    expect(neither.code).toBe(2);
    expect(existsSync(join(ROOT, "nope"))).toBe(false);
  });

  test("--task and --mode pick another entry; --diff shows the fix against the starting harness", async () => {
    const r = await exportTo(
      OC,
      join(ROOT, "oc-seq"),
      "--mode",
      "sequential",
      "--task",
      "ledger-1",
      "--model",
      "a/b",
      "--diff",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Exported the sequential harness of ledger-1");
    expect(r.stdout).toContain("--- base/scripts/summarize.py");
    expect(r.stdout).toContain("-            if amount > 0:");
    expect(r.stdout).toContain("+            total += amount");
  });

  test("--json says where it went, which harness and which files, one object (with the diff)", async () => {
    const dir = join(ROOT, "oc-json");
    const r = await exportTo(
      OC,
      dir,
      "--mode",
      "sequential",
      "--task",
      "ledger-1",
      "--json",
      "--diff",
    );
    expect(r.code).toBe(0);
    const got = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(got).toMatchObject({
      domain: "accounting",
      mode: "sequential",
      task: "ledger-1",
      substrate: "oc",
      dir,
    });
    expect(got.files).toContain("harness2-export.json");
    expect(String(got.diff)).toContain("--- base/scripts/summarize.py");
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    const project = join(ROOT, "json-project");
    mkdirSync(project);
    const merged = await runCli([
      "harness",
      "export",
      "--into",
      project,
      "--domain",
      "accounting",
      "--json",
      "--runs",
      OC,
    ]);
    expect(merged.code).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({ into: project, kept: [] });
  });

  test("Codex: AGENTS.md and scripts at the root, no opencode.json, no model needed", async () => {
    const dir = join(ROOT, "cx-out");
    const r = await exportTo(CX, dir);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, "AGENTS.md"))).toBe(true);
    expect(existsSync(join(dir, "scripts", "summarize.py"))).toBe(true);
    expect(existsSync(join(dir, "opencode.json"))).toBe(false);
  });

  test("refusals: one line each, the right exit code, nothing written", async () => {
    const full = join(ROOT, "full");
    mkdirSync(full);
    writeFileSync(join(full, "mine.txt"), "keep");
    const cases: [string[], number, string][] = [
      [
        ["harness", "export", full, "--domain", "accounting", "--model", "a/b", "--runs", OC],
        2,
        "is not a new or empty directory",
      ],
      [["harness", "export", join(ROOT, "x1"), "--runs", OC], 2, "--domain D is required"],
      [
        [
          "harness",
          "export",
          join(ROOT, "x2"),
          "--domain",
          "accounting",
          "--runs",
          OC,
          "--model",
          "nomodel",
        ],
        2,
        "pass --model provider/model",
      ],
      [
        ["harness", "export", join(ROOT, "x3"), "--domain", "law", "--runs", OC],
        1,
        "(domains with an adopted harness: accounting)",
      ],
      [
        ["harness", "import", join(ROOT, "x4"), "--domain", "accounting", "--runs", OC],
        2,
        "unknown action 'import'",
      ],
      [
        [
          "harness",
          "export",
          join(ROOT, "x5"),
          "--domain",
          "accounting",
          "--mode",
          "zigzag",
          "--runs",
          OC,
        ],
        2,
        "zigzag",
      ],
    ];
    for (const [args, code, text] of cases) {
      const r = await runCli(args, { env: { HARNESS2_SOLVER_MODEL: "" } });
      expect(r.code).toBe(code);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(text);
    }
    expect(readdirSync(full)).toEqual(["mine.txt"]);
    for (const x of ["x1", "x2", "x3", "x4", "x5"]) expect(existsSync(join(ROOT, x))).toBe(false);
  });

  test("links are never followed: a linked harness/ is refused, a linked EXPERIENCE.md is not read", async () => {
    const runs = join(ROOT, "links");
    const demo = await runCli([
      "demo",
      "--no-tui",
      "--k",
      "1",
      "--substrate",
      "cx",
      "--runs",
      runs,
    ]);
    expect(demo.code).toBe(0);
    const harnesses = join(runs, "demo", "library", "cx-k1", "agg", "accounting", "harnesses");
    const secretDir = join(ROOT, "secret-harness");
    mkdirSync(secretDir, { recursive: true });
    writeFileSync(join(secretDir, "AGENTS.md"), "SECRET-HARNESS-CONTENT\n");
    const secretFile = join(ROOT, "secret.txt");
    writeFileSync(secretFile, "SECRET-LESSON-CONTENT\n");

    // The latest entry's harness/ replaced by a link: refused in one line, nothing written.
    const own = join(harnesses, "ledger-2", "harness");
    renameSync(own, `${own}.real`);
    symlinkSync(secretDir, own);
    const refused = await exportTo(runs, join(ROOT, "links-out1"));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("is a symbolic link, not the library's own folder");
    expect(existsSync(join(ROOT, "links-out1"))).toBe(false);
    rmSync(own);
    renameSync(`${own}.real`, own);

    // An earlier entry's EXPERIENCE.md replaced by a link: the export goes on without it.
    const lesson = join(harnesses, "ledger-1", "EXPERIENCE.md");
    rmSync(lesson);
    symlinkSync(secretFile, lesson);
    const dir = join(ROOT, "links-out2");
    const r = await exportTo(runs, dir);
    expect(r.code).toBe(0);
    const lessons = readFileSync(join(dir, "harness2-lessons.md"), "utf8");
    expect(lessons).not.toContain("SECRET-LESSON-CONTENT");
    expect(lessons).toContain("# ledger-2");
    for (const f of ["AGENTS.md", "harness2-lessons.md", "harness2-export.json"]) {
      expect(readFileSync(join(dir, f), "utf8")).not.toContain("SECRET-HARNESS-CONTENT");
    }
  }, 120_000);
});
