// Every problem of a task folder is named, each on its own line (issue 16, "Bad input found"):
// prompts.toml reports all of its problems at once instead of dropping the whole file at the
// first, and `run` lists a folder's problems one per line above its one-line refusal.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-folder-problems-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV = {
  HARNESS2_SOLVER_MODEL: "anthropic/claude-sonnet-4-5",
  ANTHROPIC_API_KEY: "sk-test",
  HARNESS2_RUNS_DIR: join(ROOT, "runs"),
};

function folder(name: string, files: Record<string, string>): string {
  const dir = join(ROOT, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe("task folder problems", () => {
  test("prompts.toml: an unknown key, a refused word and a domain's refused word, all reported", async () => {
    const dir = folder("prompts", {
      "d/a/task.md": "Do it.",
      "prompts.toml":
        'work = "Chores"\nyardstick = "the score of each"\nbogus = 1\n[domains.d]\nguidance = "mind the rubric"\n',
    });
    const r = await runCli(["check", "--tasks", dir, "--json"], { env: ENV });
    const fails = JSON.parse(r.stdout).checks.filter(
      (c: { status: string; subject: string }) =>
        c.status === "FAIL" && c.subject.endsWith("prompts.toml"),
    );
    expect(fails.map((c: { text: string }) => c.text)).toEqual([
      "unknown key(s) bogus",
      expect.stringContaining('yardstick contains the word "score"'),
      expect.stringContaining('domains.d.guidance: domainGuidance contains the word "rubric"'),
    ]);
  });

  test("a prompts.toml problem refuses the run before anything is spent, as a task.toml one does", async () => {
    // Issue 35: these gave a warning, exit 0, and the run went on with the default prompts.
    const cases: [string, string | Uint8Array, string][] = [
      ["corrupt", 'work = "unclosed\n', "is not valid TOML"],
      ["unknown", 'work = "Chores"\nbogus = 1\n', "unknown key(s) bogus"],
      ["word", 'yardstick = "the score of each"\n', 'contains the word "score"'],
      [
        "latin1",
        new Uint8Array([0x77, 0x6f, 0x72, 0x6b, 0x20, 0x3d, 0x20, 0x22, 0xe9, 0x22, 0x0a]),
        "is not UTF-8 text",
      ],
    ];
    for (const [name, toml, says] of cases) {
      const dir = folder(`prompts-${name}`, { "d/a/task.md": "Do it." });
      writeFileSync(join(dir, "prompts.toml"), toml);
      const r = await runCli(["run", "--bench", "tasks", "--tasks", dir, "--dry-run"], {
        env: ENV,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("prompts.toml");
      expect(r.stderr).toContain(says);
      expect(r.stdout).not.toContain("Dry run");
    }
  });

  test("run lists each problem on its own line above a one-line refusal, exit 1", async () => {
    const dir = folder("tomls", {
      "d/a/task.md": "Do it.",
      "d/a/task.toml": 'timeout = -5\ndeliverables = "x"\nfoo = 1\n',
    });
    const r = await runCli(["run", "--bench", "tasks", "--tasks", dir, "--dry-run"], { env: ENV });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^ {2}\S+task\.toml: timeout: -5 is less than 1 second — fix: /);
    expect(lines[1]).toContain("deliverables: expected a list");
    expect(lines[2]).toContain("unknown key(s) foo");
    expect(lines[3]).toBe(
      `harness2 run: task folder '${dir}' has 3 problems (listed above); fix them and run again`,
    );
  });
});
