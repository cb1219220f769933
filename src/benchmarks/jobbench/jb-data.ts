// JobBench's data as harness2 finds it (docs/benchmarks.md "JobBench"): the checkout's
// `dataset/<split>/<profession>/taskN/` folders, each with `task_folder/TASK_INSTRUCTIONS.txt` (what
// the agent sees) and `RUBRICS.json` (the answer key, seen only by the judge), and the manifest
// `harness2 setup` writes beside the checkout. Nothing here reads a rubric's contents.

import { createHash } from "node:crypto";
import { join } from "node:path";
import { dirExists, isRegularFile, subdirectories } from "../../core/lib/safe-fs.ts";
import { type Installation, type Manifest, readInstalled } from "../common/install.ts";

export { dependenciesDir } from "../common/install.ts";

export const JB_BENCH = "jb";
export const JB_SPLITS = ["main", "easy"] as const;
export type JbSplit = (typeof JB_SPLITS)[number];

/** The public repository and the commit setup fetches (docs/benchmarks.md). */
export const JB_REPO_URL = "https://github.com/Job-Bench/job-bench-eval.git";
export const JB_REPO_COMMIT = "409a7796b11ed3920ca8030f8d5569cfc6ad61b8";
/** The Hugging Face dataset; its revision is not pinned upstream, so setup records the one it got. */
export const JB_DATASET_URL = "https://huggingface.co/datasets/JobBench/job-bench";
/** The checkout's folder under the dependencies directory, and its manifest beside it. */
export const JB_CHECKOUT = "job-bench-eval";
export const JB_MANIFEST = "job-bench-eval.harness2.json";

export const INSTRUCTIONS_FILE = "TASK_INSTRUCTIONS.txt";
export const RUBRICS_FILE = "RUBRICS.json";

/** One task on disk. */
export type JbTask = {
  /** `<profession>/taskN`. */
  id: string;
  profession: string;
  number: number;
  /** `dataset/<split>/<profession>/taskN`. */
  dir: string;
  /** Its `task_folder/`: the agent's working material. */
  taskFolder: string;
};

/** The judge's label of a rollout: its run id with `/` replaced by `__` (as the original). */
export function jbLabel(runId: string): string {
  return runId.replaceAll("/", "__");
}

export type JbProblem = { path: string; problem: string };

export type JbDiscovery = { tasks: JbTask[]; problems: JbProblem[] };

const TASK_DIR = /^task(\d+)$/;

/**
 * Every task of one split, by profession (code-point order) and then task number, with the
 * folders that look like tasks but cannot be one (no instructions, no rubrics file).
 */
export function discoverSplit(root: string, split: JbSplit): JbDiscovery {
  const base = join(root, "dataset", split);
  const tasks: JbTask[] = [];
  const problems: JbProblem[] = [];
  if (!dirExists(base)) return { tasks, problems };
  for (const profession of subdirectories(base)) {
    const numbered = subdirectories(join(base, profession))
      .map((name) => ({ name, m: TASK_DIR.exec(name) }))
      .filter((t) => t.m !== null)
      .map((t) => ({ name: t.name, number: Number(t.m?.[1]) }))
      .sort((a, b) => a.number - b.number);
    for (const { name, number } of numbered) {
      const dir = join(base, profession, name);
      const taskFolder = join(dir, "task_folder");
      if (!isRegularFile(join(taskFolder, INSTRUCTIONS_FILE))) {
        problems.push({ path: dir, problem: `has no task_folder/${INSTRUCTIONS_FILE}` });
        continue;
      }
      if (!isRegularFile(join(dir, RUBRICS_FILE))) {
        problems.push({ path: dir, problem: `has no ${RUBRICS_FILE} beside its task_folder/` });
        continue;
      }
      tasks.push({ id: `${profession}/${name}`, profession, number, dir, taskFolder });
    }
  }
  return { tasks, problems };
}

/** Names every task of every split, so a manifest can tell when the data changed under it. */
export function tasksFingerprint(root: string): { counts: Record<string, number>; hash: string } {
  const h = createHash("sha256");
  const counts = { main: 0, easy: 0 } as Record<JbSplit, number>;
  for (const split of JB_SPLITS) {
    for (const t of discoverSplit(root, split).tasks) {
      counts[split]++;
      h.update(`${split}/${t.id}\n`);
    }
  }
  return { counts, hash: h.digest("hex").slice(0, 16) };
}

// ── the installation ─────────────────────────────────────────────────────────────────────────

export const JB_INSTALL: Installation = {
  bench: JB_BENCH,
  title: "JobBench",
  checkout: JB_CHECKOUT,
  manifestFile: JB_MANIFEST,
  fingerprint: tasksFingerprint,
};

/** The installed checkout, checked against its manifest (see readInstalled). */
export function installedJobBench(deps: string): Manifest {
  return readInstalled(JB_INSTALL, deps);
}
