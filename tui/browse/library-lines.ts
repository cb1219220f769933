// The browser's library view and its help screen. The library view shows, per domain and mode,
// the lessons this sweep stored, in stream order, and the later tasks of the sweep that were
// served each one (a task reads every earlier entry of its domain's library, docs/method.md §8).

import { MODE_NAMES, type ModeToken } from "../../src/core/events/registry.ts";
import type { SweepDetail } from "../../store/views.ts";
import { type Line, line, textLines } from "../components/Lines.tsx";

export function libraryLines(d: SweepDetail): Line[] {
  const out: Line[] = [];
  const byStream = [...d.tasks].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  for (const domain of [...new Set(byStream.map((t) => t.domain))]) {
    const tasks = byStream.filter((t) => t.domain === domain);
    for (const mode of ["agg", "seq"] as ModeToken[]) {
      const entries = tasks.flatMap((t, i) =>
        (t.modes.find((m) => m.mode === mode)?.library ?? []).map((e) => ({ e, t, i })),
      );
      if (entries.length === 0) continue;
      out.push(line(`${domain} · ${MODE_NAMES[mode]} · ${entries.length} lesson(s)`, "strong"));
      for (const { e, t, i } of entries) {
        const later = tasks.slice(i + 1).filter((x) => x.status !== "skipped" && x.k === t.k);
        out.push(line(`  + ${e.entry} (k=${t.k}, ${e.confidence || "?"})`, "accent"));
        out.push(...textLines(`cue: ${e.cue}`, undefined, "    "));
        out.push(...textLines(`lesson: ${e.lesson}`, undefined, "    "));
        const read =
          later.length > 0 ? later.map((x) => x.task).join(", ") : "no later task in this sweep";
        out.push(line(`    served to: ${read}`, later.length > 0 ? undefined : "dim"));
        out.push(line(`    ${e.path}`, "dim"));
      }
      out.push([]);
    }
  }
  return out.length > 0 ? out : [line("this sweep stored no lesson", "dim")];
}

export const HELP_LINES: Line[] = [
  line("keys", "strong"),
  line("  ↑ ↓ j k       move the cursor, or scroll a page of text"),
  line("  pgup pgdn ␣   a page at a time"),
  line("  enter →       open the row under the cursor"),
  line("  esc ← ⌫       back to the screen before"),
  line("  tab           switch the sweep's view: tasks, library, report (once judged)"),
  line("  /  n          search this screen for a text (enter), then the next match"),
  line("  p             show this screen in your $PAGER (default less -R)"),
  line("  e             open the screen's folder (harness or run) in your $EDITOR"),
  line("  r             read the store again (a running sweep moves on)"),
  line("  ?             this help; any key closes it"),
  line("  q  Ctrl-C     quit"),
  [],
  line("screens", "strong"),
  line("  sweeps → a sweep (tasks · library · report) → a task → a stage, selection or rollout"),
  line("  a stage: its evidence folder, the improver calls with their audits, the harness diff"),
  line("  a selection: the blind choice decoded, the reflection, the library entry, and the"),
  line("  adopted harness against the starting harness"),
  line("  a rollout: how it ended, each output file as text, and its trajectory"),
  [],
  line("words: `harness2 help concepts` prints the glossary", "dim"),
];
