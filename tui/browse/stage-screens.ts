// The browser's deepest screens: one stage (its harness diff against what it edited, its improver
// calls, its paths) and one mode's selection, as toned lines. Pure layout from store views.

import type { StagePaths } from "../../store/browse-queries.ts";
import type { ModeView, ProposerCallView, StageView, TaskView } from "../../store/views.ts";
import { type Line, line, textLines } from "../components/Lines.tsx";
import { type Column, tableLines } from "../components/Table.tsx";
import type { Tone } from "../components/theme.ts";
import { formatDuration, formatUsd, stageOfCall } from "../live/derive.ts";
import { modeName, selectionMark, statusTone } from "./screens.ts";

// ── one stage ────────────────────────────────────────────────────────────────────────────────

/** The tree a stage edited (docs/method.md §5): base for parallel mode and round 1, else c<t−1>. */
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

export const CALL_COLUMNS: Column<ProposerCallView>[] = [
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

/**
 * `baseDiff`: the adopted harness against the task's starting harness (undefined: not asked;
 * null: no record of the starting harness to diff against).
 */
export function selectionLines(
  task: TaskView,
  m: ModeView,
  width: number,
  baseDiff?: string | null,
): Line[] {
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
  const r = m.reflection;
  lines.push([]);
  if (r === null) lines.push(line("reflection  not run", "dim"));
  else if (!r.ok) {
    lines.push(line("reflection  failed: no lesson stored", "warn"));
    if (r.error) lines.push(...textLines(r.error, "warn", "  "));
  } else
    lines.push(
      line(
        `reflection  ${r.noEntry ? "declined (NO_ENTRY)" : "lesson stored"} · cost ${formatUsd(r.usd)}`,
      ),
    );
  for (const e of m.library) {
    lines.push(line(`library     + ${e.entry} (${e.confidence || "?"})`, "strong"));
    lines.push(
      ...textLines(`cue: ${e.cue}`, undefined, "  "),
      ...textLines(`lesson: ${e.lesson}`, undefined, "  "),
    );
    lines.push(line(`  ${e.path}`, "dim"));
  }
  if (baseDiff !== undefined) {
    lines.push([]);
    lines.push(line("adopted harness against the starting harness", "strong"));
    if (baseDiff === null)
      lines.push(line("  (no starting harness was recorded for this task)", "dim"));
    else if (baseDiff.trim() === "")
      lines.push(line("  (the adopted harness is the starting harness)", "dim"));
    else lines.push(...diffLines(baseDiff));
  }
  return lines;
}
