// `harness2 report --html FILE` (issue 16 §11): one self-contained page (no script, no request)
// from the same Report object as --json: the table's numbers, score and delta charts, per-task
// deltas in stream order, the spend split; and its refusals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderHtml } from "../../src/judge/report-html.ts";
import { runCli } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-report-html-"));
const RUNS = join(ROOT, "runs");
beforeAll(async () => {
  for (const args of [
    ["demo", "--no-tui", "--k", "1"],
    ["judge", "--bases"],
  ]) {
    const r = await runCli([...args, "--runs", RUNS]);
    if (r.code !== 0) throw new Error(`${args[0]} failed: ${r.stderr}`);
  }
}, 120_000);
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

describe("report --html", () => {
  test("a self-contained page with the report's own numbers and its charts", async () => {
    const file = join(ROOT, "report.html");
    const r = await runCli(["report", "--html", file, "--runs", RUNS]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote ${file} (2 mode × k cell(s))\n`);
    const html = readFileSync(file, "utf8");
    expect(html).toStartWith("<!doctype html>");
    // Nothing is fetched: no script, no external reference of any kind.
    expect(html).not.toMatch(/<script|https?:\/\/|<link|@import|url\(/);
    const json = JSON.parse((await runCli(["report", "--json", "--runs", RUNS])).stdout);
    for (const m of json.summaries) {
      expect(html).toContain(`<td>${m.name}</td>`);
      expect(html).toContain(`<td>${m.delta.mean >= 0 ? "+" : ""}${m.delta.mean.toFixed(3)}`);
    }
    for (const caption of [
      "Score (0 … 1), with its 95% interval",
      "Δ vs base harness (−1 … +1), with its paired 95% interval",
      "Spend per mode and k",
    ]) {
      expect(html).toContain(`<figcaption>${caption}`);
    }
    // score, delta, spend, score against spend, and one per-task chart per mode
    expect(html).toContain("<figcaption>Score against spend, per mode and k");
    expect((html.match(/<svg /g) ?? []).length).toBe(4 + json.summaries.length);
    // Per-task deltas: ledger-1 before ledger-2, the stream order.
    const perTask = html.slice(html.indexOf("Per-task delta"));
    expect(perTask.indexOf(">ledger-1<")).toBeLessThan(perTask.indexOf(">ledger-2<"));
  });

  test("a label of any length is drawn whole, and the spend totals say what they are", async () => {
    // Issue 35: labels over ~20 characters (every JobBench and LAB task id) were clipped.
    const json = JSON.parse((await runCli(["report", "--json", "--runs", RUNS])).stdout);
    const long = "employment/wrongful-termination-review-of-a-long-contract";
    json.summaries[0].delta.perTask[0].task = long;
    const html = renderHtml(json);
    const svg = html.slice(html.lastIndexOf("<svg", html.indexOf(`>${long}<`)));
    const label = svg.match(/<text x="([\d.]+)"[^>]*class="label"><title>([^<]+)<\/title>/);
    expect(label?.[2]).toBe(long);
    // The text ends at x, drawn right to left: it fits when x is at least its width.
    expect(Number(label?.[1])).toBeGreaterThanOrEqual(long.length * 7);
    const width = Number(svg.match(/width="([\d.]+)"/)?.[1]);
    expect(width).toBeGreaterThan(Number(label?.[1]));
    expect(html).toContain("<th>spend (improver + executor)</th>");
    expect(html).toMatch(/class="value">total \$/);
  });

  test("the lineage of every task's candidates, folded, in stream order, with its pick", async () => {
    const file = join(ROOT, "lineage.html");
    expect((await runCli(["report", "--html", file, "--runs", RUNS])).code).toBe(0);
    const html = readFileSync(file, "utf8");
    const section = html.slice(html.indexOf("<h2>Lineage of the candidates</h2>"));
    const summaries = [...section.matchAll(/<summary>([^<]+)<\/summary>/g)].map((m) => m[1]);
    expect(summaries.map((t) => t?.split(" · ").slice(0, 3).join(" · "))).toEqual([
      "ledger-1 · parallel k=1 · pick agg1",
      "ledger-1 · sequential k=1 · pick c1",
      "ledger-2 · parallel k=1 · pick agg1",
      "ledger-2 · sequential k=1 · pick c1",
    ]);
    // The tree show draws: the proposals from the base, the final composed from them, ★ the pick.
    const first = section.slice(section.indexOf("<pre>"), section.indexOf("</pre>"));
    expect(first).toContain("├─ inv1 accepted");
    expect(first).toContain("└─ composed from every proposal above:");
    expect(first).toMatch(/agg1 \w+ \$[\d.]+ {2}★ picked/);
    // --modes narrows it as it narrows the figures.
    const only = join(ROOT, "lineage-seq.html");
    await runCli(["report", "--html", only, "--modes", "sequential", "--runs", RUNS]);
    expect(readFileSync(only, "utf8")).not.toContain("parallel k=1 · pick");
  });

  test("score against spend places each mode and k by its total spend and its score", async () => {
    const json = JSON.parse((await runCli(["report", "--json", "--runs", RUNS])).stdout);
    const one = json.summaries[0];
    const cells = [1, 2, 4].map((k, i) => ({
      ...one,
      k,
      name: `parallel k=${k}`,
      score: [0.5, 0.6, 0.75][i],
      spend: { ...one.spend, improver: k, executor: k },
    }));
    const html = renderHtml({ ...json, summaries: cells });
    const chart = html.slice(html.indexOf('aria-label="score against spend"'));
    const dots = [...chart.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(dots).toHaveLength(3);
    // More spend is further right, a higher score higher up (smaller y).
    expect(dots[0]?.[0]).toBeLessThan(dots[1]?.[0] as number);
    expect(dots[1]?.[0]).toBeLessThan(dots[2]?.[0] as number);
    expect(dots[0]?.[1]).toBeGreaterThan(dots[2]?.[1] as number);
    expect(chart).toContain("<title>parallel k=4: score 0.750 for $8.0000</title>");
    // One scored cell is no comparison: no chart.
    expect(renderHtml({ ...json, summaries: [cells[0]] })).not.toContain("score against spend");
  });

  test("refusals: exclusive with --json, a missing folder, a directory", async () => {
    const cases: [string[], string][] = [
      [["--html", join(ROOT, "a.html"), "--json"], "--json, --markdown and --html are exclusive"],
      [["--html", join(ROOT, "no", "such", "r.html")], "does not exist"],
      [["--html", ROOT], "is a directory"],
    ];
    for (const [args, text] of cases) {
      const r = await runCli(["report", ...args, "--runs", RUNS]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(text);
    }
    expect(existsSync(join(ROOT, "a.html"))).toBe(false);
  });
});
