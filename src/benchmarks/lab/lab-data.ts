// LAB's data as harness2 finds it (docs/benchmarks.md "LAB"): the checkout's
// `tasks/<practice-area>/<task>/task.json` (what the matter is, the files to deliver, and the
// criteria: the answer key) with the task's `documents/` data room. Criteria are dropped on every
// read: no value this module returns can hold one.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { dirExists, isRegularFile, subdirectories } from "../../core/lib/safe-fs.ts";
import { type Installation, type Manifest, readInstalled } from "../common/install.ts";

export const LAB_BENCH = "lab";
/** The public repository. It is not pinned in this build: setup records the commit it fetched. */
export const LAB_REPO_URL = "https://github.com/harveyai/harvey-labs.git";
export const LAB_CHECKOUT = "harvey-labs";
export const LAB_MANIFEST = "harvey-labs.harness2.json";
export const TASK_FILE = "task.json";
export const WORK_TYPES = ["analyze", "review", "draft", "research"] as const;

/** One task as the agent may know it: everything of task.json but its criteria. */
export type LabTask = {
  /** `<practice-area>/<task>`. */
  id: string;
  area: string;
  dir: string;
  title: string;
  workType: string;
  tags: string[];
  instructions: string;
  /** File name under output/ → what it must be. */
  deliverables: Record<string, string>;
  /** The data room, or null when the task has none. */
  documentsDir: string | null;
};

export type LabProblem = { path: string; problem: string };

const DELIVERABLE_NAME = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[^\0\\]+$/;

// Only these keys are read: `criteria` (and anything else) never leaves the parse.
const TaskJson = z.object({
  title: z.string({ error: "has no title" }).min(1, { error: "has no title" }),
  work_type: z.string().default(""),
  tags: z.array(z.string()).default([]),
  instructions: z
    .string({ error: "has no instructions" })
    .refine((s) => s.trim() !== "", { error: "has no instructions" }),
  deliverables: z
    .record(z.string(), z.string(), {
      error: "names no deliverables (a map of file name to description)",
    })
    .refine((d) => Object.keys(d).length > 0, { error: "names no deliverables" })
    .refine((d) => Object.keys(d).every((k) => DELIVERABLE_NAME.test(k)), {
      error: "has a deliverable path that leaves output/ (absolute, or with '..')",
    }),
});

/** One task.json, criteria stripped; a problem instead when it cannot be a task. */
export function readLabTask(root: string, area: string, name: string): LabTask | LabProblem {
  const dir = join(root, "tasks", area, name);
  const path = join(dir, TASK_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    return { path, problem: `is not valid JSON (${(err as Error).message.split("\n")[0]})` };
  }
  const parsed = TaskJson.safeParse(raw);
  if (!parsed.success) {
    return { path, problem: parsed.error.issues.map((i) => i.message).join("; ") };
  }
  const t = parsed.data;
  const documents = join(dir, "documents");
  return {
    id: `${area}/${name}`,
    area,
    dir,
    title: t.title,
    workType: t.work_type,
    tags: t.tags,
    instructions: t.instructions,
    deliverables: t.deliverables,
    documentsDir: dirExists(documents) ? documents : null,
  };
}

/** Every `tasks/<area>/<task>/task.json`, by practice area and then task name, with the unusable ones. */
export function discoverLab(root: string): { tasks: LabTask[]; problems: LabProblem[] } {
  const tasks: LabTask[] = [];
  const problems: LabProblem[] = [];
  for (const area of subdirectories(join(root, "tasks"))) {
    for (const name of subdirectories(join(root, "tasks", area))) {
      if (!isRegularFile(join(root, "tasks", area, name, TASK_FILE))) continue;
      const got = readLabTask(root, area, name);
      if ("problem" in got) problems.push(got);
      else tasks.push(got);
    }
  }
  return { tasks, problems };
}

export function labFingerprint(root: string): { counts: Record<string, number>; hash: string } {
  const h = createHash("sha256");
  const { tasks } = discoverLab(root);
  for (const t of tasks) h.update(`${t.id}\n`);
  return { counts: { all: tasks.length }, hash: h.digest("hex").slice(0, 16) };
}

export const LAB_INSTALL: Installation = {
  bench: LAB_BENCH,
  title: "LAB",
  checkout: LAB_CHECKOUT,
  manifestFile: LAB_MANIFEST,
  fingerprint: labFingerprint,
};

/** The installed checkout, checked against its manifest (see readInstalled). */
export function installedLab(deps: string): Manifest {
  return readInstalled(LAB_INSTALL, deps);
}
