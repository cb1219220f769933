// The judge-only scorer of the `tasks` benchmark runs each task's real tests/check on a copy of the
// rollout's output and reads {"passed": n, "total": m}; every failure is ungraded (null), never 0.
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readTaskFolder } from "../../src/benchmarks/tasks/task-folder.ts";
import { parseCheckOutput, TasksScorer } from "../../src/benchmarks/tasks/tasks-scorer.ts";

/** Every temporary directory of this file lives here and is removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "h2-tasks-scorer-test-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const EXAMPLE = resolve(import.meta.dir, "../../fixtures/tasks");
/** Each check is a real process (python3 through any version-manager shim): allow a loaded machine. */
const CHECK_TEST_MS = 60_000;

function scorerFor(root: string): TasksScorer {
  const byId = new Map(readTaskFolder(root, null).tasks.map((t) => [t.id, t]));
  return new TasksScorer({ lookup: (id) => byId.get(id) });
}

/** A run dir whose rollout delivered `files` under workspace/output. */
function runDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(SCRATCH, "h2-run-"));
  const out = join(dir, "workspace/output");
  mkdirSync(out, { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(out, rel), text);
  return dir;
}

describe("parseCheckOutput", () => {
  test("the last valid verdict line wins; invalid ones are skipped", () => {
    expect(
      parseCheckOutput('chatter\n{"passed": 1, "total": 2}\n{"passed": 2, "total": 2}\n'),
    ).toEqual({
      passed: 2,
      total: 2,
    });
    expect(parseCheckOutput('{"passed": 1, "total": 2}\n{"passed": 3, "total": 2}\n')).toEqual({
      passed: 1,
      total: 2,
    });
    expect(parseCheckOutput('{"passed": 0, "total": 0}')).toBeNull();
    expect(parseCheckOutput('{"passed": 1.5, "total": 2}')).toBeNull();
    expect(parseCheckOutput("ok")).toBeNull();
  });
});

describe("TasksScorer with the example's real checks", () => {
  const scorer = scorerFor(EXAMPLE);

  test(
    "a full answer, a partial one, and nothing delivered",
    async () => {
      const full = runDir({
        "haiku.md":
          "Old lighthouse at dusk\nsweeping light across the waves\nships find their way home\n",
      });
      expect(await scorer.score(full, "writing/haiku")).toEqual({
        score: 1,
        passed: 3,
        total: 3,
        check: "tests/check",
        exitCode: 0,
      });
      const partial = runDir({ "haiku.md": "a poem about the sea\nin two lines\n" });
      expect((await scorer.score(partial, "writing/haiku"))?.passed).toBe(1);
      const nothing = mkdtempSync(join(SCRATCH, "h2-run-empty-"));
      expect(await scorer.score(nothing, "writing/haiku")).toMatchObject({
        passed: 0,
        total: 3,
        score: 0,
      });
      const total = runDir({ "total.txt": "80.35\n" });
      expect(await scorer.score(total, "data/csv-total")).toMatchObject({ score: 1 });
    },
    CHECK_TEST_MS,
  );

  test(
    "unknown tasks and tasks without a check are ungraded",
    async () => {
      const dir = runDir({ "x.md": "x" });
      expect(await scorer.score(dir, "writing/none")).toBeNull();
      const root = mkdtempSync(join(SCRATCH, "h2-nocheck-"));
      mkdirSync(join(root, "d/t"), { recursive: true });
      writeFileSync(join(root, "d/t/task.md"), "x");
      expect(await scorerFor(root).scoreDetailed(dir, "d/t")).toEqual({
        ok: false,
        error: "task d/t has no tests/check",
      });
    },
    CHECK_TEST_MS,
  );
});

describe("TasksScorer on misbehaving checks", () => {
  function taskWithCheck(body: string, toml = ""): string {
    const root = mkdtempSync(join(SCRATCH, "h2-badcheck-"));
    cpSync(join(EXAMPLE, "writing"), join(root, "writing"), { recursive: true });
    writeFileSync(join(root, "writing/haiku/tests/check"), body);
    chmodSync(join(root, "writing/haiku/tests/check"), 0o755);
    if (toml !== "") writeFileSync(join(root, "writing/haiku/task.toml"), toml);
    return root;
  }

  test(
    "no verdict line, or a timeout, is ungraded with the reason",
    async () => {
      const dir = runDir({ "haiku.md": "x" });
      const silent = scorerFor(taskWithCheck("#!/bin/sh\necho all good\necho oops >&2\nexit 1\n"));
      const got = await silent.scoreDetailed(dir, "writing/haiku");
      expect(got).toEqual({
        ok: false,
        error: 'tests/check printed no {"passed": n, "total": m} line (exit 1): oops',
      });
      const slow = scorerFor(taskWithCheck("#!/bin/sh\nexec sleep 600\n", "check_timeout = 1\n"));
      expect(await slow.scoreDetailed(dir, "writing/haiku")).toEqual({
        ok: false,
        error: "tests/check timed out after 1s",
      });
    },
    CHECK_TEST_MS,
  );

  test(
    "a check that rewrites its output dir never touches the rollout",
    async () => {
      const dir = runDir({ "haiku.md": "original\n" });
      const vandal = scorerFor(
        taskWithCheck(
          '#!/bin/sh\necho changed > "$1/haiku.md"\ntouch "$1/extra.txt"\necho \'{"passed": 1, "total": 1}\'\n',
        ),
      );
      expect(await vandal.score(dir, "writing/haiku")).toMatchObject({ score: 1 });
      const out = join(dir, "workspace/output");
      expect(readFileSync(join(out, "haiku.md"), "utf8")).toBe("original\n");
      expect(readdirSync(out)).toEqual(["haiku.md"]);
    },
    CHECK_TEST_MS,
  );
});
