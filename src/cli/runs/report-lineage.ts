// The lineage section of `report --html` (issue 34): for every task, mode and k of the report's
// sweeps, the tree of candidates `show` draws (src/cli/runs/lineage-text.ts) with its pick and spend.
// Where a task ran in several sweeps (a resume), the newest record that holds the mode's stages
// wins, as it does for the report's figures.

import type { Database } from "bun:sqlite";
import { sweepDetail } from "../../../store/queries.ts";
import { MODE_NAMES, type ModeToken } from "../../core/events/registry.ts";
import type { LineageBlock } from "../../judge/report-html.ts";
import { lineageLines } from "./lineage-text.ts";

export function reportLineage(
  db: Database,
  sweepIds: readonly string[],
  keep: (cell: { task: string; mode: ModeToken }) => boolean,
): LineageBlock[] {
  const byCell = new Map<string, LineageBlock & { position: number }>();
  for (const id of sweepIds) {
    for (const t of sweepDetail(db, id)?.tasks ?? []) {
      for (const m of t.modes) {
        const mode = m.mode as ModeToken;
        if (m.stages.length === 0 || !keep({ task: t.task, mode })) continue;
        const lines = lineageLines(m);
        if (lines.length === 0) continue;
        byCell.set(`${t.task}\u0000${t.k}\u0000${mode}`, {
          task: t.task,
          k: t.k,
          mode,
          name: `${MODE_NAMES[mode] ?? mode} k=${t.k}`,
          pick: m.selection?.chosenLabel || null,
          usd: m.usd,
          lines,
          position: t.position ?? Number.MAX_SAFE_INTEGER,
        });
      }
    }
  }
  return [...byCell.values()]
    .sort((a, b) => a.position - b.position || a.task.localeCompare(b.task) || a.k - b.k)
    .map(({ position: _, ...block }) => block);
}
