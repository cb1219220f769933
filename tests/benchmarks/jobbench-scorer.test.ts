// The JobBench judge contract, against the fixture's contract fake of eval/judge.py: the layout and
// command line it is handed, the weighted score it returns, a report served again without a call,
// a failed report quarantined, a judge error naming its log, and a run with no output a real zero
// built from the rubric weights without calling the judge at all.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import JSZip from "jszip";
import { JobBenchScorer, safeJudgeName } from "../../src/benchmarks/jobbench/jb-scorer.ts";
import { outputDirOf } from "../../src/core/rollout/layout.ts";
import { JB_FIXTURE } from "../helpers/jobbench.ts";

const root = mkdtempSync(join(tmpdir(), "h2-jb-scorer-"));
const calls = join(root, "calls.jsonl");
const TASK = "accountant/task1";
afterAll(() => rmSync(root, { recursive: true, force: true }));

function scorer(extra: Record<string, string> = {}) {
  return new JobBenchScorer({
    root: JB_FIXTURE,
    split: "main",
    runsRoot: join(root, "runs/jb"),
    model: "xai/grok-4.3",
    baseUrl: "http://judge.invalid/v1",
    apiKey: "k-offline",
    env: { ...process.env, JOBBENCH_FAKE_JUDGE_CALLS: calls, ...extra },
  });
}

/** A rollout dir as the adapter lays it out, with these output files. */
function run(label: string, files: Record<string, string>): string {
  const dir = join(root, `runs/jb/dataset/main/${TASK}/rollouts/jb-oc-agg1/${label}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(outputDirOf(dir), { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(outputDirOf(dir), rel), text);
  return dir;
}

function callCount(): number {
  return existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n").length : 0;
}

beforeAll(() => rmSync(calls, { force: true }));

describe("the JobBench judge contract", () => {
  test("hands the judge the upstream layout and flags; returns the weighted score", async () => {
    const dir = run("agg1", {
      "vendor_totals.csv":
        "vendor,total\nContoso Freight,942.80\nFabrikam Office,96.20\nNorthwind Supplies,1418.40\nGRAND TOTAL,2457.40\n",
      "notes.md": "Northwind issued credit note NW-1052.\n",
    });
    const r = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(r).toMatchObject({
      score: 1,
      passed: 3,
      total: 3,
      total_score: 6,
      max_score: 6,
      all_pass: true,
      cached: false,
    });
    const [call] = readFileSync(calls, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const label = "jb-oc-agg1__accountant__task1__agg1";
    const judging = join(root, "runs/jb/judging/main/accountant/task1");
    expect(call.evaluated_model).toBe(label);
    expect(call.output_dir).toBe(join(judging, "model_output", label));
    expect(call.rubrics_file).toBe(join(judging, "RUBRICS.json"));
    expect(call.details_file).toBe(
      join(judging, "eval_result", `eval_${label}`, "grok-4-3_judge.json"),
    );
    expect(call.judge_model).toBe("xai/grok-4.3");
    expect(call.api_key).toBe("k-offline");
    expect(call.max_workers).toBe("10");
    expect(call.timeout_per_rubric).toBe("300");
    expect(readdirSync(call.output_dir).sort()).toEqual(["notes.md", "vendor_totals.csv"]);
    expect(safeJudgeName("google/gemini-2.5-pro")).toBe("gemini-2-5-pro");
  });

  test("a complete report is served again without calling the judge", async () => {
    const dir = run("agg1", { "vendor_totals.csv": "irrelevant now" });
    const before = callCount();
    const r = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(callCount()).toBe(before);
    expect(r).toMatchObject({ score: 1, cached: true });
  });

  test("partial credit is the weighted share", async () => {
    const dir = run("c1", {
      "vendor_totals.csv":
        "Northwind Supplies,1418.40\nContoso Freight,942.80\nFabrikam Office,96.20\n",
    });
    const r = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(r).toMatchObject({ passed: 1, total: 3, total_score: 3, max_score: 6, all_pass: false });
    expect(r.score).toBe(0.5);
  });

  test("a report with failed rubrics is quarantined and not served; a judge error names its log", async () => {
    const dir = run("agg2", { "vendor_totals.csv": "x" });
    const err = await scorer({ JOBBENCH_FAKE_JUDGE_BROKEN: "1" })
      .score(dir, TASK)
      .catch((e) => e);
    expect(err.message).toMatch(
      /failed on 3 of 3 rubrics; ungraded, not a zero; its report is kept as .*_judge\.json\.judge-failed-\d+/,
    );
    const details = join(
      root,
      "runs/jb/judging/main/accountant/task1/eval_result/eval_jb-oc-agg1__accountant__task1__agg2",
    );
    expect(readdirSync(details).some((n) => n.includes(".judge-failed-"))).toBe(true);
    expect(existsSync(join(details, "grok-4-3_judge.json"))).toBe(false);
    // judged afresh next time, and then served
    const ok = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(ok).toMatchObject({ cached: false, passed: 0 });

    const dir3 = run("agg3", { "a.txt": "x" });
    const failed = await scorer({ JOBBENCH_FAKE_JUDGE_EXIT: "3" })
      .score(dir3, TASK)
      .catch((e) => e);
    expect(failed.message).toMatch(
      /the JobBench judge exited with 3: offline judge: endpoint refused the request; see .*judge\.log\.stderr/,
    );
    const log = /see (.*)$/.exec(failed.message)?.[1] as string;
    expect(readFileSync(log, "utf8")).toContain("endpoint refused");
    expect(dirname(log)).toEndWith("eval_jb-oc-agg1__accountant__task1__agg3");
  });

  test("a run that delivered nothing is a real zero from the rubric weights, with no judge call", async () => {
    const dir = run("base1", {});
    const before = callCount();
    const r = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(callCount()).toBe(before);
    expect(r).toEqual({
      score: 0,
      passed: 0,
      total: 3,
      total_score: 0,
      max_score: 6,
      no_output: true,
    });
  });

  test("a judge whose python lacks a package writes an ordinary-looking report: ungraded, never a zero", async () => {
    const dir = run("inv1", { "notes.md": "Northwind issued credit note NW-1052.\n" });
    const err = await scorer({ JOBBENCH_FAKE_JUDGE_NO_OPENAI: "1" })
      .score(dir, TASK)
      .catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(
      /^the JobBench judge failed on 3 of 3 rubrics \(No module named 'openai'\); ungraded, not a zero; the judge's python lacks a package: see check --bench jb; its report is kept as .*judge-failed-\d+$/,
    );
    // Served again later, the failed report is never read as scores: the rollout is judged afresh.
    const again = (await scorer().score(dir, TASK)) as Record<string, unknown>;
    expect(again).toMatchObject({ cached: false, total: 3 });
  });

  test("a formula workbook without the judge's spreadsheet runtime is refused by it: ungraded, with the fix", async () => {
    const zip = new JSZip();
    zip.file("[Content_Types].xml", "<Types/>");
    zip.file(
      "xl/worksheets/sheet1.xml",
      '<worksheet><sheetData><row r="1"><c r="A1"><f>SUM(B1:B2)</f><v>3</v></c></row></sheetData></worksheet>',
    );
    const book = await zip.generateAsync({ type: "nodebuffer" });
    const dir = run("dom1", { "notes.md": "Northwind issued credit note NW-1052.\n" });
    writeFileSync(join(outputDirOf(dir), "totals.xlsx"), book);
    // A Docker engine without the image: the client answers, the image is not there.
    const empty = join(root, "docker-empty");
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, "docker"), "#!/bin/sh\necho 'Error: No such image' >&2\nexit 1\n", {
      mode: 0o755,
    });
    const noDocker = { PATH: `${empty}:/usr/bin:/bin` };
    const err = await scorer(noDocker)
      .score(dir, TASK)
      .catch((e) => e);
    expect(err.message).toMatch(
      /^the JobBench judge refused the deliverable \(totals\.xlsx: Excel recalculation failed: Unable to find image 'jobbench-calc:[0-9a-f]{20}' locally\..*\); ungraded, not a zero: build its spreadsheet runtime with \(cd .* && \.\/eval\/setup_judge\.sh\)/,
    );
    // With the runtime in the engine (a stand-in client that knows the image), it is graded.
    const bin = join(root, "docker-bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "docker"),
      '#!/bin/sh\n[ "$1 $2" = "image inspect" ] && case "$3" in jobbench-calc:*) exit 0;; esac\nexit 1\n',
      { mode: 0o755 },
    );
    const graded = (await scorer({ PATH: `${bin}:/usr/bin:/bin` }).score(dir, TASK)) as Record<
      string,
      unknown
    >;
    expect(graded).toMatchObject({ total: 3, cached: false });
  });

  test("an unknown task is an error, not a zero", async () => {
    const dir = run("base2", { "a.txt": "x" });
    await expect(scorer().score(dir, "accountant/task99")).rejects.toThrow(
      /not in JobBench's main split/,
    );
  });
});

test("the fixture judge's own copy is untouched by judging", () => {
  expect(existsSync(join(JB_FIXTURE, "dataset/main/accountant/task1/eval_result"))).toBe(false);
  expect(existsSync(join(JB_FIXTURE, "dataset/main/accountant/task1/model_output"))).toBe(false);
});
