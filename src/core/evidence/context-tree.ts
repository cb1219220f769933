// The record of a built evidence tree: where it is, what landed in each of its folders, and the
// layout text the mission shows (naming only what exists). A value; building it is tree.ts's job.

import { z } from "zod";

/** A built evidence tree and what actually landed in it; `layout` names only what exists. */
export const ContextTree = z
  .object({
    root: z.string().min(1),
    taskId: z.string().min(1),
    sourceFiles: z.number().int().nonnegative(),
    /** Symlinks in the task's source folder, skipped and never followed. */
    skippedSymlinks: z.array(z.string()),
    decisions: z.number().int().nonnegative(),
    /** rollouts/<name>.md files whose trajectory rendered. */
    rollouts: z.array(z.string()),
    /** "<label>: Type: message" for each trajectory that could not be rendered. */
    failed: z.array(z.string()),
    deliverablesMode: z.enum(["contents", "names"]),
    /** Rollouts whose deliverable is a folder deliverables/<name>/ with INDEX.md. */
    deliverableDirs: z.array(z.string()),
    /** Rollouts whose deliverable is one text, deliverables/<name>.md (contents mode only). */
    deliverableTexts: z.array(z.string()),
    /** On-surface files under harness/ (0 when no harness is being edited). */
    harnessFiles: z.number().int().nonnegative(),
    pool: z.array(z.string()),
    /**
     * Trees other than context/harness/ that pool diffs are against, as their headers name them
     * (fix docs/differences.md R25: in sequential mode each candidate is diffed against what it
     * edited).
     */
    poolBaselines: z.array(z.string()),
    library: z.boolean(),
    /** library/INDEX.md exists. */
    libraryIndex: z.boolean(),
    layout: z.string(),
  })
  .readonly();
export type ContextTree = z.infer<typeof ContextTree>;
