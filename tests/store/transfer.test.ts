// Moving sweeps between stores: export → import is a round trip (the same records), --rebase moves
// recorded paths, two disjoint shards merged equal one store that ran both, and every refusal —
// a sweep imported twice, another experiment, a task finished in two shards, a torn file — is one
// line that leaves the target as it was. Stores are written by the store's own writer.

import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../store/db.ts";
import { sweepDetail } from "../../store/queries.ts";
import { markImported, readBundle } from "../../store/transfer.ts";
import type { SweepDetail } from "../../store/views.ts";
import { runCli } from "../helpers/cli.ts";
import { Script } from "../tui/script.ts";
import { storeWith } from "../tui/store-fixture.ts";

const root = mkdtempSync(join(tmpdir(), "h2-transfer-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const T0 = 1_800_000_000_000;

function sweep(id: string, domains: { domain: string; tasks: string[] }[], seed = 7) {
  const s = new Script(id, T0, "/old/runs").sweepStarted(domains, { ks: [2], seed });
  for (const d of domains) for (const t of d.tasks) s.task(d.domain, t, { k: 2 });
  return s.sweepFinished().events;
}

/** What a sweep's record says, without the store's own row ids. */
function records(db: Database, id: string) {
  const d = sweepDetail(db, id) as SweepDetail;
  return d.tasks.map((t) => ({
    domain: t.domain,
    task: t.task,
    status: t.status,
    modes: t.modes.map((m) => ({
      mode: m.mode,
      status: m.status,
      R: m.R,
      P: m.P,
      stages: m.stages.map((s) => [s.label, s.status, s.harnessDir]),
      chosen: m.selection?.chosenLabel ?? null,
      library: m.library.map((l) => l.cue),
    })),
    rollouts: t.rollouts.map((r) => [r.label, r.status, r.runDir]),
  }));
}

const read = <T>(path: string, f: (db: Database) => T): T => {
  const db = openStore(path, { readonly: true });
  try {
    return f(db);
  } finally {
    db.close();
  }
};

describe("export and import", () => {
  test("round trip: the imported sweep's records equal the exported one's; again is refused", async () => {
    const a = storeWith(sweep("swp_a", [{ domain: "acct", tasks: ["t1", "t2"] }]), join(root, "a"));
    const file = join(root, "a.sweep");
    const out = await runCli(["export", "last", file, "--runs", a.runsDir]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^exported swp_a: \d+ events to /);
    const b = join(root, "b", "runs");
    const imp = await runCli(["import", file, "--runs", b]);
    expect(imp.code).toBe(0);
    expect(imp.stdout).toContain("imported swp_a:");
    expect(imp.stdout).toContain("2 finished task(s)");
    const before = read(a.dbPath, (db) => records(db, "swp_a"));
    expect(read(join(b, "harness2.db"), (db) => records(db, "swp_a"))).toEqual(before);
    expect(before.length).toBe(2);
    const again = await runCli(["import", file, "--runs", b]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("this store already holds sweep swp_a: nothing was imported");
    // an existing FILE is never overwritten
    const twice = await runCli(["export", "last", file, "--runs", a.runsDir]);
    expect(twice.code).toBe(2);
    // --json: what was written and what was imported, as one object each.
    const jsonFile = join(root, "a-json.sweep");
    const outJson = await runCli(["export", "swp_a", jsonFile, "--runs", a.runsDir, "--json"]);
    expect(JSON.parse(outJson.stdout)).toEqual({
      sweep: "swp_a",
      events: expect.any(Number),
      file: jsonFile,
    });
    const d = join(root, "d", "runs");
    const impJson = await runCli(["import", jsonFile, "--runs", d, "--json"]);
    expect(JSON.parse(impJson.stdout)).toEqual({
      sweep: "swp_a",
      events: JSON.parse(outJson.stdout).events,
      tasks: 2,
      store: join(d, "harness2.db"),
    });
  }, 120_000);

  test("--rebase moves recorded paths; a bad --rebase is a usage error", async () => {
    const file = join(root, "a.sweep");
    const c = join(root, "c", "runs");
    const r = await runCli(["import", file, "--runs", c, "--rebase", "/old/runs=/new/place"]);
    expect(r.code).toBe(0);
    const rec = read(join(c, "harness2.db"), (db) => records(db, "swp_a"));
    const dirs = rec.flatMap((t) => t.modes.flatMap((m) => m.stages.map((s) => s[2] as string)));
    expect(dirs.length).toBeGreaterThan(0);
    for (const d of dirs) expect(d.startsWith("/new/place/")).toBe(true);
    const bad = await runCli([
      "import",
      file,
      "--runs",
      join(root, "x"),
      "--rebase",
      "relative=/y",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--rebase must be OLD=NEW with two absolute folders");
  }, 120_000);

  test("a torn file, another experiment: one line each, nothing written", async () => {
    const text = readFileSync(join(root, "a.sweep"), "utf8");
    writeFileSync(join(root, "torn.sweep"), text.split("\n").slice(0, 5).join("\n"));
    const torn = await runCli(["import", join(root, "torn.sweep"), "--runs", join(root, "t")]);
    expect(torn.code).toBe(1);
    expect(torn.stderr).toMatch(
      /is not a sweep harness2 exported \(the header counts \d+ events, the file holds 4: it is torn\)/,
    );
    expect(existsSync(join(root, "t"))).toBe(false);
    // the same tasks under another seed: another experiment than the store records
    const other = storeWith(
      sweep("swp_other", [{ domain: "acct", tasks: ["t9"] }], 99),
      join(root, "o"),
    );
    const file = join(root, "other.sweep");
    expect((await runCli(["export", "last", file, "--runs", other.runsDir])).code).toBe(0);
    const b = join(root, "b", "runs");
    const r = await runCli(["import", file, "--runs", b]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "sweep swp_other is another experiment than the one this store records (sweep swp_a; different: seed)",
    );
    expect(read(join(b, "harness2.db"), (db) => sweepDetail(db, "swp_other"))).toBeNull();
  }, 120_000);
});

describe("an imported file is data, read within bounds", () => {
  /** a.sweep with one event's JSON text changed by `edit`, written to `name`. */
  const tampered = (name: string, edit: (line: string, i: number) => string): string => {
    const lines = readFileSync(join(root, "a.sweep"), "utf8").split("\n");
    const path = join(root, name);
    writeFileSync(path, lines.map(edit).join("\n"));
    return path;
  };
  const refusedWith = async (file: string, pattern: RegExp) => {
    const target = join(root, `bounds-${Math.random().toString(36).slice(2)}`);
    const r = await runCli(["import", file, "--runs", target]);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.code).toBe(1);
    expect(existsSync(target)).toBe(false);
  };

  test("a device and a FIFO are refused before a byte is read", async () => {
    await refusedWith("/dev/zero", /\/dev\/zero is not a regular file/);
    const fifo = join(root, "a.fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    await refusedWith(fifo, /a\.fifo is not a regular file/);
  }, 120_000);

  test("a file over the size limit is refused whole", () => {
    const file = join(root, "a.sweep");
    expect(() => readBundle(file, 100)).toThrow(/over import's limit of 0\.0 MB/);
    expect(readBundle(file).events.length).toBeGreaterThan(2);
  });

  test("a cost too large or not finite, and a domain or task that is not a safe name", async () => {
    // A number JSON can write but no sweep records, and one JSON reads as Infinity.
    await refusedWith(
      tampered("huge-usd.sweep", (l) => l.replace(/"usd":[0-9.e+-]+/, '"usd":1e308')),
      /event \d+: [\w.]*usd is \$1e\+308, outside 0\.\.1000000/,
    );
    await refusedWith(
      tampered("inf.sweep", (l) => l.replace(/"wallS":[0-9.e+-]+/, '"wallS":1e999')),
      /event \d+: [\w.]*wallS is Infinity, not a number a sweep records/,
    );
    await refusedWith(
      tampered("dotdot.sweep", (l) => l.replaceAll('"acct"', '"../../x"')),
      /event 1: domains\[0\]\.domain "\.\.\/\.\.\/x" holds '\/'/,
    );
    await refusedWith(
      tampered("task.sweep", (l) => l.replaceAll('"t1"', '"t/../../y"')),
      /event 1: domains\[0\]\.tasks\[0\] "t\/\.\.\/\.\.\/y" has an empty, '\.' or '\.\.' part/,
    );
  }, 120_000);

  test("an imported sweep is marked, so judge trusts none of its recorded paths", () => {
    const b = readBundle(join(root, "a.sweep"));
    const marked = markImported(b.events, "/somewhere/a.sweep");
    const started = marked[0] as { config: Record<string, unknown> };
    expect(started.config.imported).toEqual({ file: "a.sweep" });
    expect(marked.slice(1)).toEqual(b.events.slice(1));
  });
});

describe("merge", () => {
  test("two disjoint shards merged equal one store that ran both", async () => {
    const both = storeWith(
      sweep("swp_full", [
        { domain: "acct", tasks: ["t1"] },
        { domain: "ops", tasks: ["t2"] },
      ]),
      join(root, "full"),
    );
    const s1 = storeWith(sweep("swp_s1", [{ domain: "acct", tasks: ["t1"] }]), join(root, "s1"));
    const s2 = storeWith(sweep("swp_s2", [{ domain: "ops", tasks: ["t2"] }]), join(root, "s2"));
    const into = join(root, "merged", "runs");
    const r = await runCli(["merge", s1.runsDir, s2.dbPath, "--into", into]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("merged 2 sweep(s) with 2 finished task(s) from 2 store(s)");
    const merged = read(join(into, "harness2.db"), (db) => [
      ...records(db, "swp_s1"),
      ...records(db, "swp_s2"),
    ]);
    expect(merged).toEqual(read(both.dbPath, (db) => records(db, "swp_full")));
    const count = read(
      join(into, "harness2.db"),
      (db) => (db.query("SELECT COUNT(*) AS n FROM tasks").get() as { n: number }).n,
    );
    expect(count).toBe(2);
    const again = join(root, "merged-json", "runs");
    const j = await runCli(["merge", s1.runsDir, s2.dbPath, "--into", again, "--json"]);
    expect(JSON.parse(j.stdout)).toEqual({
      sweeps: ["swp_s1", "swp_s2"],
      tasks: 2,
      sources: 2,
      into: expect.stringContaining("merged-json"),
    });
  }, 120_000);

  test("a task two shards both finished is refused, all or nothing, with the target untouched", async () => {
    const s3 = storeWith(sweep("swp_s3", [{ domain: "ops", tasks: ["t3"] }]), join(root, "s3"));
    const s4 = storeWith(sweep("swp_s4", [{ domain: "ops", tasks: ["t3"] }]), join(root, "s4"));
    const into = join(root, "refused", "runs");
    const r = await runCli(["merge", s3.runsDir, s4.runsDir, "--into", into]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "task t3 (k=2) was finished twice: ok in this store's sweep swp_s3, ok in sweep swp_s4",
    );
    expect(r.stderr).toContain(`(from ${s4.dbPath})`);
    expect(existsSync(join(into, "harness2.db"))).toBe(false);
    const missing = await runCli(["merge", join(root, "nowhere"), "--into", into]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no harness2 store at");
    const noInto = await runCli(["merge", s3.runsDir]);
    expect(noInto.code).toBe(2);
  }, 120_000);

  test("a damaged event row is one line naming the sweep and the row; a device is never a target", async () => {
    const s = storeWith(sweep("swp_dmg", [{ domain: "acct", tasks: ["t1"] }]), join(root, "dmg"));
    const db = openStore(s.dbPath);
    const row = db.query("SELECT MAX(seq) AS seq FROM events").get() as { seq: number };
    db.run('UPDATE events SET body = \'{"type": "task.fin\' WHERE seq = ?', [row.seq]);
    db.close();
    const line = `sweep swp_dmg: event row ${row.seq} of the store is damaged`;

    const ex = await runCli(["export", "last", join(root, "dmg.sweep"), "--runs", s.runsDir]);
    expect(ex.code).toBe(1);
    expect(ex.stderr.trim().split("\n")).toHaveLength(1);
    expect(ex.stderr).toContain(line);
    expect(existsSync(join(root, "dmg.sweep"))).toBe(false);

    const into = join(root, "dmg-into", "runs");
    const m = await runCli(["merge", s.runsDir, "--into", into]);
    expect(m.code).toBe(1);
    expect(m.stderr.trim().split("\n")).toHaveLength(1);
    expect(m.stderr).toContain(`${s.dbPath}: ${line}`);
    expect(existsSync(into)).toBe(false);

    const good = storeWith(
      sweep("swp_dev", [{ domain: "acct", tasks: ["t1"] }]),
      join(root, "dev"),
    );
    const dev = await runCli(["merge", good.runsDir, "--into", "/dev/null"]);
    expect(dev.code).toBe(2);
    expect(dev.stderr).toContain("/dev/null is not a runs directory or a harness2.db file");
    expect(existsSync("/dev/null-journal")).toBe(false);
  }, 120_000);
});
