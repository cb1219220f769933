// The `tasks` adapter without running OpenCode: its spec, prompts, inputs-only source, base
// harness, rollout layout, deliverables, reuse by run mark, and strict/lenient construction.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { answerKeyGlobs } from "../../src/benchmarks/tasks/task-folder.ts";
import {
  createTasksAdapter,
  TasksFormatError,
  UnknownTaskError,
} from "../../src/benchmarks/tasks/tasks-adapter.ts";
import { readTree } from "../../src/core/harness/tree.ts";
import { writeRunMark } from "../../src/core/rollout/runmark.ts";
import { leakMatcher } from "../../src/core/safety/leak-globs.ts";
import { resolvePrompts } from "../../src/core/seams/benchmark.ts";
import { SolverSetupError } from "../../src/substrate/opencode/execute.ts";
import { rolloutFingerprint } from "../../src/substrate/opencode/materialise.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";
import { OPENCODE_BASELINE_TREE, OPENCODE_SURFACE } from "../../src/substrate/opencode/surface.ts";

/** Every temporary directory of this file lives here and is removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "h2-tasks-adapter-test-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const EXAMPLE = resolve(import.meta.dir, "../../fixtures/tasks");
const ENV = {
  PATH: process.env.PATH,
  HARNESS2_SOLVER_MODEL: "local/mock-model",
};

function make(env: Record<string, string | undefined> = ENV, tasksDir = EXAMPLE) {
  const runsDir = mkdtempSync(join(SCRATCH, "h2-tasks-runs-"));
  return {
    runsDir,
    ...createTasksAdapter({ tasksDir, runsDir, env, executor: new OpencodeSubstrate({ env }) }),
  };
}

describe("createTasksAdapter", () => {
  test("builds the tasks/oc cell: workspace_agents_md, sub-agents allowed, answer-key leak globs", async () => {
    const { adapter, problems, runsDir } = make();
    expect(problems).toEqual([]);
    expect(adapter.spec.name).toBe("tasks");
    expect(adapter.spec.runsRoot).toBe(join(runsDir, "tasks"));
    expect(adapter.spec.installMode).toBe("workspace_agents_md");
    expect(adapter.spec.allowSubagents).toBe(true);
    expect(adapter.substrate.name).toBe("oc");
    expect(adapter.spec.channels.proposer?.model).toBe("local/mock-model");
    expect(adapter.spec.leakGlobs).toEqual(["tests/check", "tests/expected.txt"]);
    expect(await adapter.tasks()).toEqual(["data/csv-total", "writing/haiku"]);
    expect(await adapter.tasks("writing")).toEqual(["writing/haiku"]);
    expect(adapter.domainOf("data/csv-total")).toBe("data");
  });

  test("answer-key globs match the key anywhere in evidence, and only the key", () => {
    const match = leakMatcher(
      answerKeyGlobs([{ answerKeyFiles: ["check", "data/[x]*.json"] } as never]),
    );
    expect(match("source/tests/check")).toBe("tests/check");
    expect(match("tests/data/[x]*.json")).toBe("tests/data/[[]x[]][*].json");
    expect(match("tests/data/x1.json")).toBeNull();
    expect(match("deliverables/agg1/tests/test_parse.py")).toBeNull();
  });

  test("lenient mode skips malformed tasks and reports them; strict mode refuses", () => {
    const root = mkdtempSync(join(SCRATCH, "h2-tasks-mixed-"));
    mkdirSync(join(root, "d/good"), { recursive: true });
    mkdirSync(join(root, "d/bad"), { recursive: true });
    writeFileSync(join(root, "d/good/task.md"), "Do it.");
    const runsDir = mkdtempSync(join(SCRATCH, "h2-tasks-runs-"));
    const lenient = createTasksAdapter({
      tasksDir: root,
      runsDir,
      env: ENV,
      executor: new OpencodeSubstrate({ env: ENV }),
    });
    expect(lenient.problems.map((p) => p.path)).toEqual([join(root, "d/bad/task.md")]);
    expect(() =>
      createTasksAdapter({
        tasksDir: root,
        runsDir,
        env: ENV,
        executor: new OpencodeSubstrate({ env: ENV }),
        strict: true,
      }),
    ).toThrow(TasksFormatError);
    // An input that would carry an answer key into a workspace refuses even a lenient run.
    const leaky = mkdtempSync(join(SCRATCH, "h2-tasks-leaky-"));
    mkdirSync(join(leaky, "d/a/tests"), { recursive: true });
    mkdirSync(join(leaky, "d/b/inputs/tests"), { recursive: true });
    writeFileSync(join(leaky, "d/a/task.md"), "Do it.");
    writeFileSync(join(leaky, "d/a/tests/check"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(join(leaky, "d/a/tests/key.txt"), "42");
    writeFileSync(join(leaky, "d/b/task.md"), "Do it too.");
    writeFileSync(join(leaky, "d/b/inputs/tests/key.txt"), "42");
    expect(() =>
      createTasksAdapter({
        tasksDir: leaky,
        runsDir,
        env: ENV,
        executor: new OpencodeSubstrate({ env: ENV }),
      }),
    ).toThrow(/answer-key path 'tests\/key\.txt'/);
    // a long list of problems is cut to the first few, with a pointer to the full list
    const many = mkdtempSync(join(SCRATCH, "h2-tasks-many-"));
    for (let i = 0; i < 6; i++) mkdirSync(join(many, `d/t${i}`), { recursive: true });
    expect(() =>
      createTasksAdapter({
        tasksDir: many,
        runsDir,
        env: ENV,
        executor: new OpencodeSubstrate({ env: ENV }),
      }),
    ).toThrow(/has 6 problems: .* \| … and 3 more \(harness2 check --tasks/);
    const empty = mkdtempSync(join(SCRATCH, "h2-tasks-empty-"));
    expect(() =>
      createTasksAdapter({
        tasksDir: empty,
        runsDir,
        env: ENV,
        executor: new OpencodeSubstrate({ env: ENV }),
      }),
    ).toThrow(/holds no tasks/);
  });
});

describe("what the method sees of a task", () => {
  test("the prompt is task.md plus the output paragraph; source is inputs/ only", async () => {
    const { adapter } = make();
    const prompt = await adapter.taskPrompt("writing/haiku");
    expect(prompt).toStartWith("# Haiku\n\nWrite a haiku");
    expect(prompt).toContain("Expected: `output/haiku.md`.");
    expect(await adapter.taskFiles("writing/haiku")).toBe(join(EXAMPLE, "writing/haiku/inputs"));
    const prompts = await resolvePrompts(adapter, "writing/haiku");
    expect(prompts.domainGuidance).toBe(
      "Poems follow the requested form exactly and use the requested words.",
    );
    expect(() => adapter.domainOf("writing/none")).toThrow(UnknownTaskError);
    await expect(adapter.tasks("cooking")).rejects.toThrow(
      `split 'cooking' is not in ${EXAMPLE} (known: all, data, writing)`,
    );
  });

  test("without harness/ the base is the baseline tree, written once under the runs root", async () => {
    const { adapter } = make();
    const base = await adapter.baseHarness();
    expect(base).toBe(join(adapter.spec.runsRoot, "base-harness"));
    expect(readTree(OPENCODE_SURFACE, base)).toEqual({ ...OPENCODE_BASELINE_TREE });
    expect(await adapter.baseHarness()).toBe(base);
  });
});

describe("rollouts on disk", () => {
  const RUN = "tasks-oc-agg1/writing/haiku/base1";

  test("run dirs are <runsRoot>/rollouts/<namespace>/<task slug>/<label>", () => {
    const { adapter } = make();
    expect(adapter.rolloutDir(RUN)).toBe(
      join(adapter.spec.runsRoot, "rollouts/tasks-oc-agg1/writing__haiku/base1"),
    );
  });

  test("deliverables are the files under workspace/output; intact follows the mark", async () => {
    const { adapter } = make();
    const dir = adapter.rolloutDir(RUN);
    const out = join(dir, "workspace/output");
    mkdirSync(out, { recursive: true });
    expect(await adapter.delivered(dir)).toBe(false);
    expect(await adapter.deliverableText(dir)).toBe("(no deliverable produced)");
    writeFileSync(join(out, "empty.md"), "");
    expect(await adapter.delivered(dir)).toBe(false);
    writeFileSync(join(out, "haiku.md"), "three\nshort\nlines\n");
    writeFileSync(join(out, "blob.bin"), new Uint8Array([0xff, 0xfe, 0x00]));
    expect(await adapter.delivered(dir)).toBe(true);
    expect(await adapter.deliverableFiles(dir)).toEqual({
      "blob.bin": "(binary file, 3 bytes)",
      "empty.md": "",
      "haiku.md": "three\nshort\nlines\n",
    });
    expect(await adapter.artifactsIntact(dir)).toBe(false);
    await writeRunMark(dir, { runId: RUN, harnessFingerprint: "f", outputDir: out });
    expect(await adapter.artifactsIntact(dir)).toBe(true);
    writeFileSync(join(out, "haiku.md"), "edited later\n");
    expect(await adapter.artifactsIntact(dir)).toBe(false);
  });

  test("execute reuses a finished rollout of the same harness without starting opencode", async () => {
    const { adapter } = make();
    const base = await adapter.baseHarness();
    const dir = adapter.rolloutDir(RUN);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "opencode.jsonl"), "");
    await writeRunMark(dir, { runId: RUN, harnessFingerprint: await rolloutFingerprint(base) });
    expect(await adapter.execute("writing/haiku", null, RUN)).toBe(dir);
  });

  test("execute refuses without a provider/model solver model, before touching disk", async () => {
    for (const model of [undefined, "bare-model"]) {
      const { adapter } = make({
        PATH: process.env.PATH,
        HARNESS2_SOLVER_MODEL: model,
        HARNESS2_IMPROVER_MODEL: "local/x",
      });
      const err = await adapter.execute("writing/haiku", null, RUN).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SolverSetupError);
      expect(String(err)).toContain("HARNESS2_SOLVER_MODEL");
      await expect(adapter.preflight()).rejects.toThrow(SolverSetupError);
    }
  });
});
