// `harness2 runs` from the outside: table, JSON, locations, empty/missing/refused stores, colour.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../store/db.ts";
import { SCHEMA_VERSION } from "../../store/schema.ts";
import { RunsListing } from "../../store/views.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../store/samples.ts";
import { type BrowseFixture, browseFixture } from "./browse-fixture.ts";

let fx: BrowseFixture;
beforeAll(() => {
  fx = browseFixture();
});
afterAll(() => fx.cleanup());

describe("harness2 runs", () => {
  test("lists sweeps newest first in aligned columns, without colour outside a terminal", async () => {
    const r = await runCli(["runs", "--runs", fx.dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toContain("\u001b[");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    const [head, first, second] = lines as [string, string, string];
    expect(head).toMatch(
      /^ID\s+STARTED\s+STATUS\s+BENCH\s+SUB\s+K\s+MODES\s+OK\s+FAILED\s+PROBLEMS\s+RUNNING\s+STOPPED\s+SKIPPED\s+SPEND\s+DURATION$/,
    );
    expect(first.startsWith(fx.newer)).toBe(true);
    expect(second.startsWith(fx.older)).toBe(true);
    for (const word of ["STARTED", "STATUS", "MODES"]) {
      const col = head.indexOf(word);
      expect(first[col - 1]).toBe(" ");
      expect(second[col - 1]).toBe(" ");
      expect(first[col]).not.toBe(" ");
      expect(second[col]).not.toBe(" ");
    }
    expect(first).toContain("unfinished");
    expect(first).toContain("2026-11-29 09:00Z");
    expect(second).toMatch(
      / failed +demo +oc +2 +parallel\+sequential +3\/4 +1 +0 +0 +0 +0 +\$1\.04 +7m 16s$/,
    );
  });

  test("a narrow terminal keeps ids, statuses and the numbers; empty and wide columns go first", async () => {
    const r = await runCli(["runs", "--runs", fx.dir], { env: { COLUMNS: "60" } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
    const head = lines[0] as string;
    for (const col of ["ID", "STATUS", "OK", "FAILED", "SPEND", "DURATION"])
      expect(head).toContain(col);
    expect(head).not.toContain("STOPPED");
    expect(lines.at(-1)).toMatch(/^\(\d+ column\(s\) hidden to fit 60; --json has them all\)$/);
    // The older sweep's numbers are all still there, and its shortened id is a working handle.
    const older = lines.find((l) => l.includes("failed")) as string;
    expect(older).toMatch(/ 3\/4 +1 .*\$1\.04 +7m 16s$/);
    const id = older.split(" ")[0] as string;
    expect(fx.older.startsWith(id)).toBe(true);
    const shown = await runCli(["show", id, "--runs", fx.dir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(fx.older);
    // Wide enough, nothing is hidden; to a pipe (no COLUMNS), every column stays.
    const wide = await runCli(["runs", "--runs", fx.dir], { env: { COLUMNS: "400" } });
    expect(wide.stdout).not.toContain("hidden to fit");
    expect(wide.stdout).toContain("STOPPED");
  });

  test("--json prints the documented shape", async () => {
    const r = await runCli(["runs", "--json", "--runs", fx.dir]);
    expect(r.code).toBe(0);
    const listing = RunsListing.parse(JSON.parse(r.stdout));
    expect(listing.store).toBe(fx.dbPath);
    expect(listing.sweeps.map((s) => s.id)).toEqual([fx.newer, fx.older]);
    const older = listing.sweeps[1]!;
    expect(older.status).toBe("failed");
    expect(older.tasks).toEqual({
      total: 4,
      ok: 3,
      failed: 1,
      running: 0,
      interrupted: 0,
      skipped: 0,
      withProblems: 0,
    });
    expect(older.usd).toBeCloseTo(1.04, 6);
    expect(older.startedAt).toBe("2026-11-29T08:00:01.000Z");
    // The newer sweep stopped without an end and no process holds it: its task was stopped.
    expect(listing.sweeps[0]?.status).toBe("unfinished");
    expect(listing.sweeps[0]?.tasks).toMatchObject({ running: 0, interrupted: 1 });
  });

  test("--limit keeps the newest; a bad --limit is a usage error", async () => {
    const r = await runCli(["runs", "--json", "--limit", "1", "--runs", fx.dir]);
    expect(RunsListing.parse(JSON.parse(r.stdout)).sweeps.map((s) => s.id)).toEqual([fx.newer]);
    const bad = await runCli(["runs", "--limit", "0", "--runs", fx.dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--limit");
  });

  test("HARNESS2_RUNS_DIR and HARNESS2_DB locate the store", async () => {
    const viaRuns = await runCli(["runs"], { env: { HARNESS2_RUNS_DIR: fx.dir } });
    expect(viaRuns.stdout).toContain(fx.older);
    const viaDb = await runCli(["runs", "--runs", "/nonexistent"], {
      env: { HARNESS2_DB: fx.dbPath },
    });
    expect(viaDb.stdout).toContain(fx.older);
  });

  test("a missing store is a friendly line, exit 0, and nothing is created", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const r = await runCli(["runs", "--runs", join(dir, "runs")]);
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split("\n")).toHaveLength(1);
      expect(r.stdout).toContain("No runs yet");
      expect(existsSync(join(dir, "runs"))).toBe(false);
      const j = await runCli(["runs", "--json", "--runs", join(dir, "runs")]);
      expect(JSON.parse(j.stdout)).toEqual({ store: join(dir, "runs", "harness2.db"), sweeps: [] });
    } finally {
      cleanup();
    }
  });

  test("a mistyped runs directory (not even its parent exists) is an error, not 'no runs yet'", async () => {
    const typo = join(tmpdir(), `h2-no-such-${process.pid}`, "dir");
    for (const cmd of [["runs"], ["show", "last"], ["report", "last"], ["judge", "last"]]) {
      const r = await runCli([...cmd, "--runs", typo]);
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 2 });
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(`the runs directory ${typo} does not exist`);
      expect(r.stdout).not.toContain("No runs yet");
    }
    const viaEnv = await runCli(["runs"], { env: { HARNESS2_RUNS_DIR: typo } });
    expect(viaEnv.code).toBe(1);
    expect(viaEnv.stderr).toContain("check the path given by HARNESS2_RUNS_DIR");
    expect(existsSync(typo)).toBe(false);
  });

  test("an empty store is a friendly line, exit 0", async () => {
    const { dir, cleanup } = tempDir();
    try {
      openStore(join(dir, "harness2.db")).close();
      const r = await runCli(["runs", "--runs", dir]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`No sweeps recorded yet in ${join(dir, "harness2.db")}.\n`);
    } finally {
      cleanup();
    }
  });

  test("a corrupt or newer store is refused in one line, exit 1, and left untouched", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const garbage = join(dir, "garbage.db");
      writeFileSync(garbage, "not a database, just text\n".repeat(300));
      const before = readFileSync(garbage);
      const r = await runCli(["runs"], { env: { HARNESS2_DB: garbage } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(garbage);
      expect(r.stderr).toContain("not a readable harness2 store");
      expect(readFileSync(garbage).equals(before)).toBe(true);

      const newer = join(dir, "newer.db");
      openStore(newer).close();
      const raw = new Database(newer);
      raw.run(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
      raw.close();
      const n = await runCli(["runs"], { env: { HARNESS2_DB: newer } });
      expect(n.code).toBe(1);
      expect(n.stderr).toContain("newer harness2");
      expect(n.stderr.trim().split("\n")).toHaveLength(1);
    } finally {
      cleanup();
    }
  });

  test("appears in the command list", async () => {
    const r = await runCli(["--help"]);
    expect(r.stdout).toMatch(/\n {2}runs +List past sweeps/);
    expect(r.stdout).toMatch(/\n {2}show +Show one sweep/);
  });
});

describe("runs text rendering", () => {
  test("colours status only on a terminal without NO_COLOR, keeping the columns aligned", async () => {
    const { renderRuns } = await import("../../src/cli/commands/runs.ts");
    const j = await runCli(["runs", "--json", "--runs", fx.dir]);
    const { sweeps } = RunsListing.parse(JSON.parse(j.stdout));
    const io = (isTTY: boolean, env: Record<string, string>) => ({
      stdout: () => {},
      stderr: () => {},
      isTTY,
      env,
      cwd: fx.dir,
    });
    const coloured = renderRuns(sweeps, io(true, {}));
    expect(coloured).toContain("\u001b[31mfailed");
    expect(coloured).toContain("\u001b[31munfinished");
    const plain = renderRuns(sweeps, io(false, {}));
    expect(plain).not.toContain("\u001b[");
    expect(renderRuns(sweeps, io(true, { NO_COLOR: "1" }))).toBe(plain);
    // Stripping the codes gives back exactly the plain table.
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, "")).toBe(plain);
  });

  test("names the worker and domains of each sweep once a fleet ran in the store", async () => {
    const { renderRuns } = await import("../../src/cli/commands/runs.ts");
    const j = await runCli(["runs", "--json", "--runs", fx.dir]);
    const { sweeps } = RunsListing.parse(JSON.parse(j.stdout));
    const io = { stdout: () => {}, stderr: () => {}, isTTY: false, env: {}, cwd: fx.dir };
    expect(sweeps.every((s) => s.worker === null)).toBe(true);
    expect(renderRuns(sweeps, io)).not.toContain("WORKER");
    const fleet = sweeps.map((s, i) =>
      i === 0 ? { ...s, worker: { name: "node-7:4411", domains: ["tax", "audit"] } } : s,
    );
    const lines = renderRuns(fleet, io).trimEnd().split("\n");
    expect(lines[0]).toMatch(/WORKER +DOMAINS$/);
    expect(lines[1]).toMatch(/node-7:4411 +tax,audit$/);
    expect(lines[2]).toMatch(/ - +-$/);
  });
});
