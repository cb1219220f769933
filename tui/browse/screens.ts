// What each browser screen shows, as pure functions from store views to toned lines and the
// selectable items on them. No reads, no state: the container fetches, these only lay out.

import { MODE_NAMES, type ModeToken } from "../../src/core/events/registry.ts";
import { formatWhen, textWidth, uniquePrefixes } from "../../src/core/lib/format.ts";
import { type LineageNode, lineageOf } from "../../store/lineage.ts";
import {
  type ModeView,
  type RolloutView,
  rolloutCostText,
  rolloutStatusText,
  type SelectionView,
  type StageView,
  type SweepDetail,
  type SweepSummary,
  sweepStatusWithResume,
  type TaskView,
} from "../../store/views.ts";
import { type Line, line } from "../components/Lines.tsx";
import { type Column, fittingColumns, tableLines } from "../components/Table.tsx";
import type { Tone } from "../components/theme.ts";
import { formatDuration, formatUsd } from "../live/derive.ts";

/** The name a person reads for a mode token (an unknown token as it is). */
export const modeName = (m: string) => MODE_NAMES[m as ModeToken] ?? m;

export function statusTone(status: string): Tone | undefined {
  switch (status) {
    case "ok":
      return "ok";
    case "running":
      return "running";
    case "failed":
    case "dead":
      return "error";
    case "partial":
    case "degraded":
    case "interrupted":
    case "unfinished":
    case "fell back":
      return "warn";
    case "kept base":
      return "accent";
    case "skipped":
      return "dim";
    default:
      return undefined;
  }
}

/** Prefixes each line with the cursor mark, or the same width of blank. */
function marked(lines: Line[], cursorLine: number | null): Line[] {
  return lines.map((l, i) => [
    i === cursorLine ? { text: "▶ ", tone: "accent" as const } : { text: "  " },
    ...l,
  ]);
}

// ── sweeps ───────────────────────────────────────────────────────────────────────────────────

// On a narrow screen ids shrink to unique prefixes, the modes are cut to fit, then the columns
// with a drop rank go (modes, start, k, bench): the status, counts, spend and duration stay.
function sweepColumns(resumedBy: (id: string) => string): Column<SweepSummary>[] {
  return [
    { header: "sweep", cell: (s) => s.id },
    { header: "started", cell: (s) => formatWhen(s.startedAt).slice(5), drop: 2 },
    {
      header: "status",
      // A sweep a later one went on with says so, by the later one's handle (sweepsLines).
      cell: (s) => ({
        text: sweepStatusWithResume(s, resumedBy),
        tone: statusTone(s.status),
      }),
    },
    { header: "bench", cell: (s) => `${s.bench}/${s.substrate}`, drop: 4 },
    { header: "k", cell: (s) => s.ks.join(","), drop: 3 },
    { header: "modes", cell: (s) => s.modes.map(modeName).join("+"), shrink: true, drop: 1 },
    {
      header: "ok/fail/all",
      cell: (s) => ({
        text: `${s.tasks.ok}/${s.tasks.failed}/${s.tasks.total}`,
        tone: s.tasks.failed > 0 ? "error" : undefined,
      }),
      align: "right",
    },
    { header: "spend", cell: (s) => formatUsd(s.usd), align: "right" },
    { header: "duration", cell: (s) => formatDuration(s.durationS), align: "right" },
  ];
}

/** In a store a fleet ran in: which worker ran each sweep, on which domains. */
const WORKER_COLUMNS: Column<SweepSummary>[] = [
  { header: "worker", cell: (s) => s.worker?.name ?? "-", max: 24, drop: 2 },
  {
    header: "domains",
    cell: (s) => (s.worker === null ? "-" : s.worker.domains.join(",")),
    shrink: true,
    drop: 1,
  },
];

/** The sweeps table: header, rule, then one line per sweep; null cursor = not selectable. */
export function sweepsLines(sweeps: SweepSummary[], cursor: number | null, width: number): Line[] {
  const room = cursor === null ? width : width - 2;
  const short = uniquePrefixes(sweeps.map((s) => s.id));
  const handle = (id: string) => short.get(id) ?? id.slice(0, 12);
  const worker = sweeps.some((s) => s.worker !== null) ? WORKER_COLUMNS : [];
  // The narrower the screen, the shorter the words: full ids, then ids shortened to their unique
  // prefix (a handle every command takes), then a resume said without whom; the table takes the
  // first that keeps the most columns within the width.
  const tries = [
    { ids: (id: string) => id, by: handle },
    { ids: handle, by: handle },
    { ids: handle, by: () => "" },
  ].map((t) => {
    const columns = [...sweepColumns(t.by), ...worker];
    const rows = sweeps.map((s) => ({ ...s, id: t.ids(s.id) }));
    const lines = tableLines(columns, rows, room);
    const fits = lines.every((l) => textWidth(l.map((p) => p.text).join("")) <= room);
    return { lines, fits, kept: fittingColumns(columns, rows, room).length };
  });
  const best = tries.reduce((a, b) =>
    (b.fits && !a.fits) || (b.fits === a.fits && b.kept > a.kept) ? b : a,
  );
  return cursor === null ? best.lines : marked(best.lines, sweeps.length > 0 ? cursor + 2 : null);
}

// ── one sweep ────────────────────────────────────────────────────────────────────────────────

export function sweepHeaderLines(d: SweepDetail): Line[] {
  const s = d.sweep;
  const t = s.tasks;
  const lines: Line[] = [
    [
      { text: "sweep ", tone: "dim" },
      { text: s.id, tone: "strong" },
      { text: "  " },
      { text: sweepStatusWithResume(s), tone: statusTone(s.status) },
      ...(s.resumes ? [{ text: `  (after ${s.resumes})`, tone: "dim" as const }] : []),
    ],
    line(
      `${s.bench}/${s.substrate} · k=${s.ks.join(",")} · ${s.modes.map(modeName).join("+")} · seed ${s.seed ?? "none"}${s.tag ? ` · tag ${s.tag}` : ""}`,
    ),
    line(
      `started ${formatWhen(s.startedAt)} · ${formatDuration(s.durationS)} · spend ${formatUsd(s.usd)} · tasks ${t.ok} ok, ${t.failed} failed, ${t.running} running${t.interrupted > 0 ? `, ${t.interrupted} stopped` : ""}, ${t.skipped} skipped of ${t.total}`,
    ),
  ];
  for (const w of d.tripwires) {
    lines.push(
      line(
        `TRIPWIRE ${w.kind} at ${w.where}: ${w.path}${w.marker ? ` [${w.marker}]` : ""}`,
        "error",
      ),
    );
  }
  for (const n of d.notes.slice(-3)) {
    lines.push(
      line(`${n.level}: ${n.message.split("\n")[0] ?? ""}`, n.level === "error" ? "error" : "warn"),
    );
  }
  return lines;
}

function modeCell(m: ModeView): string {
  const sel = m.selection;
  const pick = !sel
    ? ""
    : sel.trivial
      ? ` → ${sel.chosenLabel} (k=1)`
      : sel.fallback
        ? ` → FALLBACK ${sel.chosenLabel}`
        : sel.chosenLabel
          ? ` → ${sel.chosenLabel}`
          : "";
  return `${modeName(m.mode)} ${m.status}${pick}`;
}

const TASK_COLUMNS: Column<TaskView>[] = [
  { header: "task", cell: (t) => t.task, max: 40 },
  { header: "domain", cell: (t) => t.domain, max: 20 },
  { header: "k", cell: (t) => String(t.k), align: "right" },
  { header: "status", cell: (t) => ({ text: t.status, tone: statusTone(t.status) }) },
  { header: "spend", cell: (t) => formatUsd(t.usd), align: "right" },
  {
    header: "wall",
    cell: (t) => (t.wallS === null ? "" : formatDuration(t.wallS)),
    align: "right",
  },
  {
    header: "modes",
    cell: (t) =>
      t.status === "skipped" ? `skipped: ${t.skipReason}` : t.modes.map(modeCell).join(" · "),
    shrink: true,
  },
];

export function tasksLines(tasks: TaskView[], cursor: number, width: number): Line[] {
  const lines = tableLines(TASK_COLUMNS, tasks, width - 2);
  return marked(lines, tasks.length > 0 ? cursor + 2 : null);
}

// ── one task ─────────────────────────────────────────────────────────────────────────────────

/** A task's rollouts: which mode and label ran, how it ended, what it cost. */
export const ROLLOUT_COLUMNS: Column<RolloutView>[] = [
  { header: "run", cell: (r) => r.runId.split("/")[0] ?? "", max: 24 },
  { header: "label", cell: (r) => r.label },
  {
    header: "status",
    cell: (r) => ({
      text: rolloutStatusText(r),
      tone: r.status === "ok" && !r.delivered ? "warn" : statusTone(r.status),
    }),
  },
  { header: "delivered", cell: (r) => (r.delivered ? "yes" : "no") },
  { header: "reused", cell: (r) => (r.reused ? "reused" : "") },
  {
    header: "wall",
    cell: (r) => (r.wallS === null ? "—" : formatDuration(r.wallS)),
    align: "right",
  },
  { header: "cost", cell: (r) => rolloutCostText(r), align: "right" },
  {
    header: "error",
    cell: (r) => ({ text: r.error.split("\n")[0] ?? "", tone: "error" }),
    shrink: true,
  },
];

export type TaskItem =
  | { kind: "stage"; mode: string; label: string }
  | { kind: "selection"; mode: string }
  | { kind: "rollout"; runId: string };

/** head stays on screen; lines scroll with the cursor (itemLines[i] is where item i sits). */
export type TaskScreen = { head: Line[]; lines: Line[]; items: TaskItem[]; itemLines: number[] };

/** A stage row with its place in the mode's lineage (store/lineage.ts). */
type StageRow = StageView & { node: LineageNode | undefined };

/** Where a candidate came from: "base", "c1", "inv1+dom1", or "every proposal" for AGG. */
function fromText(node: LineageNode | undefined): string {
  if (node === undefined) return "";
  if (node.dim === "AGG") return "every proposal";
  return node.from.join("+");
}

const STAGE_COLUMNS: Column<StageRow>[] = [
  {
    header: "stage",
    cell: (s) => (s.node?.picked ? { text: `${s.label} ★`, tone: "ok" } : { text: s.label }),
    max: 14,
  },
  { header: "dim", cell: (s) => s.dim },
  { header: "from", cell: (s) => fromText(s.node), max: 16, drop: 2 },
  { header: "status", cell: (s) => ({ text: s.status, tone: statusTone(s.status) }) },
  {
    header: "att",
    cell: (s) => (s.attempts === null ? "" : String(s.attempts)),
    align: "right",
    drop: 1,
  },
  { header: "cost", cell: (s) => formatUsd(s.usd), align: "right" },
  {
    // The session plus the rollouts of the candidate it made: what this node of the lineage cost.
    header: "+rollouts",
    cell: (s) => (s.node === undefined ? "" : formatUsd(s.node.usd)),
    align: "right",
    drop: 3,
  },
  { header: "cached", cell: (s) => (s.cached ? "cached" : ""), drop: 4 },
  {
    header: "error",
    cell: (s) => ({ text: s.error.split("\n")[0] ?? "", tone: "error" }),
    shrink: true,
  },
];

export function selectionMark(sel: SelectionView): Line {
  if (sel.trivial) return [{ text: "[k=1 trivial: the only final, no selector]", tone: "accent" }];
  if (sel.fallback) return [{ text: "[FALLBACK]", tone: "warn" }];
  if (!sel.ok) return [{ text: "[FAILED]", tone: "error" }];
  return [{ text: "[chosen blind]", tone: "ok" }];
}

export function taskScreen(task: TaskView, cursor: number, width: number): TaskScreen {
  const head: Line[] = [];
  const lines: Line[] = [];
  const items: TaskItem[] = [];
  const itemLines: number[] = [];
  head.push([
    { text: "task ", tone: "dim" },
    { text: task.task, tone: "strong" },
    { text: ` k=${task.k} in ${task.domain} · ` },
    { text: task.status, tone: statusTone(task.status) },
    {
      text: ` · ${formatUsd(task.usd)}${task.wallS === null ? "" : ` · ${formatDuration(task.wallS)}`}`,
    },
  ]);
  if (task.error) lines.push(line(`error: ${task.error.split("\n")[0]}`, "error"));
  if (task.skipReason) lines.push(line(`skipped: ${task.skipReason}`, "dim"));
  for (const w of task.tripwires) {
    lines.push(
      line(
        `TRIPWIRE ${w.kind} at ${w.where}: ${w.path}${w.marker ? ` [${w.marker}]` : ""}`,
        "error",
      ),
    );
  }
  for (const m of task.modes) {
    if (lines.length > 0) lines.push([]);
    lines.push([
      { text: modeName(m.mode), tone: "strong" },
      { text: " · " },
      { text: m.status, tone: statusTone(m.status) },
      {
        text: ` · R ${m.R}/${m.expectedR} · P ${m.P}/${m.expectedP} · ${formatUsd(m.usd)}${m.phase && m.status === "running" ? ` · phase ${m.phase}` : ""}`,
      },
    ]);
    if (m.error) lines.push(line(`  ${m.error.split("\n")[0]}`, "error"));
    for (const w of m.tripwires) {
      lines.push(
        line(
          `  TRIPWIRE ${w.kind} at ${w.where}: ${w.path}${w.marker ? ` [${w.marker}]` : ""}`,
          "error",
        ),
      );
    }
    if (m.stages.length > 0) {
      const nodes = new Map(lineageOf(m).map((n) => [n.label, n]));
      const base = nodes.get("base");
      lines.push(
        line(
          `  lineage: base (its rollouts ${formatUsd(base?.usd ?? 0)}) → the candidates below; ★ the pick (enter: harness diff)`,
          "dim",
        ),
      );
      const rows = m.stages.map((st) => ({ ...st, node: nodes.get(st.label) }));
      const table = tableLines(STAGE_COLUMNS, rows, width - 4);
      lines.push(...table.slice(0, 2).map((l) => [{ text: "  " }, ...l]));
      for (const [i, row] of table.slice(2).entries()) {
        const stage = m.stages[i] as StageView;
        items.push({ kind: "stage", mode: m.mode, label: stage.label });
        itemLines.push(lines.length);
        lines.push([{ text: "  " }, ...row]);
      }
    }
    if (m.selection) {
      const s = m.selection;
      items.push({ kind: "selection", mode: m.mode });
      itemLines.push(lines.length);
      lines.push([
        { text: "  selection " },
        ...(s.anonId ? [{ text: `${s.anonId} → `, tone: "accent" as const }] : []),
        { text: s.chosenLabel || "(none)", tone: "strong" },
        { text: " " },
        ...selectionMark(s),
      ]);
    }
    if (m.reflection) {
      const r = m.reflection;
      const what = !r.ok ? `failed: ${r.error}` : r.noEntry ? "no entry" : "lesson kept";
      lines.push(
        line(
          `  reflection ${what}${m.library.map((l) => ` · library + ${l.cue}`).join("")}`,
          r.ok ? "dim" : "warn",
        ),
      );
    }
  }
  const dead = task.rollouts.filter((r) => r.status === "dead").length;
  const reused = task.rollouts.filter((r) => r.reused).length;
  if (task.rollouts.length > 0) {
    lines.push([]);
    lines.push(
      line(
        `rollouts ${task.rollouts.length}: ${task.rollouts.length - dead} ok, ${dead} dead, ${reused} reused (enter: output and trajectory)`,
        dead > 0 ? "warn" : "dim",
      ),
    );
    const table = tableLines(ROLLOUT_COLUMNS, task.rollouts, width - 4);
    lines.push(...table.slice(0, 2).map((l) => [{ text: "  " }, ...l]));
    for (const [i, row] of table.slice(2).entries()) {
      items.push({ kind: "rollout", runId: (task.rollouts[i] as RolloutView).runId });
      itemLines.push(lines.length);
      lines.push([{ text: "  " }, ...row]);
    }
  }
  const cursorLine = itemLines[cursor] ?? null;
  return { head, lines: marked(lines, cursorLine), items, itemLines };
}
