// The `tasks` on-disk format: the example folder parses; each malformed thing is one problem with
// its path and fix; strict mode refuses; prompts.toml and task.toml are read exactly.
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  formatProblem,
  readTaskFolder,
  TasksRootError,
} from "../../src/benchmarks/tasks/task-folder.ts";
import {
  composeTaskPrompt,
  DEFAULT_TASKS_PROMPTS,
  parsePromptsToml,
  promptsForDomain,
} from "../../src/benchmarks/tasks/tasks-prompts.ts";
import { OPENCODE_SURFACE } from "../../src/substrate/opencode/surface.ts";

/** Every temporary directory of this file lives here and is removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "h2-tasks-folder-test-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const EXAMPLE = resolve(import.meta.dir, "../../fixtures/tasks");

function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(SCRATCH, "h2-tasks-"));
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
  }
  return root;
}

describe("the example folder (fixtures/tasks)", () => {
  test("parses without problems into two tasks in two domains", () => {
    const f = readTaskFolder(EXAMPLE, OPENCODE_SURFACE);
    expect(f.problems).toEqual([]);
    expect(f.tasks.map((t) => t.id)).toEqual(["data/csv-total", "writing/haiku"]);
    const haiku = f.tasks[1];
    expect(haiku?.domain).toBe("writing");
    expect(haiku?.timeoutS).toBe(600);
    expect(haiku?.deliverables).toEqual(["haiku.md"]);
    expect(haiku?.inputsDir).toBe(join(EXAMPLE, "writing/haiku/inputs"));
    expect(haiku?.checkPath).toBe(join(EXAMPLE, "writing/haiku/tests/check"));
    expect(f.tasks[0]?.answerKeyFiles).toEqual(["check", "expected.txt"]);
    expect(f.baseHarness).toBeNull();
    expect(f.prompts.prompts.work).toStartWith("Short writing and data chores");
    expect(promptsForDomain(f.prompts, "data").domainGuidance).toBe(
      "Numbers are copied exactly from the inputs; signs and decimal places matter.",
    );
  });
});

describe("malformed tasks", () => {
  test("each problem is one line with the path and the fix; good tasks survive", () => {
    const root = folder({
      "ok/good/task.md": "Do it.",
      "ok/no-md/inputs/a.txt": "a",
      "ok/empty/task.md": "  \n",
      "ok/bad-toml/task.md": "x",
      "ok/bad-toml/task.toml": "timeout = ",
      "ok/typo/task.md": "x",
      "ok/typo/task.toml": "timout = 5\n",
      "ok/reserved/task.md": "x",
      "ok/reserved/inputs/AGENTS.md": "sneaky",
      "ok/nocheck/task.md": "x",
      "ok/nocheck/tests/expected.txt": "1",
      "ok/noexec/task.md": "x",
      "ok/noexec/tests/check": "#!/bin/sh\n",
      "ok/bad name/task.md": "x",
      "emptydomain/README.md": "nothing here",
      "_skipped/t/task.md": "x",
      "README.md": "top-level notes are ignored",
    });
    const f = readTaskFolder(root, OPENCODE_SURFACE);
    expect(f.tasks.map((t) => t.id)).toEqual(["ok/good"]);
    const lines = f.problems.map(formatProblem);
    const p = (rel: string) => join(root, rel);
    expect(lines).toEqual([
      `${p("emptydomain")}: holds no task folders — fix: add <task>/task.md folders to it, or start its name with '_' to skip it`,
      `${p("ok/bad name")}: task folder name is not allowed — fix: rename it using letters, digits, '.', '_' and '-', starting with a letter or digit`,
      expect.stringMatching(
        new RegExp(
          `^${p("ok/bad-toml/task.toml")}: is not valid TOML \\(.+\\) — fix: fix the syntax$`,
        ),
      ),
      `${p("ok/empty/task.md")}: is empty — fix: write the task's instructions`,
      `${p("ok/no-md/task.md")}: is missing — fix: write the task's instructions into task.md`,
      `${p("ok/nocheck/tests/check")}: is missing — fix: add an executable tests/check that prints {"passed": n, "total": m}`,
      `${p("ok/noexec/tests/check")}: is not executable — fix: run chmod +x ${p("ok/noexec/tests/check")}`,
      `${p("ok/reserved/inputs/AGENTS.md")}: has a name the workspace reserves (OpenCode would read it as configuration, or it is where deliverables go) — fix: rename or move it`,
      `${p("ok/typo/task.toml")}: unknown key(s) timout — fix: allowed keys: domain, timeout, deliverables, check_timeout`,
    ]);
    for (const l of lines) expect(l).not.toContain("\n");
  });

  test("an input matching an answer-key path, or named with '..' or a backslash, refuses the folder", () => {
    const root = folder({
      "d/keyed/task.md": "Sum it.",
      "d/keyed/tests/check": "#!/bin/sh\n",
      "d/keyed/tests/expected.txt": "42",
      "d/copied/task.md": "Sum it too.",
      "d/copied/inputs/tests/expected.txt": "42",
      "d/copied/inputs/ok.csv": "a,b",
      "d/escape/task.md": "Escape.",
      "d/escape/inputs/..\\escape.txt": "x",
    });
    chmodSync(join(root, "d/keyed/tests/check"), 0o755);
    const f = readTaskFolder(root, OPENCODE_SURFACE);
    const refusing = f.problems.filter((p) => p.refuses === true);
    expect(refusing.map((p) => p.path)).toEqual([
      join(root, "d/copied/inputs/tests/expected.txt"),
      join(root, "d/escape/inputs/..\\escape.txt"),
    ]);
    expect(refusing[0]?.problem).toContain("matches the answer-key path 'tests/expected.txt'");
    expect(refusing[1]?.problem).toContain("backslash or a '..' segment");
  });

  test("symlinks are reported and never followed; a missing root throws", () => {
    const root = folder({ "d/t/task.md": "x", "d/t/inputs/a.txt": "a" });
    const outside = folder({ "secret.txt": "s" });
    symlinkSync(join(outside, "secret.txt"), join(root, "d/t/inputs/link.txt"));
    symlinkSync(join(root, "d"), join(root, "alias"));
    const f = readTaskFolder(root, OPENCODE_SURFACE);
    expect(f.problems.map((x) => [x.path, x.problem])).toEqual([
      [join(root, "alias"), "is a symlink, which is never followed"],
      [join(root, "d/t/inputs"), "holds symlinks (link.txt), which are never followed"],
    ]);
    expect(() => readTaskFolder(join(root, "nope"), OPENCODE_SURFACE)).toThrow(TasksRootError);
  });

  test("an empty folder is one problem; a harness/ without always-on files is one problem", () => {
    const empty = folder({});
    expect(readTaskFolder(empty, OPENCODE_SURFACE).problems.map((x) => x.problem)).toEqual([
      "holds no tasks",
    ]);
    const root = folder({ "harness/notes.md": "x", "d/t/task.md": "x" });
    const f = readTaskFolder(root, OPENCODE_SURFACE);
    expect(f.tasks.map((t) => t.id)).toEqual(["d/t"]);
    expect(f.problems.map((x) => x.path)).toEqual([join(root, "harness")]);
  });

  test("task.toml sets domain, timeout, deliverables and check_timeout", () => {
    const root = folder({
      "folder/t/task.md": "x",
      "folder/t/task.toml":
        'domain = "finance"\ntimeout = 30\ndeliverables = ["a.md", "sub/b.csv"]\ncheck_timeout = 7\n',
      "folder/u/task.md": "x",
      "folder/u/task.toml": 'deliverables = ["../escape.md"]\n',
    });
    const f = readTaskFolder(root, OPENCODE_SURFACE);
    expect(f.tasks).toHaveLength(1);
    expect(f.tasks[0]).toMatchObject({
      domain: "finance",
      timeoutS: 30,
      deliverables: ["a.md", "sub/b.csv"],
      checkTimeoutS: 7,
    });
    expect(f.problems.map(formatProblem)).toEqual([
      `${join(root, "folder/u/task.toml")}: deliverables[0]: "../escape.md" is not a relative file path — fix: each deliverables entry must be a file path relative to output/, without .. or a leading /, e.g. "report.md" or "tables/summary.csv"`,
    ]);
  });

  test("a bad task.toml value names its key and gets that key's fix, not the allowed-keys list", () => {
    const root = folder({
      "d/neg/task.md": "x",
      "d/neg/task.toml": "timeout = -5\n",
      "d/frac/task.md": "x",
      "d/frac/task.toml": "check_timeout = 2.5\n",
      "d/str/task.md": "x",
      "d/str/task.toml": 'deliverables = "x.md"\n',
      "d/evil/task.md": "x",
      "d/evil/task.toml": 'domain = "../evil"\n',
      "d/two/task.md": "x",
      "d/two/task.toml": 'timeout = "600"\ncolour = "red"\n',
    });
    const f = readTaskFolder(root, OPENCODE_SURFACE);
    expect(f.tasks).toEqual([]);
    const p = (rel: string) => join(root, rel, "task.toml");
    expect(f.problems.map(formatProblem)).toEqual([
      `${p("d/evil")}: domain: "../evil" is not a plain folder name — fix: domain must be a single folder name without / or .. (letters, digits, '.', '_' and '-', starting with a letter or digit), e.g. domain = "finance"`,
      `${p("d/frac")}: check_timeout: expected a whole number, got the number 2.5 — fix: check_timeout must be a whole number of seconds ≥ 1, e.g. check_timeout = 60`,
      `${p("d/neg")}: timeout: -5 is less than 1 second — fix: timeout must be a whole number of seconds ≥ 1, e.g. timeout = 600`,
      `${p("d/str")}: deliverables: expected a list, got a string ("x.md") — fix: deliverables must be a list of file names, e.g. deliverables = ["report.md"]`,
      `${p("d/two")}: timeout: expected a number, got a string ("600") — fix: timeout must be a whole number of seconds ≥ 1, e.g. timeout = 600`,
      `${p("d/two")}: unknown key(s) colour — fix: allowed keys: domain, timeout, deliverables, check_timeout`,
    ]);
    for (const line of f.problems.map(formatProblem)) {
      expect(line).not.toContain("\n");
      expect(line).not.toContain("Invalid input");
    }
  });
});

describe("prompts", () => {
  test("defaults describe the work without measurement words", () => {
    expect(parsePromptsToml(null).file.prompts).toBe(DEFAULT_TASKS_PROMPTS);
    expect(DEFAULT_TASKS_PROMPTS.work).toContain("output/");
  });

  test("prompts.toml replaces fields; forbidden words and unknown keys are problems", () => {
    const ok = parsePromptsToml('work = "Tax forms."\nselection_lead = "Prefer complete forms."\n');
    expect(ok.problems).toEqual([]);
    expect(ok.file.prompts.work).toBe("Tax forms.");
    expect(ok.file.prompts.selectionLead).toBe("Prefer complete forms.");
    expect(ok.file.prompts.invLevers).toBe(DEFAULT_TASKS_PROMPTS.invLevers);

    const scored = parsePromptsToml('work = "Maximise the score."\n');
    expect(scored.problems.map((p) => p.problem)).toEqual([
      expect.stringContaining('work contains the word "score"'),
    ]);
    expect(scored.file.prompts).toBe(DEFAULT_TASKS_PROMPTS);
    const typo = parsePromptsToml('wrk = "x"\n');
    expect(typo.problems[0]?.problem).toBe("unknown key(s) wrk");
    const guidance = parsePromptsToml('[domains.a]\nguidance = "Follow the rubric."\n');
    expect(guidance.problems[0]?.problem).toContain("domains.a.guidance");
  });

  test("a grader-verdict marker in prompts.toml is refused at load, and the problem does not carry it", () => {
    const work = parsePromptsToml(`work = 'Report the "passed_count" of each batch.'\n`);
    expect(work.problems.map((p) => p.problem)).toEqual([
      expect.stringContaining('work holds the grader verdict marker the JSON key "p·assed_count"'),
    ]);
    expect(work.problems[0]?.problem).not.toContain('"passed_count"');
    expect(work.file.prompts).toBe(DEFAULT_TASKS_PROMPTS);
    const guidance = parsePromptsToml(
      "[domains.a]\nguidance = 'Mind the deterministic_eval_summary.'\n",
    );
    expect(guidance.problems[0]?.problem).toContain("domains.a.guidance: domainGuidance holds");
    expect(guidance.file.domainGuidance).toEqual({});
  });

  test("the task prompt is task.md plus one fixed paragraph naming output/ and deliverables", () => {
    expect(
      composeTaskPrompt({
        instructions: "Write a poem.\n",
        deliverables: ["poem.md"],
        hasInputs: true,
      }),
    ).toBe(
      "Write a poem.\n\n---\nSave every file you deliver under `output/` in the working directory. Expected: `output/poem.md`. The task's input files are in the working directory.\n",
    );
    expect(composeTaskPrompt({ instructions: "X", deliverables: [], hasInputs: false })).toBe(
      "X\n\n---\nSave every file you deliver under `output/` in the working directory.\n",
    );
  });
});

test("the example's checks are executable", () => {
  // Guards the committed file modes: a check without +x would be reported as a problem.
  for (const t of readTaskFolder(EXAMPLE, OPENCODE_SURFACE).tasks) {
    expect(t.checkPath).not.toBeNull();
  }
  const copy = mkdtempSync(join(SCRATCH, "h2-tasks-copy-"));
  cpSync(EXAMPLE, copy, { recursive: true });
  chmodSync(join(copy, "writing/haiku/tests/check"), 0o644);
  expect(readTaskFolder(copy, OPENCODE_SURFACE).problems.map((p) => p.problem)).toEqual([
    "is not executable",
  ]);
});

describe("reading task.md", () => {
  test("permission denied is said as such, never as an encoding problem; bad bytes are", async () => {
    const { readInstructions } = await import("../../src/benchmarks/tasks/task-text.ts");
    const denied = () => {
      throw Object.assign(new Error("EACCES: permission denied, open 'task.md'"), {
        code: "EACCES",
      });
    };
    expect(readInstructions("task.md", denied)).toEqual({
      problem: "cannot be read: permission denied",
      fix: "make it readable (chmod u+r task.md)",
    });
    const io = () => {
      throw Object.assign(new Error("EIO: i/o error"), { code: "EIO" });
    };
    expect(readInstructions("task.md", io)).toEqual({
      problem: "cannot be read (EIO)",
      fix: "check the file and its disk",
    });
    expect(readInstructions("task.md", () => new Uint8Array([0xff, 0xfe, 0x41]))).toEqual({
      problem: "is not valid UTF-8 text",
      fix: "save it as UTF-8",
    });
    expect(readInstructions("task.md", () => new TextEncoder().encode("Do it.\n"))).toEqual({
      text: "Do it.\n",
    });
  });
});
