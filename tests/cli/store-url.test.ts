// HARNESS2_DB naming something that cannot be the store (a server harness2 cannot use, or a
// PostgreSQL URL that is not one): every command that finds the store says so in one line (exit
// 1: a bad setting, not the machine's fault), shows no credentials, and never creates a folder named after it.
// Well-formed PostgreSQL URLs are the shared store: tests/store/pg-store.test.ts.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";

const root = mkdtempSync(join(tmpdir(), "h2-store-url-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a store setting that cannot be the store", () => {
  test("runs, show, run and demo refuse it in one line; check reports it; nothing is created", async () => {
    for (const [url, says] of [
      ["mysql://harness:s3cret@db.internal:3306/h2", "names a database server harness2 cannot use"],
      ["postgres://harness:s3cret@db.internal:5432", "names no database"],
    ] as const) {
      const env = { HARNESS2_DB: url };
      for (const args of [
        ["runs"],
        ["show", "last"],
        ["demo", "--k", "1", "--no-tui"],
        // A bad command line is said first (exit 2); a well-formed one meets the store's refusal.
        ["run", "--bench", "tasks", "--tasks", "no-such-folder"],
      ]) {
        const r = await runCli(args, { cwd: root, env });
        expect(r.code).toBe(1);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toContain(says);
        expect(r.stdout + r.stderr).not.toContain("s3cret");
      }
      const check = await runCli(["check", "--bench", "demo"], { cwd: root, env });
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/FAIL +HARNESS2_DB: HARNESS2_DB="[a-z]+:\/\/harness:\*\*\*@/);
      expect(check.stdout).not.toContain("s3cret");
    }
    expect(readdirSync(root)).toEqual([]);
  }, 120_000);
});
