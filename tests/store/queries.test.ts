// Read side: listing, detail, handle resolution and the per-mode records resume consults.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newSweepId } from "../../store/ids.ts";
import { sweepDetail, sweepTaskNames, taskDetail, taskRecord } from "../../store/queries.ts";
import { listSweeps, resolveRun } from "../../store/sweep-list.ts";
import { RunsListing, SweepDetail } from "../../store/views.ts";
import { BACKENDS, type TestStore } from "./backends.ts";
import { type SyntheticSweep, sweepEvents, taskName } from "./synthetic.ts";

const T0 = Date.UTC(2026, 10, 29, 8, 0, 0);
const A = newSweepId(T0);
const B = newSweepId(T0 + 3_600_000);
const C = newSweepId(T0 + 7_200_000);

for (const backend of BACKENDS) {
  describe(backend.name, () => {
    let store: TestStore;
    let db: Database;

    function record(o: SyntheticSweep): void {
      const w = store.writer();
      for (const ev of sweepEvents(o)) w.emit(ev);
      w.close();
    }

    beforeAll(async () => {
      store = await backend.open();
      // A: finished; every 3rd task trips a tripwire and ends partial.
      record({ sweep: A, t0: T0, domains: 2, tasksPerDomain: 2, tripEvery: 3 });
      // B: killed while its second task was running.
      record({ sweep: B, t0: T0 + 3_600_000, domains: 1, tasksPerDomain: 3, stopInTask: 2 });
      // C: a later agg-only run of the same first task.
      record({ sweep: C, t0: T0 + 7_200_000, domains: 1, tasksPerDomain: 1, modes: ["agg"] });
      db = await store.view();
    });
    afterAll(async () => {
      await store.close();
    });

    describe("listSweeps", () => {
      test("newest first, with task counts, spend and duration", () => {
        const sweeps = listSweeps(db);
        expect(RunsListing.parse({ store: "x", sweeps }).sweeps).toHaveLength(3);
        expect(sweeps.map((s) => s.id)).toEqual([C, B, A]);
        const a = sweeps[2]!;
        expect(a.status).toBe("failed");
        expect(a.tasks).toEqual({
          total: 4,
          ok: 3,
          failed: 1,
          running: 0,
          interrupted: 0,
          skipped: 0,
          withProblems: 0,
        });
        // Per task: 2 base rollouts at $0.01 and 12 stage sessions at $0.02.
        expect(a.usd).toBeCloseTo(4 * (0.02 + 0.24), 6);
        expect([a.bench, a.substrate, a.ks, a.modes, a.seed]).toEqual([
          "demo",
          "oc",
          [2],
          ["agg", "seq"],
          null,
        ]);
        expect(a.startedAt).toBe(new Date(T0 + 1000).toISOString());
        expect(a.durationS).toBeGreaterThan(0);
      });

      test("a sweep with no recorded end is unfinished unless a live process holds its lock", async () => {
        expect(listSweeps(db).find((s) => s.id === B)?.status).toBe("unfinished");
        // Its task was in progress when it stopped: stopped, not running.
        expect(listSweeps(db).find((s) => s.id === B)?.tasks).toMatchObject({
          running: 0,
          interrupted: 1,
        });
        const lock = await store.lock("demo-oc-agg2", "d0", B);
        try {
          const seen = await store.view();
          expect(listSweeps(seen).find((s) => s.id === B)?.status).toBe("running");
          expect(listSweeps(seen).find((s) => s.id === B)?.tasks).toMatchObject({
            running: 1,
            interrupted: 0,
          });
        } finally {
          await lock.release();
        }
      });

      test("limit keeps the newest", () => {
        expect(listSweeps(db, { limit: 1 }).map((s) => s.id)).toEqual([C]);
      });
    });

    describe("sweepDetail", () => {
      test("per task and mode: stages, ledger counts, selection, tripwires, library", () => {
        const d = sweepDetail(db, A);
        expect(d).not.toBeNull();
        const detail = SweepDetail.parse(d);
        expect(detail.sweep.argv).toEqual(["run", "--bench", "demo", "--k", "2"]);
        expect(detail.tasks.map((t) => t.task)).toEqual([
          taskName(0, 0),
          taskName(0, 1),
          taskName(1, 0),
          taskName(1, 1),
        ]);
        const t1 = detail.tasks[0]!;
        expect(t1.id).toMatch(/^tsk_/);
        expect(t1.modes.map((m) => m.mode)).toEqual(["agg", "seq"]);
        const agg = t1.modes[0]!;
        expect([agg.status, agg.R, agg.P, agg.expectedR, agg.expectedP]).toEqual([
          "ok",
          8,
          6,
          8,
          6,
        ]);
        expect(agg.stages.map((s) => `${s.label}:${s.status}`)).toEqual([
          "inv1:ok",
          "dom1:fell back",
          "inv2:ok",
          "dom2:ok",
          "agg1:ok",
          "agg2:ok",
        ]);
        expect(agg.ledger).toHaveLength(14);
        expect(agg.ledger.slice(0, 3).map((e) => `${e.kind}:${e.label}`)).toEqual([
          "rollout:base1",
          "rollout:base2",
          "session:inv1",
        ]);
        expect(agg.selection?.chosenLabel).toBe("agg2");
        expect(agg.selection?.idMap).toEqual({ A: "agg1", B: "agg2" });
        expect(agg.selection?.fallback).toBe(false);
        expect(agg.library.map((l) => l.entry)).toEqual([taskName(0, 0).replaceAll("/", "__")]);
        expect(agg.tripwires).toEqual([]);
        expect(t1.modes[1]?.selection?.chosenLabel).toBe("c2");
        expect(t1.rollouts.filter((r) => r.label.startsWith("base"))).toHaveLength(2);
        expect(t1.calls).toHaveLength(12);
        const tripped = detail.tasks[2]!;
        expect(tripped.status).toBe("partial");
        expect(tripped.modes[0]?.tripwires.map((t) => [t.kind, t.where, t.marker])).toEqual([
          ["grader_verdict", "inv1", "PASSED"],
        ]);
      });

      test("work that was running when its sweep stopped shows as interrupted", () => {
        const d = sweepDetail(db, B)!;
        expect(d.sweep.status).toBe("unfinished");
        expect(d.tasks.map((t) => t.status)).toEqual(["ok", "interrupted"]);
      });

      test("unknown ids give null; a task filter narrows to that task", () => {
        expect(sweepDetail(db, "swp_nope")).toBeNull();
        expect(taskDetail(db, A, taskName(1, 1)).map((t) => t.task)).toEqual([taskName(1, 1)]);
        expect(taskDetail(db, A, "nope")).toEqual([]);
        expect(sweepTaskNames(db, B)).toEqual([taskName(0, 0), taskName(0, 1)]);
      });
    });

    describe("resolveRun", () => {
      test("last, a full id, a unique prefix with or without swp_, any case", () => {
        expect(resolveRun(db, "last")).toEqual({ kind: "found", id: C });
        expect(resolveRun(db, A)).toEqual({ kind: "found", id: A });
        const unique = (id: string, others: string[]) => {
          for (let n = 5; n <= id.length; n++) {
            const p = id.slice(0, n);
            if (!others.some((o) => o.startsWith(p))) return p;
          }
          return id;
        };
        const p = unique(B, [A, C]);
        expect(resolveRun(db, p)).toEqual({ kind: "found", id: B });
        expect(resolveRun(db, p.slice(4).toUpperCase())).toEqual({ kind: "found", id: B });
      });

      test("an ambiguous prefix lists the candidates, newest first; an unknown one says none", () => {
        expect(resolveRun(db, "swp_")).toEqual({
          kind: "ambiguous",
          handle: "swp_",
          candidates: [C, B, A],
        });
        expect(resolveRun(db, "swp_zzzz")).toEqual({ kind: "none", handle: "swp_zzzz" });
      });
    });

    describe("taskRecord (what resume consults)", () => {
      const ns = { bench: "demo", substrate: "oc", seed: null, tag: "" };

      test("per mode, the newest record in which that mode finished", () => {
        const r = taskRecord(db, ns, taskName(0, 0), 2);
        expect(r.latest?.sweepId).toBe(C);
        expect(r.modes.agg?.sweepId).toBe(C);
        // B finished this task (both modes) before it was killed; C ran agg only.
        expect(r.modes.seq?.sweepId).toBe(B);
        expect(r.modes.agg?.selection).toMatchObject({
          ok: true,
          chosenLabel: "agg2",
          harnessFingerprint: "0123456789abcdef",
          evidence: "deliverable",
        });
        expect(r.modes.agg?.selection?.chosenRunDir).toContain("agg2");
      });

      test("running records never count; another k or namespace has no record", () => {
        expect(taskRecord(db, { sweep: B }, taskName(0, 1), 2).latest).toBeNull();
        expect(taskRecord(db, ns, taskName(0, 0), 3).latest).toBeNull();
        expect(taskRecord(db, { ...ns, seed: 7 }, taskName(0, 0), 2).latest).toBeNull();
        expect(taskRecord(db, { sweep: A }, taskName(0, 0), 2).latest?.sweepId).toBe(A);
      });
    });
  });
}
