// What each browser screen shows, as pure functions from store views to toned lines and the
// selectable items on them. No reads, no state: the container fetches, these only lay out.

import type { StagePaths } from "../../store/browse-queries.ts";
import type {
  ModeView,
  ProposerCallView,
  SelectionView,
  StageView,
  SweepDetail,
  SweepSummary,
  TaskView,
} from "../../store/views.ts";
import { type Line, line, textLines } from "../components/Lines.tsx";
import { type Column, tableLines } from "../components/Table.tsx";
import type { Tone } from "../components/theme.ts";
import { formatDuration, formatUsd, stageOfCall } from "../live/derive.ts";

const MODE_NAMES: Record<string, string> = { agg: "parallel", seq: "sequential" };
export const modeName = (m: string) => MODE_NAMES[m] ?? m;

/** "2026-11-30 09:00" (UTC) from an ISO time. */
export function formatWhen(iso: string | null): string {
  return iso ? iso.slice(0, 16).replace("T", " ") : "—";
}

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

const SWEEP_COLUMNS: Column<SweepSummary>[] = [
  { header: "sweep", cell: (s) => s.id },
  { header: "started", cell: (s) => formatWhen(s.startedAt).slice(5) },
  { header: "status", cell: (s) => ({ text: s.status, tone: statusTone(s.status) }) },
  { header: "bench", cell: (s) => `${s.bench}/${s.substrate}` },
  { header: "k", cell: (s) => s.ks.join(",") },
  { header: "modes", cell: (s) => s.modes.map(modeName).join("+"), shrink: true },
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

/** The sweeps table: header, rule, then one line per sweep; null cursor = not selectable. */
export function sweepsLines(sweeps: SweepSummary[], cursor: number | null, width: number): Line[] {
  if (cursor === null) return tableLines(SWEEP_COLUMNS, sweeps, width);
  const lines = tableLines(SWEEP_COLUMNS, sweeps, width - 2);
  return marked(lines, sweeps.length > 0 ? cursor + 2 : null);
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
      { text: s.status, tone: statusTone(s.status) },
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

export type TaskItem =
  | { kind: "stage"; mode: string; label: string }
  | { kind: "selection"; mode: string };

/** head stays on screen; lines scroll with the cursor (itemLines[i] is where item i sits). */
export type TaskScreen = { head: Line[]; lines: Line[]; items: TaskItem[]; itemLines: number[] };

const STAGE_COLUMNS: Column<StageView>[] = [
  { header: "stage", cell: (s) => s.label, max: 12 },
  { header: "dim", cell: (s) => s.dim },
  { header: "status", cell: (s) => ({ text: s.status, tone: statusTone(s.status) }) },
  { header: "att", cell: (s) => (s.attempts === null ? "" : String(s.attempts)), align: "right" },
  { header: "cost", cell: (s) => formatUsd(s.usd), align: "right" },
  { header: "cached", cell: (s) => (s.cached ? "cached" : "") },
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
      const table = tableLines(STAGE_COLUMNS, m.stages, width - 4);
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
        `rollouts ${task.rollouts.length}: ${task.rollouts.length - dead} ok, ${dead} dead, ${reused} reused`,
        dead > 0 ? "warn" : "dim",
      ),
    );
  }
  const cursorLine = itemLines[cursor] ?? null;
  return { head, lines: marked(lines, cursorLine), items, itemLines };
}

// ── one stage ────────────────────────────────────────────────────────────────────────────────

/** The tree a stage edited (spec/03 §3.5–3.6): base for parallel mode and round 1, else c<t−1>. */
export function parentLabel(mode: string, label: string): string {
  if (mode !== "seq") return "base";
  const round = Number(/(\d+)$/.exec(label)?.[1] ?? "1");
  return round > 1 ? `c${round - 1}` : "base";
}

/** The parent's harness folder: a sibling of the stage's own under harnesses/. */
export function parentDir(harnessDir: string, parent: string): string {
  const cut = harnessDir.replace(/\/+$/, "").lastIndexOf("/");
  return cut < 0 ? parent : `${harnessDir.slice(0, cut)}/${parent}`;
}

const CALL_COLUMNS: Column<ProposerCallView>[] = [
  { header: "call", cell: (c) => c.label },
  { header: "att", cell: (c) => String(c.attempts), align: "right" },
  { header: "channel/model", cell: (c) => `${c.channel}/${c.model}`, max: 36 },
  { header: "cached", cell: (c) => (c.cached ? "cached" : "") },
  { header: "wall", cell: (c) => formatDuration(c.wallS), align: "right" },
  { header: "cost", cell: (c) => formatUsd(c.usd), align: "right" },
  {
    header: "error",
    cell: (c) => ({ text: c.error.split("\n")[0] ?? "", tone: "error" }),
    shrink: true,
  },
];

export function diffLines(diff: string): Line[] {
  return diff
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => {
      const tone: Tone | undefined = l.startsWith("@@")
        ? "accent"
        : l.startsWith("+++") || l.startsWith("---")
          ? "strong"
          : l.startsWith("+")
            ? "ok"
            : l.startsWith("-")
              ? "error"
              : undefined;
      return line(l, tone);
    });
}

export type StageInput = {
  task: TaskView;
  mode: string;
  stage: StageView;
  paths: StagePaths | null;
  /** The diff against the parent: text, "" for no change, or null when it could not be made. */
  diff: string | null;
  width: number;
};

export function stageLines({ task, mode, stage, paths, diff, width }: StageInput): Line[] {
  const yes = (b: boolean) => (b ? "yes" : "no");
  const parent = parentLabel(mode, stage.label);
  const harnessDir = stage.harnessDir || paths?.harnessDir || "";
  const lines: Line[] = [
    [
      { text: "stage ", tone: "dim" },
      { text: stage.label, tone: "strong" },
      { text: ` (${stage.dim}) · ${modeName(mode)} · ${task.task} k=${task.k}` },
    ],
    [
      { text: "status " },
      { text: stage.status, tone: statusTone(stage.status) },
      {
        text: ` · attempts ${stage.attempts ?? "—"} · cost ${formatUsd(stage.usd)} · cached ${yes(stage.cached)} · kept base ${yes(stage.keptBase)} · fell back ${yes(stage.fellBack)}`,
      },
    ],
  ];
  if (stage.error) lines.push(line("error:", "error"), ...textLines(stage.error, "error", "  "));
  lines.push(line("notes:", "strong"));
  lines.push(
    ...(stage.notes ? textLines(stage.notes, undefined, "  ") : [line("  (none)", "dim")]),
  );
  lines.push([]);
  lines.push(line(`harness   ${harnessDir || "—"}`));
  lines.push(line(`parent    ${parent}${harnessDir ? ` (${parentDir(harnessDir, parent)})` : ""}`));
  lines.push(line(`evidence  ${paths?.evidenceDir || "—"}`));
  const calls = task.calls.filter((c) => c.mode === mode && stageOfCall(c) === stage.label);
  lines.push([]);
  lines.push(line(`proposer calls (${calls.length})`, "strong"));
  if (calls.length > 0) {
    lines.push(...tableLines(CALL_COLUMNS, calls, width - 2).map((l) => [{ text: "  " }, ...l]));
    for (const c of calls) if (c.auditPath) lines.push(line(`  audit ${c.auditPath}`, "dim"));
  }
  lines.push([]);
  lines.push(line(`harness diff against ${parent}`, "strong"));
  if (diff === null)
    lines.push(line("  (the harness folders could not be read for a diff)", "dim"));
  else if (diff === "") lines.push(line("  (no change)", "dim"));
  else lines.push(...diffLines(diff));
  return lines;
}

// ── one selection ────────────────────────────────────────────────────────────────────────────

export function selectionLines(task: TaskView, m: ModeView, width: number): Line[] {
  const s = m.selection;
  const head: Line = [
    { text: "selection ", tone: "dim" },
    { text: modeName(m.mode), tone: "strong" },
    { text: ` · ${task.task} k=${task.k}` },
  ];
  if (!s) return [head, line("this mode has not reached selection", "dim")];
  const lines: Line[] = [
    head,
    [
      { text: "chosen " },
      { text: s.chosenLabel || "(none)", tone: "strong" },
      { text: s.anonId ? ` (shown to the selector as ${s.anonId}) ` : " " },
      ...selectionMark(s),
    ],
  ];
  if (s.error) lines.push(line(`selector error: ${s.error.split("\n")[0]}`, "error"));
  lines.push(line("why:", "strong"));
  lines.push(...(s.why ? textLines(s.why, undefined, "  ") : [line("  (no reason given)", "dim")]));
  const ids = Object.keys(s.idMap).sort();
  lines.push([]);
  lines.push(line(`candidates (${ids.length}, anonymous ids decoded)`, "strong"));
  type Candidate = { id: string; label: string };
  const rows: Candidate[] = ids.map((id) => ({ id, label: s.idMap[id] ?? "" }));
  const columns: Column<Candidate>[] = [
    { header: "anon id", cell: (c) => c.id },
    { header: "candidate", cell: (c) => c.label },
    {
      header: "",
      cell: (c) =>
        c.label === s.chosenLabel
          ? { text: "✔ chosen", tone: "ok" }
          : s.dropped.includes(c.label)
            ? { text: "dropped", tone: "warn" }
            : "",
    },
  ];
  if (rows.length > 0)
    lines.push(...tableLines(columns, rows, width - 2).map((l) => [{ text: "  " }, ...l]));
  const dropped = s.dropped.filter((d) => !ids.some((id) => s.idMap[id] === d));
  if (dropped.length > 0)
    lines.push(line(`  dropped before selection: ${dropped.join(", ")}`, "warn"));
  lines.push([]);
  lines.push(line(`chosen run  ${s.chosenRunDir ?? "—"}`));
  lines.push(
    line(
      `harness fingerprint ${s.harnessFingerprint ?? "—"} · evidence ${s.evidence ?? "—"} · cost ${formatUsd(s.usd)}`,
    ),
  );
  return lines;
}
