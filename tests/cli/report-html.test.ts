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
    expect((html.match(/<svg /g) ?? []).length).toBe(3 + json.summaries.length);
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
