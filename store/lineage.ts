// Where each candidate of a mode came from (issue 34; docs/method.md §5): the tree the method's
// structure draws, with each node's spend, its outcome and the final the selector picked.
// Parallel: INV and DOM proposals are drawn from the base; each AGG composes every proposal.
// Sequential: round t proposes INV and DOM edits of the checkpoint c(t−1) (the base for t = 1) and
// composes ct from them. Built from a ModeView alone; nothing here touches the database.

import type { ModeView } from "./views.ts";

export type LineageNode = {
  label: string;
  dim: "BASE" | "INV" | "DOM" | "AGG" | "COMPOSE" | string;
  /** The candidates this one was made from (empty for the base). */
  from: string[];
  /** "accepted", "fell back", "kept base", "running", "interrupted"; "base" for the base. */
  outcome: string;
  /** Its improver session plus its rollouts (the base: its rollouts). */
  usd: number;
  picked: boolean;
};

const round = (label: string): number => Number(label.match(/(\d+)$/)?.[1] ?? 0);

/** The nodes of a mode's lineage, base first, in the order the method made them. */
export function lineageOf(
  m: Pick<ModeView, "mode" | "stages" | "ledger" | "selection">,
): LineageNode[] {
  const rolloutUsd = (label: string) =>
    m.ledger
      .filter((e) => e.kind === "rollout" && e.label === label)
      .reduce((s, e) => s + e.usd, 0);
  const baseUsd = m.ledger
    .filter((e) => e.kind === "rollout" && /^base\d+$/.test(e.label))
    .reduce((s, e) => s + e.usd, 0);
  const picked = m.selection?.chosenLabel ?? null;
  const nodes: LineageNode[] = [
    { label: "base", dim: "BASE", from: [], outcome: "base", usd: baseUsd, picked: false },
  ];
  const proposals = m.stages.filter((s) => s.dim === "INV" || s.dim === "DOM").map((s) => s.label);
  for (const s of m.stages) {
    let from: string[];
    if (m.mode === "agg") {
      from = s.dim === "AGG" ? proposals : ["base"];
    } else {
      const t = round(s.label);
      from =
        s.dim === "COMPOSE"
          ? m.stages
              .filter((x) => (x.dim === "INV" || x.dim === "DOM") && round(x.label) === t)
              .map((x) => x.label)
          : [t <= 1 ? "base" : `c${t - 1}`];
    }
    nodes.push({
      label: s.label,
      dim: s.dim,
      from,
      outcome: s.status === "ok" ? "accepted" : s.status,
      usd: s.usd + rolloutUsd(s.label),
      picked: picked === s.label,
    });
  }
  return nodes;
}
