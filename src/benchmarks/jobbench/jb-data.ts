// JobBench's data as harness2 finds it (docs/benchmarks.md "JobBench"): the checkout's
// `dataset/<split>/<profession>/taskN/` folders, each with `task_folder/TASK_INSTRUCTIONS.txt` (what
// the agent sees) and `RUBRICS.json` (the answer key, seen only by the judge), and the manifest
// `harness2 setup` writes beside the checkout. Nothing here reads a rubric's contents.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { dirExists, isRegularFile } from "../../core/lib/safe-fs.ts";

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
  for (const profession of sortedDirs(base)) {
    if (profession.startsWith(".")) continue;
    const numbered = sortedDirs(join(base, profession))
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

function sortedDirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Names every task of every split, so a manifest can tell when the data changed under it. */
export function tasksFingerprint(root: string): { counts: Record<JbSplit, number>; hash: string } {
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

// ── the manifest ─────────────────────────────────────────────────────────────────────────────

export const JbManifest = z.object({
  version: z.literal(1),
  bench: z.literal(JB_BENCH),
  /** `download` (setup fetched it) or `from` (setup adopted a local copy in place). */
  source: z.enum(["download", "from"]),
  /** The checkout's absolute path. */
  root: z.string().min(1),
  repo: z.object({ url: z.string(), commit: z.string().nullable() }),
  dataset: z.object({ url: z.string().nullable(), revision: z.string().nullable() }),
  /** ISO time setup finished. */
  fetchedAt: z.string(),
  tasks: z.object({ main: z.number().int(), easy: z.number().int(), hash: z.string() }),
});
export type JbManifest = z.infer<typeof JbManifest>;

/** The dependencies folder: `--dependencies`, else HARNESS2_DEPENDENCIES, else `./dependencies`. */
export function dependenciesDir(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  cwd: string,
): string {
  return resolve(cwd, flag ?? (env.HARNESS2_DEPENDENCIES || "dependencies"));
}

export function manifestPath(deps: string): string {
  return join(deps, JB_MANIFEST);
}

/** Written whole or not at all (a temp file renamed over it). */
export function writeManifest(deps: string, manifest: JbManifest): void {
  const path = manifestPath(deps);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(JbManifest.parse(manifest), null, 2)}\n`);
  renameSync(tmp, path);
}

/** JobBench cannot be used as installed; the message says what to run. */
export class JbDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JbDataError";
  }
}

/**
 * The installed data, checked against its manifest: no manifest, a torn one, a missing checkout
 * or a task list that changed since setup each refuse with the command that fixes it.
 */
export function installedJobBench(deps: string): JbManifest {
  const path = manifestPath(deps);
  const setup = `harness2 setup --bench jb${deps === resolve("dependencies") ? "" : ` --dependencies '${deps}'`}`;
  if (!isRegularFile(path)) {
    throw new JbDataError(
      `JobBench is not set up in ${deps} (no ${JB_MANIFEST}): run ${setup} (add --from DIR to use a copy you already have)`,
    );
  }
  let manifest: JbManifest;
  try {
    manifest = JbManifest.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    throw new JbDataError(`${path} is not a manifest harness2 wrote: run ${setup} again`);
  }
  if (!dirExists(manifest.root)) {
    throw new JbDataError(
      `the JobBench checkout ${manifest.root} named by ${path} is gone: run ${setup} again`,
    );
  }
  const now = tasksFingerprint(manifest.root);
  if (now.hash !== manifest.tasks.hash) {
    throw new JbDataError(
      `the JobBench data in ${manifest.root} changed since setup (${now.counts.main} main and ${now.counts.easy} easy tasks now, ${manifest.tasks.main} and ${manifest.tasks.easy} recorded): run ${setup} again`,
    );
  }
  return manifest;
}
