// Where each candidate came from (issue 34): the lineage of both modes at k = 1, 2 and 4, and as
// `show` prints it for a real demo sweep.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lineageOf } from "../../store/lineage.ts";
import type { ModeView } from "../../store/views.ts";
import { runCli } from "../helpers/cli.ts";

type Stage = ModeView["stages"][number];
const stage = (label: string, dim: string, status: Stage["status"] = "ok"): Stage => ({
  label,
  dim,
  status,
  fellBack: status === "fell back",
  keptBase: status === "kept base",
  attempts: 1,
  usd: 0.5,
  cached: false,
  error: "",
  notes: "",
  harnessDir: "",
});
const rollout = (label: string, usd = 0.25) => ({
  kind: "rollout" as const,
  label,
  usd,
  cached: false,
  attempts: 1,
});

function mode(m: "agg" | "seq", k: number, picked: string) {
  const stages: Stage[] = [];
  const ledger = Array.from({ length: k }, (_, i) => rollout(`base${i + 1}`));
  if (m === "agg") {
    for (let i = 1; i <= k; i++) stages.push(stage(`inv${i}`, "INV"), stage(`dom${i}`, "DOM"));
    for (let i = 1; i <= k; i++) stages.push(stage(`agg${i}`, "AGG", i === 2 ? "fell back" : "ok"));
  } else {
    for (let t = 1; t <= k; t++) {
      stages.push(
        stage(`inv${t}`, "INV"),
        stage(`dom${t}`, "DOM"),
        stage(`c${t}`, "COMPOSE", t === 2 ? "kept base" : "ok"),
      );
    }
  }
  for (const s of stages) ledger.push(rollout(s.label));
  return { mode: m, stages, ledger, selection: { chosenLabel: picked } as ModeView["selection"] };
}

describe("lineageOf", () => {
  for (const k of [1, 2, 4]) {
    test(`parallel, k=${k}: 2k proposals from the base, k finals each from every proposal`, () => {
      const nodes = lineageOf(mode("agg", k, `agg${k}`));
      expect(nodes[0]).toEqual({
        label: "base",
        dim: "BASE",
        from: [],
        outcome: "base",
        usd: 0.25 * k,
        picked: false,
      });
      const proposals = nodes.filter((n) => n.dim === "INV" || n.dim === "DOM");
      expect(proposals).toHaveLength(2 * k);
      for (const p of proposals) expect(p.from).toEqual(["base"]);
      const finals = nodes.filter((n) => n.dim === "AGG");
      expect(finals).toHaveLength(k);
      for (const f of finals) expect(f.from).toEqual(proposals.map((p) => p.label));
      // spend: the session and the candidate's rollout; the pick is marked once
      expect(finals[0]?.usd).toBe(0.75);
      expect(nodes.filter((n) => n.picked).map((n) => n.label)).toEqual([`agg${k}`]);
      if (k >= 2) expect(nodes.find((n) => n.label === "agg2")?.outcome).toBe("fell back");
    });

    test(`sequential, k=${k}: round t edits c(t−1) and composes ct from its two proposals`, () => {
      const nodes = lineageOf(mode("seq", k, "c1"));
      for (let t = 1; t <= k; t++) {
        const start = t === 1 ? "base" : `c${t - 1}`;
        expect(nodes.find((n) => n.label === `inv${t}`)?.from).toEqual([start]);
        expect(nodes.find((n) => n.label === `dom${t}`)?.from).toEqual([start]);
        expect(nodes.find((n) => n.label === `c${t}`)?.from).toEqual([`inv${t}`, `dom${t}`]);
      }
      if (k >= 2) expect(nodes.find((n) => n.label === "c2")?.outcome).toBe("kept base");
      expect(nodes.filter((n) => n.picked).map((n) => n.label)).toEqual(["c1"]);
    });
  }
});

describe("show prints the lineage", () => {
  const root = mkdtempSync(join(tmpdir(), "h2-lineage-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  test("of a demo sweep, in text and in --json, with the pick and the spend", async () => {
    const runs = join(root, "runs");
    const demo = await runCli(["demo", "--no-tui", "--k", "2", "--runs", runs], {
      env: { HARNESS2_DEMO_CALL_USD: "0.01" },
    });
    expect(demo.code).toBe(0);
    const text = await runCli(["show", "last", "ledger-1", "--runs", runs]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/lineage {2}base \$0/);
    expect(text.stdout).toContain("└─ composed from every proposal above:");
    expect(text.stdout).toMatch(
      /→ c1 accepted \$0\.01 {2}\(from inv1 accepted \$0\.01, dom1 accepted \$0\.01\)/,
    );
    expect(text.stdout.match(/★ picked/g)).toHaveLength(2);
    const json = JSON.parse(
      (await runCli(["show", "last", "ledger-1", "--runs", runs, "--json"])).stdout,
    );
    for (const m of json.tasks[0].modes) {
      const picked = m.lineage
        .filter((n: { picked: boolean }) => n.picked)
        .map((n: { label: string }) => n.label);
      expect(picked).toEqual([m.selection.chosenLabel]);
    }
  }, 60_000);
});
