// Both modes of a task at once (HARNESS2_MODES_AT_ONCE=2, the default) record exactly what one
// after the other (=1) records: the same ledgers, stages, selections, library entries and
// rollouts in the store, the same summaries and the same library files — and they really do
// overlap (the sequential mode starts before the parallel one finishes).
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { allFiles } from "../helpers/files.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-modes-at-once-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

/** The store's method records with run-specific values (ids, times, paths) taken out. */
function records(runs: string): Record<string, unknown[]> {
  const db = new Database(join(runs, "harness2.db"), { readonly: true });
  const task = (id: unknown) =>
    (
      db.query("SELECT domain || '/' || task AS t FROM tasks WHERE id = ?").get(String(id)) as {
        t: string;
      }
    ).t;
  const rows = (sql: string) =>
    (db.query(sql).all() as Record<string, unknown>[]).map((r) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) {
        if (k === "task_id") out.task = task(v);
        else out[k] = typeof v === "string" ? v.split(runs).join("<runs>") : v;
      }
      return out;
    });
  try {
    const ordered = (table: string, cols: string, order: string) =>
      rows(`SELECT ${cols} FROM ${table}`).sort(
        (a, b) =>
          order
            .split(",")
            .map((c) => String(a[c]).localeCompare(String(b[c]), "en", { numeric: true }))
            .find((x) => x !== 0) ?? 0,
      );
    return {
      ledger: ordered(
        "ledger_entries",
        "task_id, mode, seq, kind, label, usd, cached, attempts, r, p",
        "task,mode,seq",
      ),
      stages: ordered(
        "stages",
        "task_id, mode, label, dim, fell_back, kept_base, attempts, usd, error, notes",
        "task,mode,label",
      ),
      modes: ordered(
        "modes",
        "task_id, mode, status, r, p, fell_back, kept_base, similarity, usd, error, reflection_ok",
        "task,mode",
      ),
      selections: ordered(
        "selections",
        "task_id, mode, chosen_label, ok, fallback, trivial, usd, harness_fingerprint, output_digest, experience",
        "task,mode",
      ),
      library: ordered(
        "library_entries",
        "task_id, mode, cue, lesson, confidence, path",
        "task,mode",
      ),
      rollouts: ordered(
        "rollouts",
        "task_id, label, run_id, ok, delivered, usd, reused",
        "task,run_id",
      ),
      calls: ordered(
        "proposer_calls",
        "task_id, mode, label, purpose, cached, usd, error",
        "task,mode,label,purpose",
      ),
    };
  } finally {
    db.close();
  }
}

/** Every library file, by its path under the library, with run paths taken out. */
function library(runs: string): Record<string, string> {
  const root = join(runs, "demo", "library");
  const out: Record<string, string> = {};
  for (const f of allFiles(root))
    out[relative(root, f)] = readFileSync(f, "utf8").split(runs).join("<runs>");
  return out;
}

function summaries(runs: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of allFiles(join(runs, "demo", "runs")).filter((p) => p.endsWith("summary.json"))) {
    out[relative(runs, f)] = JSON.parse(readFileSync(f, "utf8").split(runs).join("<runs>"));
  }
  return out;
}

test(
  "both modes at once record what one mode after the other records, and overlap",
  async () => {
    const demo = async (modesAtOnce: string) => {
      const runs = join(ROOT, `m${modesAtOnce}`);
      const r = await runCli(["demo", "--json", "--k", "2", "--runs", runs], {
        env: { HARNESS2_MODES_AT_ONCE: modesAtOnce },
      });
      expect(r.code).toBe(0);
      const events = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; task?: string; mode?: string });
      return { runs, events };
    };
    const serial = await demo("1");
    const together = await demo("2");

    const overlap = (events: { type: string; task?: string; mode?: string }[]) => {
      const i = events.findIndex((e) => e.type === "mode.started" && e.mode === "seq");
      const j = events.findIndex((e) => e.type === "mode.finished" && e.mode === "agg");
      return i < j;
    };
    expect(overlap(serial.events)).toBe(false);
    expect(overlap(together.events)).toBe(true);
    // the same events, in another order
    const kinds = (events: { type: string }[]) => events.map((e) => e.type).sort();
    expect(kinds(together.events)).toEqual(kinds(serial.events));

    const a = records(serial.runs);
    const b = records(together.runs);
    expect(a.ledger?.length).toBeGreaterThan(0);
    expect(a.library?.length).toBe(4);
    for (const key of Object.keys(a)) expect({ [key]: b[key] }).toEqual({ [key]: a[key] });
    expect(library(together.runs)).toEqual(library(serial.runs));
    expect(summaries(together.runs)).toEqual(summaries(serial.runs));

    const bad = await runCli(["demo", "--no-tui", "--k", "1", "--runs", join(ROOT, "bad")], {
      env: { HARNESS2_MODES_AT_ONCE: "3" },
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('HARNESS2_MODES_AT_ONCE="3" is not allowed: 1 or 2');
  },
  { timeout: 180_000 },
);
