// The browser's rollout screen: how one execution ended, what it delivered (each output file as
// text) and what it did (its trajectory in the shared [ACTION]/[OBSERVATION] grammar). The texts
// are read by the CLI (RolloutText); this only lays them out.

import {
  type RolloutView,
  rolloutCostText,
  rolloutStatusText,
  type TaskView,
} from "../../store/views.ts";
import { type Line, line, textLines } from "../components/Lines.tsx";
import { formatDuration } from "../live/derive.ts";
import { statusTone } from "./screens.ts";

/** A rollout's deliverable files and trajectory, as the CLI read them from its run folder. */
export type RolloutText = {
  /** Output file (relative to output/) → its text. */
  files: Record<string, string>;
  /** The rendered trajectory, "" when the run kept no event stream. */
  trajectory: string;
};

/** `text`: undefined while it is being read, null when the run folder is not there. */
export function rolloutLines(
  task: TaskView,
  r: RolloutView,
  text: RolloutText | null | undefined,
): Line[] {
  const lines: Line[] = [
    [
      { text: "rollout ", tone: "dim" },
      { text: r.label, tone: "strong" },
      { text: ` · ${r.runId.split("/")[0] ?? ""} · ${task.task} k=${task.k}` },
    ],
    [
      { text: "status " },
      {
        text: rolloutStatusText(r),
        tone: r.status === "ok" && !r.delivered ? "warn" : statusTone(r.status),
      },
      {
        text: ` · delivered ${r.delivered ? "yes" : "no"} · ${r.reused ? "reused · " : ""}${r.wallS === null ? "" : `${formatDuration(r.wallS)} · `}cost ${rolloutCostText(r)}`,
      },
    ],
    line(`run folder ${r.runDir || "—"}`, "dim"),
  ];
  if (r.error) lines.push(line("error:", "error"), ...textLines(r.error, "error", "  "));
  lines.push([]);
  if (text === undefined) return [...lines, line("reading the output and trajectory…", "dim")];
  if (text === null) return [...lines, line("the run folder is not there any more", "warn")];
  const names = Object.keys(text.files);
  lines.push(line(`output (${names.length} file${names.length === 1 ? "" : "s"})`, "strong"));
  if (names.length === 0) lines.push(line("  (nothing delivered)", "dim"));
  for (const name of names) {
    lines.push(line(`── output/${name}`, "accent"));
    lines.push(...textLines(text.files[name] ?? "", undefined, "  "));
  }
  lines.push([]);
  lines.push(line("trajectory", "strong"));
  if (text.trajectory.trim() === "") lines.push(line("  (no event stream was kept)", "dim"));
  else lines.push(...textLines(text.trajectory, undefined, "  "));
  return lines;
}
