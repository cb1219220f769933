// `harness2 setup --bench jb` (docs/benchmarks.md "Setup"): the pinned job-bench-eval checkout and
// the Hugging Face dataset fetched with git into a staging folder, the dataset's two splits laid
// out as `dataset/main` and `dataset/easy`, the layout verified, and only then the folder renamed
// into place and the manifest written; or `--from DIR`, a local copy adopted in place.

import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { dirExists, isRegularFile } from "../../core/lib/safe-fs.ts";
import {
  adoptInPlace,
  cloneDataset,
  FROM_HINT,
  fetchPinned,
  installJudgeDeps,
  judgePythonOf,
  type Manifest,
  previousDownload,
  recordInstall,
  SetupError,
  stagedCheckout,
} from "../common/install.ts";
import { calcImage } from "../common/judge-env.ts";
import {
  discoverSplit,
  JB_DATASET_URL,
  JB_INSTALL,
  JB_REPO_COMMIT,
  JB_REPO_URL,
  JB_SPLITS,
  type JbProblem,
} from "./jb-data.ts";

export { SetupError };

export type SetupOptions = {
  deps: string;
  /** A local checkout to adopt in place. */
  from?: string;
  env: Record<string, string | undefined>;
  /** Progress lines. */
  say: (line: string) => void;
};

export type SetupResult = {
  manifest: Manifest;
  /** Folders that look like tasks but are not usable, one problem each. */
  problems: JbProblem[];
  /** Notes on what the judge still needs. */
  notes: string[];
};

export async function setupJobBench(opts: SetupOptions): Promise<SetupResult> {
  const deps = resolve(opts.deps);
  mkdirSync(deps, { recursive: true });
  if (opts.from !== undefined) {
    const from = resolve(opts.from);
    const adopted = await adoptInPlace(JB_INSTALL, deps, from, opts.env, verify, revisionOf(from));
    return { manifest: adopted.manifest, ...adopted.found, notes: notes(adopted.root, opts.env) };
  }
  const existing = previousDownload(JB_INSTALL, deps);
  if (existing !== null) {
    opts.say(`already fetched: ${existing.root}; verifying it again`);
    const found = verify(existing.root);
    const manifest = recordInstall(JB_INSTALL, deps, existing);
    return { manifest, ...found, notes: notes(existing.root, opts.env) };
  }
  const repoUrl = opts.env.HARNESS2_JB_REPO_URL || JB_REPO_URL;
  const commit = opts.env.HARNESS2_JB_REPO_COMMIT || JB_REPO_COMMIT;
  const datasetUrl = opts.env.HARNESS2_JB_DATASET_URL || JB_DATASET_URL;
  const { root, built } = await stagedCheckout(JB_INSTALL, deps, async (staging) => {
    opts.say(`fetching ${repoUrl} at ${commit.slice(0, 12)}`);
    await fetchPinned(opts.env, staging, repoUrl, commit, "jb");
    opts.say(`fetching the dataset ${datasetUrl}`);
    const hf = join(staging, ".hf-dataset");
    const pin = opts.env.HARNESS2_JB_DATASET_REVISION || undefined;
    const revision = await cloneDataset(opts.env, staging, datasetUrl, hf, "jb", pin);
    layOutSplits(hf, join(staging, "dataset"));
    rmSync(hf, { recursive: true, force: true });
    // Verified before it is moved into place: a bad download never becomes the checkout.
    return { revision, found: verify(staging) };
  });
  const manifest = recordInstall(JB_INSTALL, deps, {
    source: "download",
    root,
    repo: { url: repoUrl, commit },
    dataset: { url: datasetUrl, revision: built.revision },
  });
  opts.say("installing the judge's python packages");
  const installed = await installJudgeDeps(opts.env, root, "HARNESS2_JB_JUDGE_PYTHON");
  return { manifest, ...built.found, notes: [...installed, ...notes(root, opts.env, installed)] };
}

/** The dataset repository's raw `dataset/` and `dataset_easy/` become `main/` and `easy/`. */
function layOutSplits(hf: string, dataset: string): void {
  mkdirSync(dataset, { recursive: true });
  const pairs: [string, string][] = [
    ["dataset", "main"],
    ["dataset_easy", "easy"],
  ];
  let moved = 0;
  for (const [from, to] of pairs) {
    const src = join(hf, from);
    if (!dirExists(src)) continue;
    rmSync(join(dataset, to), { recursive: true, force: true });
    renameSync(src, join(dataset, to));
    moved++;
  }
  if (moved === 0) {
    throw new SetupError(
      `the dataset has neither dataset/ nor dataset_easy/ (found: ${readdirSync(hf).join(", ") || "nothing"}); ${FROM_HINT("jb")}`,
    );
  }
}

function verify(root: string): { problems: JbProblem[] } {
  const problems: JbProblem[] = [];
  let tasks = 0;
  for (const split of JB_SPLITS) {
    const found = discoverSplit(root, split);
    tasks += found.tasks.length;
    problems.push(...found.problems);
  }
  if (tasks === 0) {
    const first = problems[0];
    throw new SetupError(
      `${root} holds no JobBench task (dataset/<main|easy>/<profession>/taskN/task_folder/TASK_INSTRUCTIONS.txt with RUBRICS.json beside task_folder/)${first ? `; e.g. ${first.path} ${first.problem}` : ""}`,
    );
  }
  return { problems };
}

/** The dataset revision a copy records of itself (upstream's setup state), or null. */
function revisionOf(root: string): string | null {
  for (const rel of ["dataset/.setup/state.json", "dataset/main/.harness2-download.json"]) {
    const path = join(root, rel);
    if (!isRegularFile(path)) continue;
    try {
      const v = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
      for (const key of ["revision", "source_revision", "hf_revision", "commit"]) {
        if (typeof v[key] === "string") return v[key] as string;
      }
    } catch {
      // not JSON: no revision recorded
    }
  }
  return null;
}

function notes(
  root: string,
  env: Record<string, string | undefined>,
  already: readonly string[] = [],
): string[] {
  if (!isRegularFile(join(root, "eval", "judge.py"))) {
    return [`no eval/judge.py in ${root}: harness2 judge cannot score JobBench runs from it`];
  }
  const out: string[] = [];
  if (already.length === 0 && judgePythonOf(root, env, "HARNESS2_JB_JUDGE_PYTHON") === null) {
    out.push(
      `the judge's python packages: run \`uv sync\` in ${root}, or set HARNESS2_JB_JUDGE_PYTHON to a python that has them`,
    );
  }
  // The judge recalculates every .xlsx deliverable in a pinned image its own set-up builds.
  const image = calcImage(root);
  if (image !== null) {
    out.push(
      `the judge's spreadsheet runtime: run (cd ${root} && ./eval/setup_judge.sh) with Docker running; it builds ${image}, without which every .xlsx deliverable goes ungraded (check --bench jb says whether it is there)`,
    );
  }
  return out;
}
