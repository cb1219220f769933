// `harness2 setup --bench jb` (docs/benchmarks.md "Setup"): fetches the pinned job-bench-eval
// checkout and the Hugging Face dataset into a staging folder beside the final one, lays the two
// splits out as `dataset/main` and `dataset/easy`, verifies the layout, and only then renames the
// folder into place and writes the manifest. `--from DIR` adopts a local copy in place instead. A
// failure removes the staging folder: nothing half-written is ever left where a run would look.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { pickEnv, runProcess } from "../../core/lib/process.ts";
import { dirExists, isRegularFile } from "../../core/lib/safe-fs.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";
import {
  discoverSplit,
  JB_CHECKOUT,
  JB_DATASET_URL,
  JB_REPO_COMMIT,
  JB_REPO_URL,
  JB_SPLITS,
  type JbManifest,
  type JbProblem,
  manifestPath,
  tasksFingerprint,
  writeManifest,
} from "./jb-data.ts";

/** Setup cannot finish; the message is one line with what failed and what to do. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SetupError";
  }
}

export type SetupOptions = {
  deps: string;
  /** A local checkout to adopt in place. */
  from?: string;
  env: Record<string, string | undefined>;
  /** Progress lines. */
  say: (line: string) => void;
};

export type SetupResult = {
  manifest: JbManifest;
  /** Folders that look like tasks but are not usable, one problem each. */
  problems: JbProblem[];
  /** Notes on what the judge still needs. */
  notes: string[];
};

const FROM_HINT = "get a copy elsewhere and run harness2 setup --bench jb --from DIR";

export async function setupJobBench(opts: SetupOptions): Promise<SetupResult> {
  const deps = resolve(opts.deps);
  mkdirSync(deps, { recursive: true });
  if (opts.from !== undefined) return adopt(resolve(opts.from), deps, opts);
  const final = join(deps, JB_CHECKOUT);
  if (existsSync(final)) {
    if (!isRegularFile(manifestPath(deps))) {
      throw new SetupError(
        `${final} exists but setup did not write it (no ${manifestPath(deps)}): move it aside, or adopt it with --from '${final}'`,
      );
    }
    opts.say(`already fetched: ${final}; verifying it again`);
    const old = JSON.parse(readFileSync(manifestPath(deps), "utf8")) as JbManifest;
    return finish(final, deps, "download", old.repo, old.dataset, opts);
  }
  const repoUrl = opts.env.HARNESS2_JB_REPO_URL || JB_REPO_URL;
  const commit = opts.env.HARNESS2_JB_REPO_COMMIT || JB_REPO_COMMIT;
  const datasetUrl = opts.env.HARNESS2_JB_DATASET_URL || JB_DATASET_URL;
  const staging = join(deps, `.${JB_CHECKOUT}.partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    mkdirSync(staging);
    opts.say(`fetching ${repoUrl} at ${commit.slice(0, 12)}`);
    await git(opts.env, staging, ["init", "-q"], repoUrl);
    await git(opts.env, staging, ["fetch", "-q", "--depth", "1", repoUrl, commit], repoUrl);
    await git(opts.env, staging, ["checkout", "-q", "FETCH_HEAD"], repoUrl);
    opts.say(`fetching the dataset ${datasetUrl}`);
    const hf = join(staging, ".hf-dataset");
    await git(opts.env, staging, ["clone", "-q", "--depth", "1", datasetUrl, hf], datasetUrl);
    const revision = (await git(opts.env, hf, ["rev-parse", "HEAD"], datasetUrl)).trim();
    layOutSplits(hf, join(staging, "dataset"));
    rmSync(hf, { recursive: true, force: true });
    // Verified before it is moved into place: a bad download never becomes the checkout.
    verify(staging);
    renameSync(staging, final);
    return finish(
      final,
      deps,
      "download",
      { url: repoUrl, commit },
      { url: datasetUrl, revision },
      opts,
    );
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
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
      `the dataset has neither dataset/ nor dataset_easy/ (found: ${readdirSync(hf).join(", ") || "nothing"}); ${FROM_HINT}`,
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

async function adopt(root: string, deps: string, opts: SetupOptions): Promise<SetupResult> {
  if (!dirExists(root)) throw new SetupError(`--from ${root} is not a folder`);
  const commit = dirExists(join(root, ".git"))
    ? (await git(opts.env, root, ["rev-parse", "HEAD"], root).catch(() => "")).trim() || null
    : null;
  return finish(
    root,
    deps,
    "from",
    { url: root, commit },
    { url: null, revision: revisionOf(root) },
    opts,
  );
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

function finish(
  root: string,
  deps: string,
  source: JbManifest["source"],
  repo: JbManifest["repo"],
  dataset: JbManifest["dataset"],
  opts: SetupOptions,
): SetupResult {
  const { problems } = verify(root);
  const fp = tasksFingerprint(root);
  const manifest: JbManifest = {
    version: 1,
    bench: "jb",
    source,
    root,
    repo,
    dataset,
    fetchedAt: new Date().toISOString(),
    tasks: { main: fp.counts.main, easy: fp.counts.easy, hash: fp.hash },
  };
  writeManifest(deps, manifest);
  const notes: string[] = [];
  if (!isRegularFile(join(root, "eval", "judge.py"))) {
    notes.push(`no eval/judge.py in ${root}: harness2 judge cannot score JobBench runs from it`);
  } else if (
    !isRegularFile(join(root, ".venv", "bin", "python")) &&
    !opts.env.HARNESS2_JB_JUDGE_PYTHON
  ) {
    notes.push(
      `the judge's python packages: run \`uv sync\` in ${root}, or set HARNESS2_JB_JUDGE_PYTHON to a python that has them`,
    );
  }
  return { manifest, problems, notes };
}

/** Runs git in `cwd`; a failure is a SetupError naming what could not be reached. */
async function git(
  env: Record<string, string | undefined>,
  cwd: string,
  args: string[],
  what: string,
): Promise<string> {
  let exit: Awaited<ReturnType<typeof runProcess>>;
  try {
    exit = await runProcess({
      argv: ["git", ...args],
      cwd,
      env: pickEnv(
        env,
        [
          "PATH",
          "HOME",
          "LANG",
          "LC_*",
          "HTTPS_PROXY",
          "HTTP_PROXY",
          "NO_PROXY",
          "https_proxy",
          "http_proxy",
          "no_proxy",
        ],
        {
          GIT_TERMINAL_PROMPT: "0",
          GIT_LFS_SKIP_SMUDGE: env.GIT_LFS_SKIP_SMUDGE ?? "0",
        },
      ),
      timeoutMs: 1_800_000,
    });
  } catch (err) {
    if (err instanceof SpawnError)
      throw new SetupError(`git is not on PATH: install git, or ${FROM_HINT}`);
    throw err;
  }
  if (exit.code !== 0) {
    const why = exit.stderrTail.trim().split("\n").filter(Boolean).pop() ?? `exit ${exit.code}`;
    throw new SetupError(`could not fetch ${what} (${why}); ${FROM_HINT}`);
  }
  return exit.stdout;
}
