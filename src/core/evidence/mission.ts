// The mission actually sent to an improver session (docs/method.md §3): the job, then a pointer to
// the evidence on disk with its layout and how to read it. Evidence never travels in the prompt,
// and this text never names how the work is measured.

import type { ContextTree } from "./context-tree.ts";

/** The renderer's marker for a clipped observation, as trajectories show it (N = dropped chars). */
export const RENDER_TRUNCATION_MARKER = "…(+N chars — render truncation)";

function truncationNote(): string {
  return (
    "A single long observation may end in the marker " +
    `\`${RENDER_TRUNCATION_MARKER}\`, and an extremely long trajectory may have its middle replaced ` +
    "by one such marker line (its beginning and end are kept). These markers are added by the " +
    "renderer, not by anything the solver did, so never diagnose them as a solver failure."
  );
}

function readingMethod(tree: ContextTree): string {
  const hasHarness = tree.harnessFiles > 0;
  const steps = [
    hasHarness
      ? "Read `context/task.md` and the current harness (`context/harness/`) first."
      : "Read `context/task.md` first.",
  ];
  const runs = tree.rollouts.length > 0;
  const pool = tree.pool.length > 0;
  if (runs || pool) {
    const what = runs && pool ? "rollout and every candidate" : runs ? "rollout" : "candidate";
    steps.push(`Take stock of every ${what} and open each at least once before deciding.`);
  }
  if (pool) {
    steps.push(
      // Fix docs/differences.md R25: a diff is against the harness its candidate edited, which in
      // sequential mode is not always the one under edit; its header names which.
      "For each candidate, compare what changed from the harness it was edited from (its " +
        "`harness.diff`, whose `---` lines name that harness), " +
        "what behaviour changed in its rollout, what improved, and what regressed or stayed unresolved.",
    );
  }
  steps.push(
    "Then read in depth whatever evidence bears on an edit, and cite the specific trajectory " +
      "moment behind every change: a change you cannot trace to one is speculation.",
  );
  return steps.join(" ");
}

/** The pointer mission: `job`, then the evidence section for `tree`. */
export function mission(tree: ContextTree, opts: { job: string }): string {
  const parts = [
    opts.job.trim(),
    "",
    "# YOUR EVIDENCE",
    "",
    "The evidence is on disk under `context/`. Read it there: do not answer from this message alone.",
    "",
    tree.layout,
  ];
  if (tree.rollouts.length > 0 || tree.pool.length > 0) parts.push("", truncationNote());
  parts.push("", readingMethod(tree));
  return parts.join("\n");
}
