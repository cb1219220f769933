// The JobBench adapter: what the agent and the improver get of a task (a clean copy of the task
// folder, never what a leak glob names), ids, domains and stream order, per-profession prompts,
// the no-output attempts (with an executor double that finishes normally and writes nothing until
// told to), and deliverables as per-file text with the office files read.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  JB_FILE_TEXT_MAX,
  JobBenchAdapter,
  NoOutputError,
} from "../../src/benchmarks/jobbench/jb-adapter.ts";
import { occupationGroup } from "../../src/benchmarks/jobbench/jb-prompts.ts";
import { setupJobBench } from "../../src/benchmarks/jobbench/jb-setup.ts";
import { walkFiles } from "../../src/core/lib/safe-fs.ts";
import { outputDirOf } from "../../src/core/rollout/layout.ts";
import { readRunMark, writeRunMark } from "../../src/core/rollout/runmark.ts";
import { runId } from "../../src/core/run/naming.ts";
import type { RolloutRequest, RolloutResult } from "../../src/core/seams/executor.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";
import { JB_FIXTURE } from "../helpers/jobbench.ts";

/** OpenCode's surface and baseline, with a rollout that writes output only from attempt `deliverOn`. */
class AttemptsExecutor extends OpencodeSubstrate {
  calls: RolloutRequest[] = [];
  constructor(readonly deliverOn: number) {
    super({ env: {} });
  }
  override preflight(): void {}
  override async execute(req: RolloutRequest): Promise<RolloutResult> {
    this.calls.push(req);
    rmSync(req.runDir, { recursive: true, force: true });
    mkdirSync(outputDirOf(req.runDir), { recursive: true });
    writeFileSync(this.streamPath(req.runDir), `{"type":"text","attempt":${this.calls.length}}\n`);
    const delivered = this.calls.length >= this.deliverOn;
    if (delivered)
      writeFileSync(join(outputDirOf(req.runDir), "vendor_totals.csv"), "GRAND TOTAL,2457.40\n");
    await writeRunMark(req.runDir, {
      runId: req.runId,
      harnessFingerprint: req.harnessFingerprint,
      outputDir: delivered ? outputDirOf(req.runDir) : null,
    });
    return { runDir: req.runDir, usd: 0.25, wallS: 1, delivered };
  }
}

const root = mkdtempSync(join(tmpdir(), "h2-jb-adapter-"));
const SECRET = "jb-leak-marker-never-shown";
let data: string;
const deps = join(root, "deps");
const env = {
  ...process.env,
  HARNESS2_SOLVER_MODEL: "solver/m",
  HARNESS2_IMPROVER_MODEL: "improver/m",
};

beforeAll(async () => {
  data = join(root, "data");
  cpSync(JB_FIXTURE, data, { recursive: true });
  // Answer-key material inside the task folder itself: the clean copy must leave it out.
  const tf = join(data, "dataset/main/accountant/task1/task_folder");
  writeFileSync(join(tf, "RUBRICS.json"), `{"rubrics": [], "note": "${SECRET}"}`);
  mkdirSync(join(tf, "expected"), { recursive: true });
  writeFileSync(join(tf, "expected/answer.csv"), SECRET);
  mkdirSync(join(tf, "reference"), { recursive: true });
  writeFileSync(join(tf, "reference/solution.md"), SECRET);
  await setupJobBench({ deps, from: data, env, say: () => {} });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function adapter(executor = new AttemptsExecutor(1), split: "main" | "easy" = "main") {
  return new JobBenchAdapter({ deps, split, runsDir: join(root, "runs"), executor, env });
}

describe("the JobBench adapter", () => {
  test("tasks, domains and the reference order; unknown ids are one line", async () => {
    const a = adapter();
    expect(await a.tasks()).toEqual([
      "accountant/task1",
      "accountant/task2",
      "logistics_coordinator/task1",
      "logistics_coordinator/task2",
    ]);
    expect(await a.tasks("logistics_coordinator")).toEqual([
      "logistics_coordinator/task1",
      "logistics_coordinator/task2",
    ]);
    expect(a.domainOf("accountant/task2")).toBe("accountant");
    expect(a.referenceDomainOrder()).toEqual(["accountant", "logistics_coordinator"]);
    expect(a.spec.name).toBe("jb");
    expect(a.spec.allowSubagents).toBe(true);
    expect(a.spec.leakGlobs).toContain("RUBRICS.json");
    expect(() => a.domainOf("accountant/task7")).toThrow(/not in JobBench's main split \(4 tasks/);
    expect(await adapter(undefined, "easy").tasks()).toEqual(["accountant/task1"]);
  });

  test("the clean inputs hold the task folder without what a leak glob names", async () => {
    const a = adapter();
    const clean = (await a.taskFiles("accountant/task1")) as string;
    expect(walkFiles(clean)).toEqual(["TASK_INSTRUCTIONS.txt", "vendor_ledger.xlsx"]);
    expect(clean).toBe(join(root, "runs/jb/dataset/main/accountant/task1/task_folder"));
    for (const rel of walkFiles(clean))
      expect(readFileSync(join(clean, rel), "latin1")).not.toContain(SECRET);
  });

  test("the prompt carries the instructions and where output goes; prompts have the profession's lens", async () => {
    const a = adapter();
    const prompt = await a.taskPrompt("accountant/task1");
    expect(prompt).toContain("vendor_ledger.xlsx lists every vendor invoice");
    expect(prompt).toContain("under output/");
    const p = a.promptsFor("accountant/task1");
    expect(p.domainWord).toBe("profession");
    expect(p.promptPack).toBe("tts");
    expect(p.selectionConformance).toBe("value_only");
    expect(p.domainGuidance).toContain("Profession: accountant.");
    expect(p.domainGuidance).toContain("Finance and accounting work");
    expect(a.promptsFor("logistics_coordinator/task1").domainGuidance).toContain(
      "Operations, logistics",
    );
    expect(occupationGroup("evaluation_specialist")).toBeNull();
  });

  test("a rollout that writes nothing is tried again; every attempt empty fails unmarked, with its spend", async () => {
    const twice = new AttemptsExecutor(2);
    const a = adapter(twice);
    const id = runId(
      { benchmark: "jb", substrate: "oc", k: 1, mode: "agg" },
      "accountant/task1",
      "base1",
    );
    const dir = await a.execute("accountant/task1", null, id);
    expect(twice.calls).toHaveLength(2);
    expect(twice.calls[0]?.inputsDir).toBe(
      join(root, "runs/jb/dataset/main/accountant/task1/task_folder"),
    );
    expect(twice.calls[0]?.template?.domainFocus).toBe("accountant");
    expect(twice.calls[0]?.timeoutS).toBe(2400);
    expect(existsSync(join(`${dir}.attempts`, "attempt-1.jsonl"))).toBe(true);
    expect(dir).toEndWith("accountant/task1/rollouts/jb-oc-agg1/base1");
    // finished and marked: the same run id is reused without executing
    await a.execute("accountant/task1", null, id);
    expect(twice.calls).toHaveLength(2);

    const never = new AttemptsExecutor(99);
    const b = adapter(never);
    const id2 = runId(
      { benchmark: "jb", substrate: "oc", k: 1, mode: "agg" },
      "accountant/task2",
      "base1",
    );
    const err = await b.execute("accountant/task2", null, id2).catch((e) => e);
    expect(err).toBeInstanceOf(NoOutputError);
    expect(err.usd).toBe(0.5);
    expect(err.message).toContain("wrote nothing to output/ in 2 attempt(s)");
    expect(never.calls).toHaveLength(2);
    expect(await readRunMark(b.rolloutDir(id2))).toBeNull();

    const once = new AttemptsExecutor(99);
    const c = new JobBenchAdapter({
      deps,
      split: "main",
      runsDir: join(root, "runs-1"),
      executor: once,
      env: { ...env, HARNESS2_JB_ATTEMPTS: "1", HARNESS2_ROLLOUT_TIMEOUT: "60" },
    });
    await c.execute("accountant/task2", null, id2).catch(() => null);
    expect(once.calls).toHaveLength(1);
    expect(once.calls[0]?.timeoutS).toBe(60);
    expect(
      () =>
        new JobBenchAdapter({
          deps,
          split: "main",
          runsDir: root,
          executor: once,
          env: { ...env, HARNESS2_JB_ATTEMPTS: "zero" },
        }),
    ).toThrow(/HARNESS2_JB_ATTEMPTS="zero" is not allowed: a whole number ≥ 1/);
  });

  test("deliverables: office files as text, plain text capped, images listed", async () => {
    const a = adapter();
    const run = join(root, "a-run");
    const out = outputDirOf(run);
    mkdirSync(out, { recursive: true });
    cpSync(
      join(JB_FIXTURE, "dataset/main/accountant/task1/task_folder/vendor_ledger.xlsx"),
      join(out, "ledger.xlsx"),
    );
    cpSync(
      join(JB_FIXTURE, "dataset/main/logistics_coordinator/task2/task_folder/carrier_terms.docx"),
      join(out, "terms.docx"),
    );
    cpSync(
      join(JB_FIXTURE, "dataset/main/accountant/task2/task_folder/invoice_INV-7731.pdf"),
      join(out, "invoice.pdf"),
    );
    writeFileSync(join(out, "big.txt"), "x".repeat(JB_FILE_TEXT_MAX + 10));
    writeFileSync(join(out, "broken.xlsx"), "not a zip");
    writeFileSync(join(out, "chart.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    const files = await a.deliverableFiles(run);
    expect(Object.keys(files)).toEqual([
      "big.txt",
      "broken.xlsx",
      "chart.png",
      "invoice.pdf",
      "ledger.xlsx",
      "terms.docx",
    ]);
    expect(files["ledger.xlsx"]).toContain("Northwind Supplies\tNW-1052\t-150.0");
    expect(files["terms.docx"]).toContain("capped at 25%");
    // PDFs are read with pdf.js, which gives runs of spaces as one.
    expect(files["invoice.pdf"]).toContain("Total due 1022.40");
    expect(files["big.txt"]).toContain(
      `cut at ${JB_FILE_TEXT_MAX} of ${JB_FILE_TEXT_MAX + 10} characters`,
    );
    expect(files["broken.xlsx"]).toBe("(could not read this .xlsx file: BadZipFile)");
    expect(await a.deliverableImages(run)).toEqual([join(out, "chart.png")]);
    expect(await a.deliverableText(join(root, "no-run"))).toBe("(no deliverable produced)");
  });
});
