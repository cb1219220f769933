// The LAB cell: discovery with criteria stripped, setup (adopt, fetch with real git, refusals), the
// adapter (read-only documents and never task.json, the assignment, LAB's own rule on proposals,
// its base harness, metrics.json, the follow-up message), and the judge contract against the
// fixture's contract fake of the evaluation (scores, cache, a run without metrics, errors).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchDataError, SetupError } from "../../src/benchmarks/common/install.ts";
import { LabAdapter } from "../../src/benchmarks/lab/lab-adapter.ts";
import { discoverLab, LAB_CHECKOUT } from "../../src/benchmarks/lab/lab-data.ts";
import { countStream, writeMetrics } from "../../src/benchmarks/lab/lab-metrics.ts";
import { missingDeliverablesNudge } from "../../src/benchmarks/lab/lab-prompts.ts";
import { LabScorer } from "../../src/benchmarks/lab/lab-scorer.ts";
import { setupLab } from "../../src/benchmarks/lab/lab-setup.ts";
import { readTree } from "../../src/core/harness/tree.ts";
import { walkFiles } from "../../src/core/lib/safe-fs.ts";
import { outputDirOf } from "../../src/core/rollout/layout.ts";
import type { Executor } from "../../src/core/seams/executor.ts";
import { CodexSubstrate } from "../../src/substrate/codex/substrate.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";

const LAB_FIXTURE = join(import.meta.dir, "../../fixtures/benchmarks/lab");
const root = mkdtempSync(join(tmpdir(), "h2-lab-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const SECRET = "lab-criteria-marker-never-shown";
const env = { ...process.env, HARNESS2_SOLVER_MODEL: "s/m", HARNESS2_IMPROVER_MODEL: "i/m" };
const quiet = () => {};
let data: string;
const deps = join(root, "deps");

beforeAll(async () => {
  data = join(root, "harvey-labs");
  cpSync(LAB_FIXTURE, data, { recursive: true });
  const tj = join(data, "tasks/corporate_ma/nda-review/task.json");
  const task = JSON.parse(readFileSync(tj, "utf8"));
  task.criteria[0].description += ` ${SECRET}`;
  writeFileSync(tj, JSON.stringify(task));
  await setupLab({ deps, from: data, env, say: quiet });
});

function adapter(executor: Executor = new OpencodeSubstrate({ env })) {
  return new LabAdapter({ deps, runsDir: join(root, "runs"), executor, env });
}

describe("LAB's data", () => {
  test("tasks by practice area and name; criteria are never part of a task; problems named", () => {
    const copy = join(root, "copy");
    cpSync(LAB_FIXTURE, copy, { recursive: true });
    mkdirSync(join(copy, "tasks/employment/broken"), { recursive: true });
    writeFileSync(
      join(copy, "tasks/employment/broken/task.json"),
      '{"title": "x", "instructions": ""}',
    );
    const found = discoverLab(copy);
    expect(found.tasks.map((t) => t.id)).toEqual([
      "corporate_ma/board-consent",
      "corporate_ma/nda-review",
      "employment/noncompete-research",
      "employment/severance-memo",
    ]);
    expect(found.problems).toHaveLength(1);
    expect(found.problems[0]?.problem).toContain("has no instructions");
    expect(found.problems[0]?.problem).toContain("names no deliverables");
    const nda = found.tasks[1];
    expect(Object.keys(nda ?? {}).sort()).toEqual(
      [
        "area",
        "deliverables",
        "dir",
        "documentsDir",
        "id",
        "instructions",
        "tags",
        "title",
        "workType",
      ].sort(),
    );
    expect(JSON.stringify(found.tasks)).not.toContain("offline_expect");
  });

  test("setup: adopt, fetch with git (recording the commit), refuse an unreachable source cleanly", async () => {
    const r = await setupLab({ deps: join(root, "d1"), from: data, env, say: quiet });
    expect(r.manifest.tasks).toEqual({ all: 4 });
    const upstream = join(root, "upstream");
    cpSync(LAB_FIXTURE, upstream, { recursive: true });
    writeFileSync(join(upstream, "pyproject.toml"), '[project]\nname = "harvey-labs"\n');
    const g = (...a: string[]) =>
      Bun.spawnSync(["git", ...a], {
        cwd: upstream,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: root,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@t",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@t",
        },
      })
        .stdout.toString()
        .trim();
    g("init", "-q");
    g("add", ".");
    g("commit", "-q", "-m", "tasks");
    const head = g("rev-parse", "HEAD");
    const fetched = await setupLab({
      deps: join(root, "d2"),
      env: { ...env, HARNESS2_LAB_REPO_URL: `file://${upstream}` },
      say: quiet,
    });
    expect(fetched.manifest.repo.commit).toBe(head);
    expect(
      existsSync(join(root, "d2", LAB_CHECKOUT, "tasks/employment/severance-memo/task.json")),
    ).toBe(true);
    const err = await setupLab({
      deps: join(root, "d3"),
      env: { ...env, HARNESS2_LAB_REPO_URL: "http://127.0.0.1:9/x.git" },
      say: quiet,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(SetupError);
    expect(err.message).toMatch(
      /could not fetch http:\/\/127\.0\.0\.1:9\/x\.git .*--bench lab --from DIR/,
    );
    expect(readdirSync(join(root, "d3"))).toEqual([]);
    expect(
      () =>
        new LabAdapter({
          deps: join(root, "none"),
          runsDir: root,
          executor: new OpencodeSubstrate({ env }),
          env,
        }),
    ).toThrow(BenchDataError);
  });
});

describe("the LAB adapter", () => {
  test("documents read-only, never task.json; the assignment names every file and read_doc.py", async () => {
    const a = adapter();
    expect(a.spec.installMode).toBe("workspace_config");
    expect(a.spec.allowSubagents).toBe(false);
    expect(a.spec.reservedScripts).toEqual(["read_doc.py"]);
    expect(a.referenceDomainOrder()).toEqual(["corporate_ma", "employment"]);
    const inputs = (await a.taskFiles("corporate_ma/nda-review")) as string;
    expect(walkFiles(inputs)).toEqual(["documents/mutual_nda.docx", "documents/term_sheet.pdf"]);
    expect(statSync(join(inputs, "documents/mutual_nda.docx")).mode & 0o222).toBe(0);
    const prompt = await a.taskPrompt("corporate_ma/nda-review");
    expect(prompt).toContain("# Issues list on the mutual NDA for Project Larkspur");
    expect(prompt).toContain("- output/issues_list.md: Numbered issues");
    expect(prompt).toContain("python3 scripts/read_doc.py documents/<file>");
    expect(prompt).not.toContain(SECRET);
    const p = a.promptsFor("corporate_ma/nda-review");
    expect(p.domainGuidance).toContain("Corporate and transactional work");
    expect(p.domainGuidance).toContain("Review: go clause by clause");
    expect(a.promptsFor("employment/noncompete-research").domainGuidance).toContain(
      "Research: name the governing rule",
    );
  });

  test("LAB's base harness on each executor, and its rule on proposals", async () => {
    const oc = adapter();
    const base = readTree(oc.substrate.surface(), await oc.baseHarness());
    expect(await oc.validateTree(base)).toEqual([]);
    const cut = { ...base, "systemprompt.md": "Be brief." };
    const problems = await oc.validateTree(cut);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain("no longer mentions `output/`");
    expect(problems[1]).toContain("no longer mentions `read_doc.py`");
    expect(await oc.validateTree({ ...base, "scripts/read_doc.py": "print(1)\n" })).toEqual([
      "scripts/read_doc.py is provided by the runtime (a harness may call it but not ship one); remove it",
    ]);
    const cx = adapter(new CodexSubstrate({ env }));
    expect(cx.spec.installMode).toBe("codex_root");
    const cxBase = readTree(cx.substrate.surface(), await cx.baseHarness());
    expect(cxBase["AGENTS.md"]).toContain("output/<file>");
    expect(await cx.validateTree(cxBase)).toEqual([]);
  });

  test("the follow-up names the missing files; metrics are counted from either executor's stream", () => {
    expect(missingDeliverablesNudge([])).toBeNull();
    expect(missingDeliverablesNudge(["memo.md"])).toContain("- output/memo.md");
    const oc = join(root, "oc.jsonl");
    writeFileSync(
      oc,
      [
        '{"type":"tool_use","part":{"tool":"bash","state":{"input":{"command":"python3 scripts/read_doc.py documents/a.pdf"}}}}',
        '{"type":"tool_use","part":{"tool":"write","state":{"input":{"filePath":"output/m.md"}}}}',
        '{"type":"step_finish","part":{"tokens":{"input":100,"output":20,"reasoning":5,"cache":{"read":7}}}}',
        "not json",
      ].join("\n"),
    );
    expect(countStream(oc)).toEqual({
      tokens: { input: 100, output: 20, reasoning: 5, cacheRead: 7 },
      toolCalls: 2,
      documentsRead: 1,
    });
    const cx = join(root, "cx.jsonl");
    writeFileSync(
      cx,
      [
        '{"type":"item.completed","item":{"type":"command_execution","command":"cat documents/x.md"}}',
        '{"type":"item.completed","item":{"type":"agent_message","text":"done"}}',
        '{"type":"item.completed","item":{"type":"error","message":"Model metadata not found"}}',
        '{"type":"turn.completed","usage":{"input_tokens":50,"cached_input_tokens":10,"output_tokens":9}}',
      ].join("\n"),
    );
    expect(countStream(cx)).toEqual({
      tokens: { input: 50, output: 9, reasoning: 0, cacheRead: 10 },
      toolCalls: 1,
      documentsRead: 1,
    });
  });
});

describe("the LAB judge contract", () => {
  const calls = join(root, "eval-calls.jsonl");
  function scorer(extra: Record<string, string> = {}) {
    return new LabScorer({
      root: data,
      runsRoot: join(root, "runs/lab"),
      model: "judge-model",
      baseUrl: "http://judge.invalid/v1",
      apiKey: "k",
      env: { ...process.env, LAB_FAKE_EVAL_CALLS: calls, ...extra },
    });
  }
  function run(label: string, files: Record<string, string>, metrics = true): string {
    const dir = join(
      root,
      `runs/lab/tasks/employment/severance-memo/rollouts/lab-oc-agg1/${label}`,
    );
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(outputDirOf(dir), { recursive: true });
    for (const [rel, text] of Object.entries(files))
      writeFileSync(join(outputDirOf(dir), rel), text);
    writeFileSync(join(dir, "opencode.jsonl"), '{"type":"text"}\n');
    if (metrics) {
      writeMetrics(dir, {
        tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0 },
        costUsd: 0,
        wallS: 1,
        toolCalls: 0,
        documentsRead: 0,
        nudges: 0,
        model: "s/m",
      });
    }
    return dir;
  }
  const TASK = "employment/severance-memo";

  test("runs the evaluation on a copy of the run; scores passed over criteria; serves a complete one again", async () => {
    const dir = run("agg1", {
      "severance_memo.md":
        "Nine months of USD 240,000 is USD 180,000, after a release signed within 21 days.",
    });
    const r = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(r).toMatchObject({ score: 1, passed: 2, total: 2, all_pass: true, cached: false });
    const call = JSON.parse(readFileSync(calls, "utf8").trim().split("\n")[0] as string);
    const judged = join(root, "runs/lab/judging/employment/severance-memo/lab-oc-agg1/agg1");
    expect(call).toMatchObject({
      run_dir: judged,
      task: TASK,
      model: "judge-model",
      base_url: "http://judge.invalid/v1",
      cwd: data,
    });
    expect(readdirSync(judged).sort()).toEqual([
      "config.json",
      "judge.log",
      "judge.stderr.log",
      "metrics.json",
      "output",
      "scores.json",
      "transcript.jsonl",
    ]);
    expect(existsSync(join(dir, "scores.json"))).toBe(false);
    const again = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(again).toMatchObject({ score: 1, cached: true });
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(1);
  });

  test("partial credit; a run without metrics.json is never judged; errors name the log", async () => {
    const half = (await scorer().score(
      run("agg2", { "severance_memo.md": "USD 180,000 is owed." }),
      TASK,
    )) as Record<string, unknown>;
    expect(half).toMatchObject({ score: 0.5, passed: 1, total: 2, all_pass: false });
    await expect(scorer().score(run("agg3", { "a.md": "x" }, false), TASK)).rejects.toThrow(
      /has no metrics\.json/,
    );
    const quota = await scorer({ LAB_FAKE_EVAL_EXIT: "1" })
      .score(run("agg4", { "a.md": "x" }), TASK)
      .catch((e) => e);
    expect(quota.message).toMatch(
      /exited with 1: evaluation failed: 429 RESOURCE_EXHAUSTED .*a quota limit: judge again later.*judge\.stderr\.log/,
    );
    const torn = await scorer({ LAB_FAKE_EVAL_TORN: "1" })
      .score(run("agg5", { "a.md": "x" }), TASK)
      .catch((e) => e);
    expect(torn.message).toMatch(/left no readable .*scores\.json/);
  });
});
