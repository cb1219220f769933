// The PostgreSQL store against a private cluster: a projection replayed from the shared log is the
// SQLite store row for row; other processes' events arrive, a process's own never twice; a retried
// append adds nothing; locks are advisory and die with their holder; every refusal is one line.

import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type PgAddress, pgAddress } from "../../src/core/lib/store-url.ts";
import { openStore } from "../../store/db.ts";
import { newSweepId } from "../../store/ids.ts";
import { PgLog, PgStoreError } from "../../store/pg/log.ts";
import { PgStore } from "../../store/pg/store.ts";
import { StoreWriter } from "../../store/writer.ts";
import { runCli } from "../helpers/cli.ts";
import { freshPgAddress, sharedCluster } from "./backends.ts";
import { tempDir } from "./samples.ts";
import { sweepEvents } from "./synthetic.ts";

const T0 = Date.UTC(2026, 11, 1, 8, 0, 0);
const opened: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

async function pgStore(addr: PgAddress, create = true): Promise<PgStore> {
  const s = (await PgStore.open(addr, { create })) as PgStore;
  opened.push(s);
  return s;
}

/** Every table's rows, task record ids replaced by their rank (ids are each store's own). */
function dump(db: Database): Record<string, string[]> {
  const ids = (db.query("SELECT id FROM tasks ORDER BY id").all() as { id: string }[]).map(
    (r) => r.id,
  );
  const rank = new Map(ids.map((id, i) => [id, `task#${i}`]));
  const tables = (
    db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  const out: Record<string, string[]> = {};
  for (const t of tables) {
    out[t] = (db.query(`SELECT * FROM "${t}"`).all() as Record<string, unknown>[])
      .map((row) => JSON.stringify(row).replace(/tsk_[0-9a-z]{18}/g, (id) => rank.get(id) ?? id))
      .sort();
  }
  return out;
}

describe("the projection", () => {
  test("replayed from the log, it holds what the SQLite store holds, row for row", async () => {
    const sweeps = [newSweepId(T0), newSweepId(T0 + 1000)];
    const events = [
      ...sweepEvents({
        sweep: sweeps[0] as string,
        t0: T0,
        domains: 3,
        tasksPerDomain: 4,
        tripEvery: 3,
      }),
      ...sweepEvents({
        sweep: sweeps[1] as string,
        t0: T0 + 1e6,
        domains: 1,
        tasksPerDomain: 2,
        stopInTask: 2,
      }),
    ];
    expect(events.length).toBeGreaterThan(200);
    const { dir, cleanup } = tempDir();
    const sqlite = openStore(join(dir, "harness2.db"));
    const w1 = new StoreWriter(sqlite, { maxBatch: 37 });
    for (const ev of events) w1.emit(ev);
    w1.close();

    const addr = await freshPgAddress();
    const home = await pgStore(addr);
    const w2 = new StoreWriter(home.db, { maxBatch: 37, onCommitted: home.committed });
    for (const ev of events) w2.emit(ev);
    w2.close();
    expect(await home.drain()).toBe(0);
    expect(await home.log.count()).toBe(events.length);

    const other = await pgStore(addr, false);
    const expected = dump(sqlite);
    expect(dump(home.db)).toEqual(expected);
    expect(dump(other.db)).toEqual(expected);
    sqlite.close();
    cleanup();
  }, 60_000);

  test("another process's events arrive by catchUp; its own are never applied twice", async () => {
    const addr = await freshPgAddress();
    const a = await pgStore(addr);
    const b = await pgStore(addr);
    const sa = newSweepId(T0 + 5000);
    const sb = newSweepId(T0 + 6000);
    const wa = new StoreWriter(a.db, { onCommitted: a.committed });
    for (const ev of sweepEvents({ sweep: sa, t0: T0, domains: 1, tasksPerDomain: 1 })) wa.emit(ev);
    wa.close();
    const wb = new StoreWriter(b.db, { onCommitted: b.committed });
    for (const ev of sweepEvents({ sweep: sb, t0: T0, domains: 1, tasksPerDomain: 1 })) wb.emit(ev);
    wb.close();
    await a.drain();
    await b.drain();
    const count = (db: Database) =>
      (db.query("SELECT count(*) AS n FROM events").get() as { n: number }).n;
    const own = count(a.db);
    expect(await a.catchUp()).toBe(count(b.db));
    expect(await b.catchUp()).toBe(own);
    expect(count(a.db)).toBe(count(b.db));
    expect(await a.catchUp()).toBe(0);
    const sweepsOf = (db: Database) =>
      (db.query("SELECT id FROM sweeps ORDER BY id").all() as { id: string }[]).map((r) => r.id);
    expect(sweepsOf(a.db)).toEqual([sa, sb]);
    expect(sweepsOf(b.db)).toEqual([sa, sb]);
  }, 60_000);

  test("an append retried after a lost answer adds no row", async () => {
    const addr = await freshPgAddress();
    const log = (await PgLog.open(addr, { create: true })) as PgLog;
    opened.push(log);
    const body = [{ sweep: "swp_x", type: "note", body: "{}" }];
    await log.append("o_test", 1, body);
    await log.append("o_test", 1, body);
    await log.append("o_test", 2, body);
    expect(await log.count()).toBe(2);
  }, 30_000);
});

describe("locks", () => {
  test("a process whose close waited for the last append exits as soon as it is in", async () => {
    const addr = await freshPgAddress();
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "pg-drain-child.ts"), addr.url],
      { stdout: "pipe", stderr: "pipe" },
    );
    const out = await new Response(child.stdout).text();
    expect(out).toBe("closed with 0 left\n");
    // Its close allowed ten minutes; a timer left behind by the wait would hold it that long.
    const exited = await Promise.race([
      child.exited,
      Bun.sleep(60_000).then(() => "still running"),
    ]);
    if (exited === "still running") child.kill("SIGKILL");
    expect(exited).toBe(0);
    const log = (await PgLog.open(addr, { create: false })) as PgLog;
    opened.push(log);
    expect(await log.count()).toBeGreaterThan(100);
  }, 90_000);

  test("a lock key held by a live process refuses a second holder, and dies with it", async () => {
    const addr = await freshPgAddress();
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "pg-lock-child.ts"), addr.url, "ns#d0", "swp_child"],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = child.stdout.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe("locked\n");
    const log = (await PgLog.open(addr, { create: false })) as PgLog;
    opened.push(log);
    const refused = await log.lock(["ns#d1", "ns#d0"], { sweep: "swp_me", worker: "me" });
    expect("release" in refused).toBe(false);
    if (!("release" in refused)) {
      expect(refused).toMatchObject({ key: "ns#d0", sweepId: "swp_child", pid: child.pid });
    }
    expect((await log.liveLocks()).map((r) => r.sweepId)).toEqual(["swp_child"]);
    // All or nothing: the first key was given back when the second was refused.
    const other = await log.lock(["ns#d1"], { sweep: "swp_me", worker: "me" });
    expect("release" in other).toBe(true);
    if ("release" in other) await other.release();
    child.kill("SIGKILL");
    await child.exited;
    let taken = await log.lock(["ns#d0"], { sweep: "swp_me", worker: "me" });
    for (let i = 0; i < 50 && !("release" in taken); i++) {
      await Bun.sleep(100);
      taken = await log.lock(["ns#d0"], { sweep: "swp_me", worker: "me" });
    }
    expect("release" in taken).toBe(true);
    if ("release" in taken) await taken.release();
    expect(await log.liveLocks()).toEqual([]);
  }, 60_000);
});

describe("refusals, one line each", () => {
  test("no server, no database, a newer log, another program's table", async () => {
    const cluster = await sharedCluster();
    const { createServer } = await import("node:net");
    const port = await new Promise<number>((done) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
    const nowhere = pgAddress(`postgres://postgres@127.0.0.1:${port}/h2`) as PgAddress;
    await expect(PgLog.open(nowhere, { create: true })).rejects.toThrow(
      `cannot reach PostgreSQL at 127.0.0.1:${port}`,
    );
    const missing = pgAddress(`postgres://postgres@127.0.0.1:${cluster.port}/nope`) as PgAddress;
    const noDb = await PgLog.open(missing, { create: true }).catch((e: unknown) => e);
    expect(noDb).toBeInstanceOf(PgStoreError);
    expect((noDb as PgStoreError).message).toBe(
      `PostgreSQL at 127.0.0.1:${cluster.port} has no database "nope"`,
    );
    expect((noDb as PgStoreError).fix).toStartWith("create it (createdb -h 127.0.0.1");
    expect((noDb as PgStoreError).errorKind).toBe("environment");
    const addr = await freshPgAddress();
    const log = (await PgLog.open(addr, { create: true })) as PgLog;
    await log.client`UPDATE harness2_meta SET value = '99' WHERE key = 'version'`;
    await expect(PgLog.open(addr, { create: false })).rejects.toThrow(
      "was written by a newer harness2 (log schema 99; this build reads up to 1)",
    );
    await log.client`UPDATE harness2_meta SET value = 'other' WHERE key = 'app'`;
    await expect(PgLog.open(addr, { create: false })).rejects.toThrow("is not harness2's");
    await log.close();
    // An empty database is no store yet for a reader, and is left empty.
    const empty = await freshPgAddress();
    expect(await PgLog.open(empty, { create: false })).toBeNull();
  }, 60_000);

  test("the CLI says each in one line (exit 4 for the server, 1 for the setting), never the password", async () => {
    const cluster = await sharedCluster();
    const { dir, cleanup } = tempDir();
    // A server that is not there or lacks the database is the environment's (exit 4); a value of
    // HARNESS2_DB that is not a usable address is a bad setting (exit 1).
    const cases: [string, string, number][] = [
      [`postgres://postgres:s3cret@127.0.0.1:${cluster.port}/nope`, 'has no database "nope"', 4],
      ["postgres://postgres:s3cret@127.0.0.1:1/h2", "cannot reach PostgreSQL at 127.0.0.1:1", 4],
      ["postgres://postgres:s3cret@/h2", "is not a valid PostgreSQL connection string", 1],
      ["postgres://postgres:s3cret@db.internal:5432", "names no database", 1],
      ["mysql://u:s3cret@db/h2", "names a database server harness2 cannot use", 1],
    ];
    for (const [url, says, code] of cases) {
      for (const args of [["runs"], ["demo", "--k", "1", "--no-tui"]]) {
        const r = await runCli([...args, "--runs", join(dir, "runs")], {
          cwd: dir,
          env: { HARNESS2_DB: url },
        });
        expect({ url, code: r.code }).toEqual({ url, code });
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toContain(says);
        expect(r.stdout + r.stderr).not.toContain("s3cret");
      }
    }
    const empty = await freshPgAddress();
    const r = await runCli(["runs"], { cwd: dir, env: { HARNESS2_DB: empty.url } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("No runs yet");
    cleanup();
  }, 120_000);
});
