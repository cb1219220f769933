// `runs`, `show`, `report` (and `check`) only read the store: they never create it, never write the
// schema into an empty file, never migrate an older one. The file's size and mtime prove it.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfCommand } from "../../src/cli/help/self.ts";
import { APPLICATION_ID, MIGRATIONS } from "../../store/schema.ts";
import { runCli } from "../helpers/cli.ts";

/** A real demo sweep (python3 executions): a generous limit, not a timing check. */
const SLOW = 90_000;

const ROOT = mkdtempSync(join(tmpdir(), "h2-read-only-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const ENV = { HARNESS2_RUNS_DIR: undefined, HARNESS2_DB: undefined };
const cli = (args: string[]) => runCli(args, { env: ENV });
/** harness2 as the hints type it where runCli runs (the checkout, this PATH). */
const SELF = selfCommand({ ...process.env, ...ENV }, join(import.meta.dir, "../.."));
const stamp = (path: string) => {
  const st = statSync(path);
  return { size: st.size, mtimeMs: st.mtimeMs };
};

describe("an empty (0-byte) harness2.db", () => {
  const runs = join(ROOT, "empty");
  const db = join(runs, "harness2.db");
  beforeAll(() => {
    mkdirSync(runs);
    writeFileSync(db, "");
  });

  test("runs says no runs yet, exit 0, and leaves it 0 bytes", async () => {
    const before = stamp(db);
    const r = await cli(["runs", "--runs", runs]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `No runs yet: ${db} is empty. Try '${SELF} demo', or start one with '${SELF} run'.\n`,
    );
    expect(stamp(db)).toEqual(before);
  });

  for (const args of [["show", "last"], ["report"]]) {
    test(`${args.join(" ")} refuses in one line (exit 1) and leaves it 0 bytes`, async () => {
      const before = stamp(db);
      const r = await cli([...args, "--runs", runs]);
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(db);
      expect(stamp(db)).toEqual(before);
    });
  }

  test("check reports it without writing it", async () => {
    const before = stamp(db);
    const r = await cli(["check", "--runs", runs]);
    expect(r.stdout).toContain(`ok    store: ${db} (empty; set up on the first run)`);
    expect(stamp(db)).toEqual(before);
    expect(readdirSync(runs)).toEqual(["harness2.db"]);
  });
});

describe("a store of an older schema", () => {
  test("runs refuses in one line, exit 1, and does not migrate it", async () => {
    const runs = join(ROOT, "older");
    mkdirSync(runs);
    const path = join(runs, "harness2.db");
    const old = new Database(path, { create: true });
    old.run((MIGRATIONS[0] as { sql: string }).sql);
    old.run("PRAGMA user_version = 1");
    old.run(`PRAGMA application_id = ${APPLICATION_ID}`);
    old.close();
    const before = stamp(path);
    const r = await cli(["runs", "--runs", runs]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was written by an older harness2 (store schema 1;");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stamp(path)).toEqual(before);
  });
});

describe("a store with a demo sweep", () => {
  const runs = join(ROOT, "demo");
  const db = join(runs, "harness2.db");
  beforeAll(async () => {
    const r = await cli(["demo", "--runs", runs, "--no-tui"]);
    expect(r.code).toBe(0);
  }, SLOW);

  test("runs, show last and report read it (exit 0) without changing the file", async () => {
    const before = stamp(db);
    for (const args of [["runs"], ["show", "last"], ["report"], ["runs", "--json"]]) {
      const r = await cli([...args, "--runs", runs]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(stamp(db)).toEqual(before);
    }
  });
});
