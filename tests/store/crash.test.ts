// Process-level safety: kill -9 mid-transaction, exit with a pending burst, two writers at once.
import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { integrityCheck, openStore } from "../../store/db.ts";
import { tempDir } from "./samples.ts";
import { spawnChild } from "./spawn-child.ts";

let dir: string;
let cleanup: () => void;
let dbPath: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  dbPath = join(dir, "harness2.db");
});
afterEach(() => cleanup());

const count = (db: Database, sql: string, ...p: string[]) =>
  (db.query(sql).get(...p) as { n: number }).n;

/** Every committed event has the rows it implies, and no row exists without its event. */
function expectConsistent(db: Database): void {
  const ev = (type: string) => count(db, "SELECT COUNT(*) AS n FROM events WHERE type = ?", type);
  expect(count(db, "SELECT COUNT(*) AS n FROM tasks")).toBe(ev("task.started"));
  expect(count(db, "SELECT COUNT(*) AS n FROM tasks WHERE status != 'running'")).toBe(
    ev("task.finished"),
  );
  expect(count(db, "SELECT COUNT(*) AS n FROM stages")).toBe(ev("stage.started"));
  expect(count(db, "SELECT COUNT(*) AS n FROM stages WHERE finished = 1")).toBe(
    ev("stage.finished"),
  );
  expect(count(db, "SELECT COUNT(*) AS n FROM rollouts")).toBe(ev("rollout.started"));
  expect(count(db, "SELECT COUNT(*) AS n FROM rollouts WHERE finished = 1")).toBe(
    ev("rollout.finished"),
  );
  expect(count(db, "SELECT COUNT(*) AS n FROM ledger_entries")).toBe(ev("ledger.recorded"));
  expect(count(db, "SELECT COUNT(*) AS n FROM proposer_calls")).toBe(ev("proposer.call"));
  expect(count(db, "SELECT COUNT(*) AS n FROM selections")).toBe(ev("selection.made"));
  expect(count(db, "SELECT COUNT(*) AS n FROM library_entries")).toBe(ev("library.added"));
  expect(count(db, "SELECT COUNT(*) AS n FROM modes WHERE finished_at IS NOT NULL")).toBe(
    ev("mode.finished"),
  );
}

describe("crash safety", () => {
  test("kill -9 in the middle of a write transaction leaves a consistent store", async () => {
    const child = spawnChild(["burst", dbPath, "swp_crash"]);
    try {
      const committed = await child.waitFor(/^committed /);
      const [, prefix, total] = committed.match(/^committed (\d+) of (\d+)$/) ?? [];
      await child.waitFor(/^flushing$/);
      child.proc.kill("SIGKILL");
      expect(await child.proc.exited).not.toBe(0);
      const db = openStore(dbPath);
      expect(integrityCheck(db)).toEqual(["ok"]);
      const n = count(db, "SELECT COUNT(*) AS n FROM events");
      // The burst is one transaction: it is either entirely absent or entirely present.
      expect([Number(prefix), Number(total)]).toContain(n);
      expectConsistent(db);
      db.close();
    } finally {
      child.proc.kill("SIGKILL");
    }
  });

  test("events still buffered when a process exits normally are written on the way out", async () => {
    const child = spawnChild(["noclose", dbPath, "swp_exit"]);
    const line = await child.waitFor(/^pending /);
    expect(await child.proc.exited).toBe(0);
    const db = openStore(dbPath);
    expect(count(db, "SELECT COUNT(*) AS n FROM events")).toBe(Number(line.split(" ")[1]));
    expect(count(db, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'ok'")).toBe(1);
    db.close();
  });
});

describe("concurrent processes", () => {
  test("many processes opening one new store at the same moment all get it (WAL switch retried)", async () => {
    for (let round = 0; round < 3; round++) {
      const path = join(dir, `race-${round}.db`);
      const kids = Array.from({ length: 6 }, (_, i) =>
        spawnChild(["write", path, `swp_r${i}`, "1"]),
      );
      const lines = await Promise.all(kids.map((k) => k.waitFor(/^wrote /)));
      expect(lines).toHaveLength(6);
      for (const k of kids) expect(await k.proc.exited).toBe(0);
      const db = openStore(path);
      expect(count(db, "SELECT COUNT(DISTINCT sweep_id) AS n FROM events")).toBe(6);
      expect(String(Object.values(db.query("PRAGMA journal_mode").get() ?? {})[0])).toBe("wal");
      db.close();
    }
  });

  test("two sweeps written at once by two processes both land whole", async () => {
    const a = spawnChild(["write", dbPath, "swp_a", "30"]);
    const b = spawnChild(["write", dbPath, "swp_b", "30"]);
    const [la, lb] = await Promise.all([a.waitFor(/^wrote /), b.waitFor(/^wrote /)]);
    expect(await a.proc.exited).toBe(0);
    expect(await b.proc.exited).toBe(0);
    const db = openStore(dbPath);
    expect(integrityCheck(db)).toEqual(["ok"]);
    for (const [sweep, line] of [
      ["swp_a", la],
      ["swp_b", lb],
    ] as const) {
      const n = Number(line.split(" ")[1]);
      expect(count(db, "SELECT COUNT(*) AS n FROM events WHERE sweep_id = ?", sweep)).toBe(n);
      expect(count(db, "SELECT COUNT(*) AS n FROM tasks WHERE sweep_id = ?", sweep)).toBe(30);
      expect(
        count(db, "SELECT COUNT(*) AS n FROM tasks WHERE sweep_id = ? AND status = 'ok'", sweep),
      ).toBe(30);
    }
    expectConsistent(db);
    db.close();
  });
});
