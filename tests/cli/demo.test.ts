// `harness2 demo` when something is wrong: a store it must refuse leaves nothing behind, a domain
// that dies is counted and fails the command, and HARNESS2_PYTHON stands in for python3 on PATH
// (that demo is then shown again by its flags: `show --bench demo --k 1`).
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePython } from "../../src/core/lib/python.ts";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-demo-cli-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const demoJson = (runs: string) =>
  JSON.parse(readFileSync(join(runs, "demo", "demo.json"), "utf8")) as {
    tasks: { ok: number; skipped: number; failed: number };
    failedDomains: { domain: string; error: string }[];
  };

describe("harness2 demo refusals and failures", () => {
  test("a corrupt store is refused in one line, exit 1, before anything is written", async () => {
    const runs = join(ROOT, "corrupt");
    mkdirSync(runs);
    const db = join(runs, "harness2.db");
    const junk = `${"not a database ".repeat(20)}\n`;
    writeFileSync(db, junk);
    const r = await runCli(["demo", "--no-tui", "--k", "1", "--runs", runs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("is not a readable harness2 store");
    expect(existsSync(join(runs, "demo"))).toBe(false);
    expect(readFileSync(db, "utf8")).toBe(junk);
  });

  test("no python3 is refused in one line, exit 1, before the base harness is copied out", async () => {
    const runs = join(ROOT, "no-python");
    const empty = join(ROOT, "empty-bin-2");
    mkdirSync(empty, { recursive: true });
    const r = await runCli(["demo", "--no-tui", "--k", "1", "--runs", runs], {
      env: { PATH: empty, HARNESS2_PYTHON: undefined },
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("python3 is not on PATH");
    expect(existsSync(join(runs, "demo"))).toBe(false);
  });

  test("a domain that dies is counted, named, and the demo exits 1", async () => {
    const runs = join(ROOT, "dead-domain");
    // The library's INDEX.md is a directory and a stray entry must be dropped before the first
    // task, so rebuilding the index throws inside the domain, before any task runs.
    const library = join(runs, "demo", "library", "k1", "agg", "accounting");
    mkdirSync(join(library, "harnesses", "stray"), { recursive: true });
    mkdirSync(join(library, "INDEX.md", "x"), { recursive: true });
    const r = await runCli(["demo", "--no-tui", "--k", "1", "--runs", runs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "Local demo: 0 task(s) completed, 0 skipped, 0 failed, 1 domain(s) failed;",
    );
    expect(r.stdout).toMatch(/\n {2}domain accounting failed: .*EISDIR/);
    expect(r.stdout).toMatch(/sweep swp_\w+ failed/);
    const report = demoJson(runs);
    expect(report.tasks).toEqual({ ok: 0, skipped: 0, failed: 0 });
    expect(report.failedDomains).toEqual([
      { domain: "accounting", error: expect.stringContaining("EISDIR") },
    ]);
  });

  test(
    "HARNESS2_PYTHON runs the demo's scripts and syntax checks when python3 is not on PATH",
    async () => {
      const runs = join(ROOT, "override");
      const empty = join(ROOT, "empty-bin");
      mkdirSync(empty, { recursive: true });
      const real = (await resolvePython(process.env)) as string;
      const r = await runCli(["demo", "--no-tui", "--k", "1", "--runs", runs], {
        env: { PATH: empty, HARNESS2_PYTHON: real },
      });
      expect(r.stderr).not.toContain("python3 is required");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Local demo: 2 task(s) completed, 0 skipped, 0 failed;");
      expect(demoJson(runs).failedDomains).toEqual([]);
      // The sweep is found again by its flags, as judge and report find it.
      const sweep = r.stdout.match(/harness2 show (swp_\w+)/)?.[1] as string;
      const shown = await runCli(["show", "--bench", "demo", "--k", "1", "--runs", runs]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(`sweep    ${sweep}  ok`);
      const none = await runCli(["show", "--bench", "demo", "--k", "2", "--runs", runs]);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("no sweep matches --bench demo --k 2");
    },
    { timeout: 120_000 },
  );
});

describe("harness2 demo --substrate cx", () => {
  test(
    "the demo on the Codex surface: AGENTS.md base, proposals validated there, own library; reruns skip",
    async () => {
      const runs = join(ROOT, "codex");
      const r = await runCli(["demo", "--substrate", "cx", "--no-tui", "--k", "1", "--runs", runs]);
      if (r.code !== 0) console.error(r.stdout, r.stderr);
      expect(r.code).toBe(0);
      expect(demoJson(runs).tasks).toEqual({ ok: 2, skipped: 0, failed: 0 });
      expect(r.stdout).toMatch(/ledger-1 +parallel +base Total: 105.25 ✗ +→ +agg1 Total: 85.15 ✓/);
      // Someone new is told how to read the lines before the first one, and where the words are.
      expect(r.stdout).toMatch(/^How to read this: .*INV .*DOM .*R\/P .*\[A\] .* help concepts$/m);
      expect(r.stdout.indexOf("How to read this")).toBeLessThan(r.stdout.indexOf("sweep swp_"));
      const lib = join(
        runs,
        "demo",
        "library",
        "cx-k1",
        "agg",
        "accounting",
        "harnesses",
        "ledger-1",
        "harness",
      );
      expect(readFileSync(join(lib, "AGENTS.md"), "utf8")).toContain("scripts/summarize.py");
      expect(readFileSync(join(lib, "scripts", "summarize.py"), "utf8")).not.toContain(
        "if amount > 0",
      );
      expect(existsSync(join(lib, "systemprompt.md"))).toBe(false);
      const shown = await runCli(["show", "--bench", "demo", "--substrate", "cx", "--runs", runs]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain("substrate cx");
      const again = await runCli([
        "demo",
        "--substrate",
        "cx",
        "--no-tui",
        "--k",
        "1",
        "--runs",
        runs,
      ]);
      expect(again.code).toBe(0);
      expect(demoJson(runs).tasks.skipped).toBe(2);
      const bad = await runCli(["demo", "--substrate", "xx", "--runs", runs]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("--substrate must be oc or cx, got 'xx'");
    },
    { timeout: 120_000 },
  );
});
