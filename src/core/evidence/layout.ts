// The layout text of an evidence tree: the map of `context/` the mission shows an improver (what
// each folder holds, which baseline each pool diff is against). Pure text from the tree's record.

import type { Tree } from "../harness/surface.ts";
import type { ContextTree } from "./context-tree.ts";
import { BASE_BASELINE } from "./pool.ts";

export const COLUMN = 33;

export function line(path: string, what: string): string {
  return `${path.padEnd(COLUMN - 1)} ${what}`;
}

export function indented(text: string): string {
  return `${" ".repeat(COLUMN)}${text}`;
}

/**
 * Which tree each harness.diff is against, when not all are against context/harness/ (fix of
 * docs/differences.md R25). A baseline that is itself a pool candidate points at that candidate's
 * harness.
 */
export function baselinesNote(t: {
  pool: readonly string[];
  poolBaselines: readonly string[];
  current: Tree | null;
}): string {
  const named = t.poolBaselines.map((b) => {
    if (t.pool.includes(b)) return `\`${b}\` is pool/${b}/harness/`;
    if (b === BASE_BASELINE) return `\`${b}\` is the harness this task started from`;
    return `\`${b}\` is not in this context`;
  });
  const current =
    t.current === null ? "`empty` is no harness at all" : "`current` is context/harness/";
  return (
    "each harness.diff is against the harness that candidate was edited from, named on its " +
    `\`---\` lines: ${[current, ...named].join(", ")}`
  );
}

export function firstSix(names: readonly string[], suffix: string): string {
  const shown = names
    .slice(0, 6)
    .map((n) => `${n}${suffix}`)
    .join(", ");
  return names.length > 6 ? `${shown} (+${names.length - 6} more)` : shown;
}

/**
 * The layout section of the mission: one line per folder that exists, nothing else (fix of
 * docs/differences.md E11: the deliverable lines say which form each rollout's deliverable took).
 */
export function contextLayout(
  t: Omit<ContextTree, "layout" | "root" | "taskId" | "skippedSymlinks"> & {
    current: Tree | null;
  },
): string {
  const lines = [line("context/task.md", "the task as the agent received it")];
  if (t.sourceFiles > 0) {
    lines.push(line("context/source/", `the task's source material (${t.sourceFiles} files)`));
  }
  if (t.decisions > 0) {
    lines.push(line("context/decisions/", "notes of earlier edits and composition decisions"));
  }
  if (t.rollouts.length > 0) {
    lines.push(line("context/rollouts/", `FULL trajectories: ${firstSix(t.rollouts, ".md")}`));
  }
  const mixed = t.deliverableDirs.length > 0 && t.deliverableTexts.length > 0;
  if (t.deliverableDirs.length > 0) {
    const which = mixed ? ` (for ${firstSix(t.deliverableDirs, "")})` : "";
    if (t.deliverablesMode === "names") {
      lines.push(
        line(
          "context/deliverables/<label>/",
          `INDEX.md lists WHICH files each rollout produced, names only${which}`,
        ),
        `${" ".repeat(COLUMN)}contents are deliberately not provided: work from the trajectories and the file set`,
      );
    } else {
      lines.push(
        line(
          "context/deliverables/<label>/",
          `the files each rollout produced, one text per artifact; start with INDEX.md${which}`,
        ),
      );
    }
  }
  if (t.deliverableTexts.length > 0) {
    const which = mixed ? ` (for ${firstSix(t.deliverableTexts, "")})` : "";
    lines.push(
      line("context/deliverables/<label>.md", `what each rollout produced, as one text${which}`),
    );
  }
  if (t.current !== null) {
    lines.push(line("context/harness/", `the harness you are editing (${t.harnessFiles} files)`));
  }
  if (t.pool.length > 0) {
    const baseline =
      t.current === null && t.poolBaselines.length === 0
        ? "; with no harness under edit, each harness.diff is against an empty one"
        : "";
    lines.push(
      line(
        "context/pool/",
        `${t.pool.length} candidates, each with its harness, harness.diff and (where it ran) its rollout${baseline}`,
      ),
    );
    if (t.poolBaselines.length > 0) lines.push(indented(baselinesNote(t)));
  }
  if (t.library) {
    const how = t.libraryIndex ? "browse INDEX.md first, then open" : "browse it and open";
    lines.push(line("context/library/", `earlier tasks in this area; ${how} what looks relevant`));
  }
  return lines.join("\n");
}
