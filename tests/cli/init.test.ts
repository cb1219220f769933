// `harness2 init DIR` (issue 16 §3): a task folder that check and run accept as written, whose
// answer key works (full, partial and no credit), printed next commands that work here, and a
// refusal of a DIR that holds anything.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-init-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
const TASK = join(ROOT, "mine", "reports", "expense-summary");

async function checkOf(output: string | null): Promise<{ passed: number; total: number }> {
  const out = join(ROOT, `out-${Math.random().toString(36).slice(2)}`);
  mkdirSync(out);
  if (output !== null) writeFileSync(join(out, "summary.md"), output);
  const proc = Bun.spawn([join(TASK, "tests", "check"), out], {
    cwd: join(TASK, "tests"),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdout: "pipe",
  });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(text.trim().split("\n").at(-1) as string);
}

describe("harness2 init", () => {
  test("scaffolds a folder check accepts, with next commands", async () => {
    const r = await runCli(["init", "mine"], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Wrote a task folder with 1 task (reports/expense-summary)");
    expect(r.stdout).toMatch(/check --tasks mine /);
    expect(r.stdout).toMatch(/run --bench tasks --tasks mine --dry-run /);
    expect(statSync(join(TASK, "tests", "check")).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(TASK, "task.toml"), "utf8")).toContain(
      'deliverables = ["summary.md"]',
    );

    const checked = await runCli(
      ["check", "--tasks", join(ROOT, "mine"), "--runs", join(ROOT, "runs"), "--json"],
      {
        env: { HARNESS2_SOLVER_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "sk-test" },
      },
    );
    const out = JSON.parse(checked.stdout);
    expect(out.tasks).toBe(1);
    const folderLines = out.checks.filter(
      (c: { subject: string }) =>
        c.subject === "task folder" ||
        c.subject.startsWith("reports/") ||
        c.subject.endsWith("prompts.toml"),
    );
    expect(folderLines).toEqual([
      expect.objectContaining({ status: "ok", subject: "task folder" }),
    ]);

    const dry = await runCli(
      ["run", "--bench", "tasks", "--tasks", join(ROOT, "mine"), "--dry-run", "--json"],
      {
        env: {
          HARNESS2_SOLVER_MODEL: "anthropic/claude-sonnet-4-5",
          HARNESS2_RUNS_DIR: join(ROOT, "runs"),
        },
      },
    );
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("reports/expense-summary");
  });

  test("its answer key gives full, partial and no credit", async () => {
    expect(await checkOf("meals: 60.50\noffice: 10.00\ntravel: 164.50\nTotal: 235.00\n")).toEqual({
      passed: 4,
      total: 4,
    });
    // Refunds dropped: travel and the total are wrong.
    expect(await checkOf("meals: 60.50\noffice: 15.99\ntravel: 184.50\nTotal: 260.99\n")).toEqual({
      passed: 1,
      total: 4,
    });
    expect(await checkOf(null)).toEqual({ passed: 0, total: 4 });
  });

  test("a DIR that holds anything is refused, untouched; no DIR is a usage error", async () => {
    const full = join(ROOT, "full");
    mkdirSync(full);
    writeFileSync(join(full, "notes.txt"), "mine");
    const r = await runCli(["init", full]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is not a new or empty directory");
    expect(readFileSync(join(full, "notes.txt"), "utf8")).toBe("mine");
    expect((await runCli(["init"])).code).toBe(2);
  });
});
