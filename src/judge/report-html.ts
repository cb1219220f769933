// `harness2 report --html FILE`: the report as one self-contained page — no script, no font, no
// request of any kind — built from the same Report object `--json` prints: score and paired delta
// per mode and k with their 95% intervals, the per-task deltas in stream order (does the library
// help later tasks?), the spend split, score against spend across k, and (when given) the lineage
// of every task's candidates. Charts are inline SVG; the lineage is folded `<details>`.

import { fixed3 as f3, interval, signed3 as signed } from "../core/lib/format.ts";
import type { ModeSummary, Report, Spread } from "../core/report/types.ts";

const esc = (s: string) =>
  s
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
// The report's own number texts (lib/format), so the page and `harness2 report` agree on a digit.
const ci = (s: Spread, opts: { signed?: boolean } = {}) =>
  s.low === null || s.high === null ? "" : ` ${interval(s, opts)}`;
const usd = (x: number) => `$${x.toFixed(4)}`;

/** The plot's width; the label column grows with the longest label (task ids run long). */
const PLOT_W = 490;
const ROW = 26;
/** About the width of one character of the 12 px label font. */
const CHAR_W = 7.2;

/** The label column's width for these labels: every label whole, at least 150 px. */
function labelWidth(labels: readonly string[]): number {
  return Math.max(150, Math.ceil(Math.max(0, ...labels.map((l) => l.length)) * CHAR_W) + 16);
}

/** Horizontal bars over [lo, hi], one per row, with an optional interval whisker. */
function barChart(
  title: string,
  rows: readonly {
    label: string;
    value: number | null;
    low?: number | null;
    high?: number | null;
  }[],
  lo: number,
  hi: number,
): string {
  const LABEL = labelWidth(rows.map((r) => r.label));
  const W = LABEL + PLOT_W;
  const plot = W - LABEL - 70;
  const x = (v: number) => LABEL + ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * plot;
  const zero = x(Math.max(lo, Math.min(hi, 0)));
  const h = rows.length * ROW + 30;
  const parts = [
    `<svg role="img" aria-label="${esc(title)}" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}">`,
  ];
  parts.push(`<line x1="${zero}" y1="4" x2="${zero}" y2="${h - 22}" class="axis"/>`);
  parts.push(
    `<text x="${x(lo)}" y="${h - 6}" class="tick">${lo}</text>`,
    `<text x="${x(hi)}" y="${h - 6}" class="tick" text-anchor="end">${hi >= 0 && lo < 0 ? "+" : ""}${hi}</text>`,
  );
  rows.forEach((r, i) => {
    const y = 6 + i * ROW;
    parts.push(
      `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end" class="label"><title>${esc(r.label)}</title>${esc(r.label)}</text>`,
    );
    if (r.value === null) {
      parts.push(`<text x="${LABEL}" y="${y + 15}" class="none">not graded</text>`);
      return;
    }
    const a = Math.min(zero, x(r.value));
    const b = Math.max(zero, x(r.value));
    const cls = r.value < 0 ? "bar neg" : "bar";
    parts.push(
      `<rect x="${a}" y="${y + 3}" width="${Math.max(1, b - a)}" height="${ROW - 10}" class="${cls}"/>`,
    );
    if (r.low != null && r.high != null) {
      const cy = y + 3 + (ROW - 10) / 2;
      parts.push(`<line x1="${x(r.low)}" y1="${cy}" x2="${x(r.high)}" y2="${cy}" class="ci"/>`);
    }
    parts.push(
      `<text x="${Math.max(b, x(r.high ?? r.value)) + 6}" y="${y + 15}" class="value">${r.value < 0 || lo < 0 ? signed(r.value) : f3(r.value)}</text>`,
    );
  });
  parts.push("</svg>");
  return `<figure><figcaption>${esc(title)}</figcaption>${parts.join("")}</figure>`;
}

/** The spend of each cell as one stacked bar (stages, selection, reflection, executor). */
function spendChart(summaries: readonly ModeSummary[]): string {
  const parts = ["stages", "selection", "reflection", "executor"] as const;
  const total = (s: ModeSummary) => parts.reduce((n, p) => n + s.spend[p], 0);
  const max = Math.max(0, ...summaries.map(total));
  const LABEL = labelWidth(summaries.map((s) => s.name));
  const W = LABEL + PLOT_W;
  const plot = W - LABEL - 90;
  const h = summaries.length * ROW + 34;
  const out = [
    `<svg role="img" aria-label="spend" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}">`,
  ];
  summaries.forEach((s, i) => {
    const y = 6 + i * ROW;
    out.push(
      `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end" class="label">${esc(s.name)}</text>`,
    );
    let x = LABEL;
    for (const p of parts) {
      const w = max === 0 ? 0 : (s.spend[p] / max) * plot;
      if (w > 0)
        out.push(
          `<rect x="${x}" y="${y + 3}" width="${w}" height="${ROW - 10}" class="s-${p}"><title>${p} ${usd(s.spend[p])}</title></rect>`,
        );
      x += w;
    }
    out.push(`<text x="${x + 6}" y="${y + 15}" class="value">total ${usd(total(s))}</text>`);
  });
  const ly = summaries.length * ROW + 22;
  parts.forEach((p, i) => {
    out.push(
      `<rect x="${LABEL + i * 110}" y="${ly - 9}" width="10" height="10" class="s-${p}"/>`,
      `<text x="${LABEL + i * 110 + 14}" y="${ly}" class="tick">${p}</text>`,
    );
  });
  out.push("</svg>");
  return `<figure><figcaption>Spend per mode and k (improver stages, selection, reflection; executor)</figcaption>${out.join("")}</figure>`;
}

/** One task × mode × k's lineage as `show` draws it (src/cli/runs/report-lineage.ts builds them). */
export type LineageBlock = {
  task: string;
  k: number;
  mode: string;
  /** "parallel k=2". */
  name: string;
  pick: string | null;
  /** The mode's whole spend on this task. */
  usd: number;
  lines: string[];
};

/**
 * Score against spend, one point per mode and k (several k, or both modes, make it worth a
 * chart): does paying for more candidates buy a better pick?
 */
function scoreSpendChart(summaries: readonly ModeSummary[]): string {
  const points = summaries
    .filter((s) => s.score !== null)
    .map((s) => ({
      name: s.name,
      score: s.score as number,
      usd: s.spend.improver + s.spend.executor,
    }));
  if (points.length < 2) return "";
  const W = 560;
  const H = 260;
  const L = 50;
  const B = 40;
  const maxUsd = Math.max(...points.map((p) => p.usd)) || 1;
  const x = (usdValue: number) => L + (usdValue / maxUsd) * (W - L - 150);
  const y = (score: number) => H - B - score * (H - B - 16);
  const out = [
    `<svg role="img" aria-label="score against spend" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">`,
    `<line x1="${L}" y1="${y(0)}" x2="${W - 140}" y2="${y(0)}" class="axis"/>`,
    `<line x1="${L}" y1="${y(0)}" x2="${L}" y2="${y(1)}" class="axis"/>`,
    `<text x="${L - 6}" y="${y(0) + 4}" text-anchor="end" class="tick">0</text>`,
    `<text x="${L - 6}" y="${y(1) + 4}" text-anchor="end" class="tick">1</text>`,
    `<text x="${L}" y="${H - 8}" class="tick">$0</text>`,
    `<text x="${x(maxUsd)}" y="${H - 8}" text-anchor="end" class="tick">${usd(maxUsd)}</text>`,
    `<text x="${(L + W - 140) / 2}" y="${H - 8}" text-anchor="middle" class="tick">spend (improver + executor)</text>`,
  ];
  for (const p of points) {
    out.push(
      `<circle cx="${x(p.usd)}" cy="${y(p.score)}" r="5" class="bar"><title>${esc(p.name)}: score ${f3(p.score)} for ${usd(p.usd)}</title></circle>`,
      `<text x="${x(p.usd) + 8}" y="${y(p.score) + 4}" class="label">${esc(p.name)} · ${f3(p.score)}</text>`,
    );
  }
  out.push("</svg>");
  return `<figure><figcaption>Score against spend, per mode and k</figcaption>${out.join("")}</figure>`;
}

/** Every task's candidates, folded: where each came from, what it cost, and which was picked. */
function lineageSection(blocks: readonly LineageBlock[]): string[] {
  if (blocks.length === 0) return [];
  const out = [
    "<h2>Lineage of the candidates</h2>",
    "<p>Per task, mode and k: the base, the candidates made from it (their improver session plus their rollouts) and the pick (★).</p>",
  ];
  for (const b of blocks) {
    out.push(
      `<details><summary>${esc(b.task)} · ${esc(b.name)} · pick ${esc(b.pick ?? "none")} · ${usd(b.usd)}</summary><pre>${esc(b.lines.join("\n"))}</pre></details>`,
    );
  }
  return out;
}

function table(header: readonly string[], rows: readonly string[][]): string {
  const head = header.map((h) => `<th>${esc(h)}</th>`).join("");
  const body = rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
    .join("\n");
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th:first-child,td:first-child{text-align:left}
figure{margin:1em 0}figcaption{font-weight:600;margin-bottom:.3em}.bar{fill:#4a7fb5}.neg{fill:#c0504d}
.ci{stroke:#222;stroke-width:1.5}.axis{stroke:#888}.label,.value,.tick,.none{font-size:12px}.none{fill:#888}
.s-stages{fill:#4a7fb5}.s-selection{fill:#9bbb59}.s-reflection{fill:#f79646}.s-executor{fill:#8064a2}
.warn{color:#a05a00}pre{font-size:12px;margin:.3em 0 .8em 1em}summary{cursor:pointer}`;

export function renderHtml(
  report: Report,
  opts: { lineage?: readonly LineageBlock[] } = {},
): string {
  const s = report.summaries;
  const body: string[] = [
    `<h1>${esc(report.title)}</h1>`,
    `<p>${esc(report.bench)} on ${esc(report.substrate)} · sweeps ${esc(report.sweeps.join(", "))} · judged by ${esc(report.judges.join(", ") || "(nobody yet)")}</p>`,
    "<h2>Score and paired delta against the base harness</h2>",
    table(
      [
        "mode, k",
        "tasks",
        "graded",
        "score (95% CI)",
        "base",
        "Δ vs base (95% CI)",
        "Δ n",
        "picks: selector / trivial / fallback",
        "spend (improver + executor)",
      ],
      s.map((m) => [
        m.name,
        String(m.tasks),
        String(m.n),
        `${f3(m.score)}${ci(m.scoreSpread)}`,
        f3(m.base.score),
        `${signed(m.delta.mean)}${ci(m.delta.spread, { signed: true })}`,
        String(m.delta.n),
        `${m.picks.selector} / ${m.picks.trivial} / ${m.picks.fallback}`,
        usd(m.spend.improver + m.spend.executor),
      ]),
    ),
    barChart(
      "Score (0 … 1), with its 95% interval",
      s.map((m) => ({
        label: m.name,
        value: m.score,
        low: m.scoreSpread.low,
        high: m.scoreSpread.high,
      })),
      0,
      1,
    ),
    barChart(
      "Δ vs base harness (−1 … +1), with its paired 95% interval",
      s.map((m) => ({
        label: m.name,
        value: m.delta.mean,
        low: m.delta.spread.low,
        high: m.delta.spread.high,
      })),
      -1,
      1,
    ),
    "<h2>Per-task delta, in stream order</h2>",
    "<p>Each task's pick minus the base harness on the same task. Later tasks read the library the earlier ones filled.</p>",
  ];
  for (const m of s) {
    if (m.delta.perTask.length === 0) continue;
    body.push(
      barChart(
        m.name,
        m.delta.perTask.map((t) => ({ label: t.task, value: t.delta })),
        -1,
        1,
      ),
    );
  }
  body.push("<h2>Spend</h2>", spendChart(s), scoreSpendChart(s));
  if (report.bases.length > 0) {
    body.push(
      "<h2>Base harness</h2>",
      table(
        ["k", "tasks", "graded", "score (95% CI)", "executor"],
        report.bases.map((b) => [
          String(b.k),
          String(b.tasks),
          String(b.graded),
          `${f3(b.score)}${ci(b.spread)}`,
          usd(b.executor),
        ]),
      ),
    );
  }
  if (report.comparisons.length > 0) {
    body.push(
      "<h2>Comparisons</h2>",
      table(
        ["comparison", "n", "mean (95% CI)"],
        report.comparisons.map((c) => [
          c.label,
          String(c.n),
          `${signed(c.mean)}${ci(c.spread, { signed: true })}`,
        ]),
      ),
    );
  }
  body.push(...lineageSection(opts.lineage ?? []));
  for (const w of report.warnings) body.push(`<p class="warn">warning: ${esc(w)}</p>`);
  for (const n of report.notes) body.push(`<p>note: ${esc(n)}</p>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(report.title)}</title><style>${STYLE}</style></head>
<body>
${body.join("\n")}
</body></html>
`;
}
