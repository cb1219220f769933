// openStore: pragmas and migrations, and refusal (untouched) of newer, corrupt and foreign files.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  integrityCheck,
  openStore,
  StoreCorruptError,
  StoreForeignError,
  StoreMissingError,
  StoreNewerError,
  schemaVersion,
  storeLocation,
} from "../../store/db.ts";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "../../store/schema.ts";
import { tempDir } from "./samples.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const sha = (path: string) =>
  new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");

describe("openStore", () => {
  test("creates a migrated store with WAL, foreign keys and a busy timeout", () => {
    const path = join(dir, "nested", "harness2.db");
    const db = openStore(path);
    expect(existsSync(path)).toBe(true);
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect(db.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 15000 });
    expect(db.query("PRAGMA application_id").get()).toEqual({ application_id: APPLICATION_ID });
    const tables = (
      db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((r) => r.name);
    for (const t of ["sweeps", "tasks", "modes", "stages", "rollouts", "proposer_calls"]) {
      expect(tables).toContain(t);
    }
    for (const t of ["ledger_entries", "tripwires", "selections", "library_entries"]) {
      expect(tables).toContain(t);
    }
    for (const t of ["judgments", "events", "locks", "notes"]) expect(tables).toContain(t);
    expect(integrityCheck(db)).toEqual(["ok"]);
    db.close();
  });

  test("migrations are numbered 1..N in order", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  test("reopening an up-to-date store keeps its data", () => {
    const path = join(dir, "harness2.db");
    const a = openStore(path);
    a.run("INSERT INTO sweeps (id, started_at) VALUES ('swp_x', 1)");
    a.close();
    const b = openStore(path);
    expect(b.query("SELECT id FROM sweeps").all()).toEqual([{ id: "swp_x" }]);
    b.close();
  });

  test("foreign keys are enforced", () => {
    const db = openStore(join(dir, "harness2.db"));
    expect(() =>
      db.run(
        "INSERT INTO tasks (id, sweep_id, domain, task, k, started_at) VALUES ('tsk_1', 'swp_none', 'd', 't', 1, 0)",
      ),
    ).toThrow(/FOREIGN KEY/);
    db.close();
  });

  test("a store from a newer harness2 is refused with both versions, and left as it was", () => {
    const path = join(dir, "harness2.db");
    openStore(path).close();
    const raw = new Database(path);
    raw.run(`PRAGMA user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    const before = sha(path);
    let err: unknown;
    try {
      openStore(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreNewerError);
    const newer = err as StoreNewerError;
    expect([newer.found, newer.supported]).toEqual([SCHEMA_VERSION + 5, SCHEMA_VERSION]);
    expect(newer.message).toContain(path);
    expect(newer.message).toContain("newer harness2");
    expect(sha(path)).toBe(before);
  });

  test("a garbage file is refused as corrupt and not touched", () => {
    const path = join(dir, "harness2.db");
    writeFileSync(path, "this is a spreadsheet someone saved here\n".repeat(200));
    const before = sha(path);
    const size = statSync(path).size;
    expect(() => openStore(path)).toThrow(StoreCorruptError);
    try {
      openStore(path);
    } catch (e) {
      expect((e as Error).message).toContain(path);
      expect((e as Error).message).toContain("left untouched");
    }
    expect(sha(path)).toBe(before);
    expect(statSync(path).size).toBe(size);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  test("a store whose first page was overwritten is refused as corrupt", () => {
    const path = join(dir, "harness2.db");
    const db = openStore(path);
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    const bytes = readFileSync(path);
    bytes.fill(0x5a, 0, 100);
    writeFileSync(path, bytes);
    const before = sha(path);
    expect(() => openStore(path)).toThrow(StoreCorruptError);
    expect(sha(path)).toBe(before);
  });

  test("another program's SQLite database is refused and not migrated", () => {
    const path = join(dir, "other.db");
    const other = new Database(path);
    other.run("CREATE TABLE contacts (name TEXT)");
    other.close();
    const before = sha(path);
    expect(() => openStore(path)).toThrow(StoreForeignError);
    expect(sha(path)).toBe(before);
  });

  test("browsing never creates a store", () => {
    const path = join(dir, "absent", "harness2.db");
    expect(() => openStore(path, { create: false })).toThrow(StoreMissingError);
    expect(existsSync(join(dir, "absent"))).toBe(false);
  });
});

describe("storeLocation", () => {
  test("--runs wins over HARNESS2_RUNS_DIR, which wins over runs/", () => {
    expect(storeLocation({ env: {}, cwd: "/w" })).toEqual({
      runsDir: "/w/runs",
      dbPath: "/w/runs/harness2.db",
      pg: null,
    });
    expect(storeLocation({ env: { HARNESS2_RUNS_DIR: "r2" }, cwd: "/w" }).dbPath).toBe(
      "/w/r2/harness2.db",
    );
    expect(
      storeLocation({ runsDir: "/abs", env: { HARNESS2_RUNS_DIR: "r2" }, cwd: "/w" }).dbPath,
    ).toBe("/abs/harness2.db");
  });

  test("HARNESS2_DB names the database file directly", () => {
    expect(storeLocation({ env: { HARNESS2_DB: "x/h.db" }, cwd: "/w" })).toEqual({
      runsDir: "/w/runs",
      dbPath: "/w/x/h.db",
      pg: null,
    });
  });
});
