// A mode's lineage as text for `show` (store/lineage.ts builds it): the base, the candidates made
// from it with their outcome and spend, and the final the selector picked (★).

import { lineageOf } from "../../../store/lineage.ts";
import type { ModeView } from "../../../store/views.ts";
import { formatUsd } from "../../core/lib/format.ts";

export function lineageLines(m: ModeView): string[] {
  const nodes = lineageOf(m);
  if (nodes.length <= 1) return [];
  // "kept base" is the method's word for an edit that changed nothing; here it would read as the
  // starting harness of the task, so it says what it means.
  const outcome = (o: string) => (o === "kept base" ? "unchanged" : o);
  const node = (n: (typeof nodes)[number]) =>
    `${n.label} ${outcome(n.outcome)} ${formatUsd(n.usd)}${n.picked ? "  ★ picked" : ""}`;
  const base = nodes[0] as (typeof nodes)[number];
  const out = [`  lineage  base ${formatUsd(base.usd)}`];
  if (m.mode === "agg") {
    const proposals = nodes.filter((n) => n.dim === "INV" || n.dim === "DOM");
    const finals = nodes.filter((n) => n.dim === "AGG");
    for (const p of proposals) out.push(`           ├─ ${node(p)}`);
    if (finals.length > 0) {
      out.push("           └─ composed from every proposal above:");
      for (const f of finals) out.push(`                ${node(f)}`);
    }
    return out;
  }
  // Sequential: one line per round, each checkpoint made from that round's two proposals.
  for (const c of nodes.filter((n) => n.dim === "COMPOSE")) {
    const parts = c.from.map((label) => nodes.find((n) => n.label === label));
    const made = parts.map((p) => (p === undefined ? "?" : node(p))).join(", ");
    out.push(`           → ${node(c)}  (from ${made})`);
  }
  return out;
}
