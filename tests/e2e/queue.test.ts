// One sweep across many workers (docs/guide/many-machines.md), against a private PostgreSQL
// cluster and real `harness2 worker` processes: a demo-style sweep of four domains is queued, two
// workers take its domains, one is killed with SIGKILL in the middle of a task and its domain is
// retried by the other; the selections, ledgers and library then equal a single-process run, no
// row is doubled and every domain kept its order. SIGTERM stops a worker cleanly and leaves its
// job for another.

import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { PgAddress } from "../../src/core/lib/store-url.ts";
import { openStore } from "../../store/db.ts";
import { PgStore } from "../../store/pg/store.ts";
import { storedTaskRecord } from "../../store/resume-queries.ts";
import { MAIN, runCli } from "../helpers/cli.ts";
import { processesMentioning } from "../helpers/procs.ts";
import { freshPgAddress } from "../store/backends.ts";
import { tempDir } from "../store/samples.ts";

const { dir: root, cleanup } = tempDir();
afterAll(cleanup);

const QUEUE_ENV = {
  HARNESS2_QUEUE_POLL_S: "1",
  HARNESS2_QUEUE_HEARTBEAT_S: "10",
  HARNESS2_QUEUE_RETRIES: "3",
};
const DOMAINS = ["accounting", "accounting-2", "accounting-3", "accounting-4"];
const KEY = { bench: "demo", substrate: "oc", seed: null, tag: "" };

type Worker = { proc: ReturnType<typeof Bun.spawn>; log: () => string };

function startWorker(addr: PgAddress, runs: string, name: string): Worker {
  let out = "";
  const proc = Bun.spawn(
    [process.execPath, MAIN, "worker", "--runs", runs, "--name", name, "--until-empty"],
    {
      cwd: root,
      env: { ...process.env, ...QUEUE_ENV, HARNESS2_DB: addr.url, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  void (async () => {
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      out += new TextDecoder().decode(chunk);
    }
  })();
  void new Response(proc.stderr as ReadableStream).text().then((t) => {
    out += t;
  });
  return { proc, log: () => out };
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== null && got !== undefined && got !== false) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** Every file of a library under its root, with its text. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, "utf8");
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/**
 * What a ledger spent on the method's budget. Session attempts are left out: they count the tries
 * this process made, and a retried task answers from the proposer cache its first try filled.
 */
function spent(ledger: unknown) {
  const { sessionAttempts: _attempts, ...rest } = ledger as Record<string, unknown>;
  return rest;
}

/** What the method decided per task and mode, without paths or cache flags. */
function decisions(db: Database, runsDir: string) {
  const out: Record<string, unknown> = {};
  for (let d = 1; d <= 4; d++) {
    for (const t of ["ledger-1", "ledger-2"]) {
      const task = d === 1 ? t : `${t}-d${d}`;
      const r = storedTaskRecord(db, KEY, task, 2);
      if (r === null) {
        out[task] = null;
        continue;
      }
      const modes = Object.fromEntries(
        Object.entries(r.modes).map(([m, e]) => [
          m,
          e !== undefined && "finals" in e
            ? {
                finals: e.finals,
                ledger: spent(e.ledger),
                keptBase: e.keptBase,
                fellBack: e.fellBack,
              }
            : e,
        ]),
      );
      const selections = JSON.parse(JSON.stringify(r.selections).replaceAll(runsDir, "<runs>"));
      for (const s of Object.values(selections) as { usd?: number }[]) delete s.usd;
      out[task] = { domain: r.domain, modes, selections };
    }
  }
  return out;
}

async function pgRows(addr: PgAddress, query: string): Promise<Record<string, unknown>[]> {
  const sql = new Bun.SQL(addr.url, { max: 1 });
  try {
    return (await sql.unsafe(query)) as Record<string, unknown>[];
  } finally {
    await sql.close();
  }
}

/** The domain a worker took, once one of its tasks has started and not finished. */
async function taskInFlight(addr: PgAddress, w: Worker): Promise<string> {
  return await until("a task of the worker in flight", async () => {
    const took = /took (\S+) of/.exec(w.log())?.[1];
    if (took === undefined) return null;
    const rows = await pgRows(
      addr,
      `SELECT type FROM harness2_events WHERE type IN ('task.started', 'task.finished')
         AND body::json->>'domain' = '${took}' ORDER BY seq`,
    );
    return rows.at(-1)?.type === "task.started" ? took : null;
  });
}

describe("a queued sweep on two workers", () => {
  test("one worker killed mid-task: its domain is retried by the other, and the result equals one process", async () => {
    // The reference: the same sweep in one process, on the embedded store.
    const single = join(root, "single");
    const ref = await runCli(["demo", "--k", "2", "--domains", "4", "--no-tui", "--runs", single], {
      cwd: root,
    });
    expect(ref.code).toBe(0);

    const addr = await freshPgAddress();
    const runs = join(root, "fleet");
    const env = { ...QUEUE_ENV, HARNESS2_DB: addr.url };
    const queued = await runCli(["demo", "--k", "2", "--domains", "4", "--queue", "--runs", runs], {
      cwd: root,
      env,
    });
    expect(queued.code).toBe(0);
    expect(queued.stdout).toContain("4 domain job(s), 8 task(s)");
    const plan = /queued (pln_\w+)/.exec(queued.stdout)?.[1] as string;

    const a = startWorker(addr, runs, "wa");
    const b = startWorker(addr, runs, "wb");
    // Kill wa outright once one of its tasks has started and not finished.
    const victim = await taskInFlight(addr, a);
    a.proc.kill("SIGKILL");
    await a.proc.exited;
    // Its sweep's process goes with it: the reaper ends what the worker started.
    await until(
      "wa's children to end",
      () => processesMentioning("HARNESS2_WORKER=wa").length === 0,
    );

    // wb goes on with the other domains and, once wa's heartbeats are missed, with wa's.
    expect(await b.proc.exited).toBe(0);
    expect(b.log()).toContain(`took ${victim} of ${plan}`);
    expect(b.log()).toContain("the queue is empty; exiting");

    const jobs = await pgRows(
      addr,
      `SELECT data->>'domain' AS domain, state::text AS state, retry_count AS retries
         FROM harness2_queue.job WHERE name = 'harness2-domains' ORDER BY 1`,
    );
    expect(jobs.map((j) => j.domain)).toEqual(DOMAINS);
    expect(jobs.every((j) => j.state === "completed")).toBe(true);
    expect(jobs.find((j) => j.domain === victim)?.retries).toBe(1);

    // Zero duplicate rows: every task finished ok exactly once across the fleet's sweeps.
    const finished = await pgRows(
      addr,
      `SELECT body::json->>'task' AS task, count(*)::int AS n FROM harness2_events
         WHERE type = 'task.finished' AND body::json->>'status' = 'ok' GROUP BY 1 ORDER BY 1`,
    );
    expect(finished).toHaveLength(8);
    expect(finished.every((r) => r.n === 1)).toBe(true);
    const doubled = await pgRows(
      addr,
      "SELECT origin, origin_seq FROM harness2_events GROUP BY 1, 2 HAVING count(*) > 1",
    );
    expect(doubled).toEqual([]);

    // Order kept in every domain: ledger-2 starts only after ledger-1 finished.
    for (const [i, domain] of DOMAINS.entries()) {
      const suffix = i === 0 ? "" : `-d${i + 1}`;
      const seqOf = async (type: string, task: string, pick: "min" | "max") =>
        Number(
          (
            await pgRows(
              addr,
              `SELECT ${pick}(seq)::text AS s FROM harness2_events WHERE type = '${type}'
                 AND body::json->>'task' = '${task}${suffix}'`,
            )
          )[0]?.s,
        );
      expect(await seqOf("task.started", "ledger-2", "min")).toBeGreaterThan(
        await seqOf("task.finished", "ledger-1", "max"),
      );
      expect(domain).toBeTruthy();
    }

    const view = (await PgStore.open(addr, { create: false })) as PgStore;
    const sqlite = openStore(join(single, "harness2.db"), { readonly: true });
    try {
      expect(decisions(view.db, runs)).toEqual(decisions(sqlite, single));
      expect(tree(join(runs, "demo", "library"))).toEqual(tree(join(single, "demo", "library")));
      expect(Object.keys(tree(join(runs, "demo", "library"))).length).toBeGreaterThan(40);
    } finally {
      sqlite.close();
      await view.close();
    }

    const watched = await runCli(["watch", "--once", "--runs", runs], { cwd: root, env });
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain(`plan ${plan}: 4 domain(s), 4 completed`);
    // Each finished domain names the worker that ran it last: the victim's is wb.
    expect(watched.stdout).toMatch(new RegExp(`\\n${victim} +completed +1 +wb +2 +0\\n`));
    // The plan stands for its domains' sweeps: judged in turn, reported as one table, with the
    // retried domain counted once.
    const judged = await runCli(["judge", plan, "--bases", "--runs", runs], { cwd: root, env });
    expect(judged.code).toBe(0);
    expect(judged.stdout).toContain(`next: `);
    expect(judged.stdout).toContain(`report ${plan}`);
    const report = await runCli(["report", plan, "--runs", runs], { cwd: root, env });
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/parallel +2 +8 +8 +1\.000 +1\.000 +0\.000 +\+1\.000/);
    expect(report.stdout).toMatch(/sequential +2 +8 +8 +1\.000/);
    const one = await runCli(["show", plan, "--runs", runs], { cwd: root, env });
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(`plan ${plan} holds 4 sweeps (one per domain)`);
    // The shared store names who ran what: the victim's domain was begun by wa, finished by wb.
    const listed = await runCli(["runs", "--json", "--runs", runs], { cwd: root, env });
    const ran = (
      JSON.parse(listed.stdout).sweeps as { worker: { name: string; domains: string[] } }[]
    )
      .map((s) => `${s.worker.name}:${s.worker.domains.join(",")}`)
      .sort();
    expect(ran).toContain(`wa:${victim}`);
    expect(ran).toContain(`wb:${victim}`);
    expect(new Set(ran.map((r) => r.split(":")[1])).size).toBe(4);
  }, 240_000);

  test("SIGTERM stops a worker cleanly and leaves its job to be retried", async () => {
    const addr = await freshPgAddress();
    const runs = join(root, "term");
    const env = { ...QUEUE_ENV, HARNESS2_DB: addr.url };
    const queued = await runCli(["demo", "--k", "2", "--domains", "2", "--queue", "--runs", runs], {
      cwd: root,
      env,
    });
    expect(queued.code).toBe(0);
    const c = startWorker(addr, runs, "wc");
    // Once its sweep is under way, so the interruption has a sweep to be recorded in.
    const took = await taskInFlight(addr, c);
    c.proc.kill("SIGTERM");
    expect(await c.proc.exited).toBe(0);
    expect(c.log()).toContain(`${took} of`);
    expect(c.log()).toMatch(/stopped after [\d.]+ s; the job is left to be retried/);
    const left = await pgRows(
      addr,
      `SELECT state::text AS state FROM harness2_queue.job WHERE data->>'domain' = '${took}'`,
    );
    expect(left.map((r) => r.state)).toEqual(["retry"]);
    // The interrupted sweep says so in the store; another worker finishes the plan.
    const d = startWorker(addr, runs, "wd");
    expect(await d.proc.exited).toBe(0);
    const runsList = await runCli(["runs", "--runs", runs, "--json"], { cwd: root, env });
    const statuses = (JSON.parse(runsList.stdout).sweeps as { status: string }[]).map(
      (s) => s.status,
    );
    expect(statuses).toContain("interrupted");
    expect(statuses.filter((s) => s === "ok").length).toBeGreaterThanOrEqual(2);
  }, 180_000);

  test("a worker is refused a runs directory that is not the sweep's, and a store of no PostgreSQL", async () => {
    const addr = await freshPgAddress();
    const runs = join(root, "bound");
    const env = { ...QUEUE_ENV, HARNESS2_DB: addr.url };
    expect(
      (await runCli(["demo", "--k", "1", "--queue", "--runs", runs], { cwd: root, env })).code,
    ).toBe(0);
    const other = await runCli(["worker", "--runs", join(root, "elsewhere")], { cwd: root, env });
    expect(other.code).toBe(1);
    expect(other.stderr.trim().split("\n")).toHaveLength(1);
    expect(other.stderr).toContain("is not the runs directory of the store");
    const checked = await runCli(["check", "--bench", "demo", "--runs", join(root, "elsewhere")], {
      cwd: root,
      env,
    });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      `FAIL  fleet runs directory: the store at ${addr.where} runs its sweeps in ${runs}, not ${join(root, "elsewhere")}.`,
    );
    const fine = await runCli(["check", "--bench", "demo", "--runs", runs], { cwd: root, env });
    expect(fine.stdout).toContain(`ok    fleet runs directory: ${runs} (the store's)`);
    const local = await runCli(["worker", "--runs", runs], { cwd: root });
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("needs the shared PostgreSQL store");
    const queueLocal = await runCli(["demo", "--queue", "--runs", join(root, "x")], { cwd: root });
    expect(queueLocal.code).toBe(2);
    expect(queueLocal.stderr).toContain("run --queue needs the shared PostgreSQL store");
    const badPoll = await runCli(["demo", "--queue", "--runs", runs], {
      cwd: root,
      env: { ...env, HARNESS2_QUEUE_POLL_S: "0" },
    });
    expect(badPoll.code).toBe(1);
    expect(badPoll.stderr.trim()).toBe(
      "harness2 demo: HARNESS2_QUEUE_POLL_S=0 is not an integer ≥ 1. Fix: set HARNESS2_QUEUE_POLL_S to one",
    );
  }, 120_000);

  test("planning again keeps a domain's open job and replaces one that failed for good", async () => {
    const addr = await freshPgAddress();
    const runs = join(root, "again");
    const env = { ...QUEUE_ENV, HARNESS2_DB: addr.url };
    const plan = () => runCli(["demo", "--k", "1", "--queue", "--runs", runs], { cwd: root, env });
    const jobs = async () =>
      (
        await pgRows(
          addr,
          "SELECT state::text AS state FROM harness2_queue.job WHERE name = 'harness2-domains' ORDER BY created_on",
        )
      ).map((r) => r.state);
    expect((await plan()).stdout).toContain("queued pln_");
    const second = await plan();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("0 domain job(s)");
    expect(second.stdout).toContain("still queued or running: left as it is");
    expect(await jobs()).toEqual(["created"]);
    // A job that used up its retries holds back its key: planning again puts a new one in its place.
    await pgRows(
      addr,
      "UPDATE harness2_queue.job SET state = 'failed' WHERE name = 'harness2-domains'",
    );
    const third = await plan();
    expect(third.stdout).toContain("1 domain job(s)");
    expect(third.stdout).toContain("had failed: queued anew");
    expect(await jobs()).toEqual(["created"]);
  }, 120_000);
});
