// How `harness2 setup` installs a benchmark's data (docs/benchmarks.md "Setup"), the same for every
// benchmark: git fetches into a staging folder renamed into place only once verified, or a local
// copy adopted in place; and the manifest beside the checkout that every later command checks the
// data against (a task list changed since setup is refused, never silently used).

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { Harness2Error } from "../../core/lib/errors.ts";
import { NETWORK_ENV, pickEnv, runProcess, which } from "../../core/lib/process.ts";
import { dirExists, isRegularFile } from "../../core/lib/safe-fs.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";

/** Setup cannot finish; the message is one line with what failed and what to do. */
export class SetupError extends Harness2Error {
  constructor(message: string) {
    super(message);
  }
}

/** A benchmark cannot be used as installed; the message names the command that fixes it. */
export class BenchDataError extends Harness2Error {
  static override readonly errorKind = "environment";
  constructor(message: string) {
    super(message);
  }
}

/** The dependencies folder: `--dependencies`, else HARNESS2_DEPENDENCIES, else `./dependencies`. */
export function dependenciesDir(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  cwd: string,
): string {
  return resolve(cwd, flag ?? (env.HARNESS2_DEPENDENCIES || "dependencies"));
}

/** Why `url` cannot be a judge endpoint, or null when it can (an http or https URL). */
export function badEndpoint(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") return null;
    return `'${url}' is not an http(s) URL`;
  } catch {
    return `'${url}' is not a URL`;
  }
}

// ── the manifest ─────────────────────────────────────────────────────────────────────────────

export const Manifest = z.object({
  version: z.literal(1),
  bench: z.string().min(1),
  /** `download` (setup fetched it) or `from` (setup adopted a local copy in place). */
  source: z.enum(["download", "from"]),
  /** The checkout's absolute path. */
  root: z.string().min(1),
  repo: z.object({ url: z.string(), commit: z.string().nullable() }),
  dataset: z.object({ url: z.string().nullable(), revision: z.string().nullable() }),
  /** ISO time setup finished. */
  fetchedAt: z.string(),
  /** Task count per split (JobBench) or in all (`all`). */
  tasks: z.record(z.string(), z.number().int()),
  /** Names every task: a different list means the data changed since setup. */
  tasksHash: z.string(),
});
export type Manifest = z.infer<typeof Manifest>;

/** What a benchmark's installation is: its folder, manifest file and how its tasks are counted. */
export type Installation = {
  bench: string;
  /** The benchmark's name in messages (`JobBench`). */
  title: string;
  /** The checkout's folder under the dependencies folder. */
  checkout: string;
  /** The manifest's file name beside it. */
  manifestFile: string;
  /** Task counts and a fingerprint of the task list of a checkout. */
  fingerprint: (root: string) => { counts: Record<string, number>; hash: string };
};

function setupCommand(inst: Installation, deps: string): string {
  const flag = deps === resolve("dependencies") ? "" : ` --dependencies '${deps}'`;
  return `harness2 setup --bench ${inst.bench}${flag}`;
}

/** Written whole or not at all (a temp file renamed over it). */
export function writeManifest(path: string, manifest: Manifest): void {
  writeFileAtomic(path, `${JSON.stringify(Manifest.parse(manifest), null, 2)}\n`);
}

/**
 * The installed checkout, checked against its manifest: no manifest, a torn one, a missing
 * checkout, or a task list that changed since setup each refuse with the command that fixes it.
 */
export function readInstalled(inst: Installation, deps: string): Manifest {
  const path = join(deps, inst.manifestFile);
  const setup = setupCommand(inst, deps);
  if (!isRegularFile(path)) {
    throw new BenchDataError(
      `${inst.title} is not set up in ${deps} (no ${inst.manifestFile}): run ${setup} (add --from DIR to use a copy you already have)`,
    );
  }
  let m: Manifest;
  try {
    m = Manifest.parse(JSON.parse(readFileSync(path, "utf8")));
    if (m.bench !== inst.bench) throw new Error("another benchmark's manifest");
  } catch {
    throw new BenchDataError(`${path} is not a manifest harness2 wrote: run ${setup} again`);
  }
  if (!dirExists(m.root)) {
    throw new BenchDataError(
      `the ${inst.title} checkout ${m.root} named by ${path} is gone: run ${setup} again`,
    );
  }
  const now = inst.fingerprint(m.root);
  if (now.hash !== m.tasksHash) {
    const counts = (c: Record<string, number>) =>
      Object.entries(c)
        .map(([k, v]) => `${v} ${k}`)
        .join(" and ");
    throw new BenchDataError(
      `the ${inst.title} data in ${m.root} changed since setup (${counts(now.counts)} tasks now, ${counts(m.tasks)} recorded): run ${setup} again`,
    );
  }
  return m;
}

/** What an earlier download recorded, when its checkout is still in place; else null. */
export function previousDownload(inst: Installation, deps: string): Manifest | null {
  try {
    const m = readInstalled(inst, deps);
    return m.source === "download" ? m : null;
  } catch {
    return null;
  }
}

/** The manifest of a verified checkout, written beside it. */
export function recordInstall(
  inst: Installation,
  deps: string,
  fields: Pick<Manifest, "source" | "root" | "repo" | "dataset">,
): Manifest {
  const fp = inst.fingerprint(fields.root);
  const manifest: Manifest = {
    version: 1,
    bench: inst.bench,
    ...fields,
    fetchedAt: new Date().toISOString(),
    tasks: fp.counts,
    tasksHash: fp.hash,
  };
  writeManifest(join(deps, inst.manifestFile), manifest);
  return manifest;
}

/**
 * `--from DIR`: a local copy verified by `verify` (which throws a SetupError when it holds no
 * task) and recorded in place, with the commit it is at when it is a git checkout.
 */
export async function adoptInPlace<P>(
  inst: Installation,
  deps: string,
  from: string,
  env: Record<string, string | undefined>,
  verify: (root: string) => P,
  revision: string | null = null,
): Promise<{ manifest: Manifest; root: string; found: P }> {
  const root = resolve(from);
  if (!dirExists(root)) throw new SetupError(`--from ${root} is not a folder`);
  const found = verify(root);
  const manifest = recordInstall(inst, deps, {
    source: "from",
    root,
    repo: { url: root, commit: await commitOf(env, root) },
    dataset: { url: null, revision },
  });
  return { manifest, root, found };
}

// ── fetching ─────────────────────────────────────────────────────────────────────────────────

export const FROM_HINT = (bench: string) =>
  `get a copy elsewhere and run harness2 setup --bench ${bench} --from DIR`;

/** Runs git in `cwd`; a failure is a SetupError naming what could not be reached. */
export async function git(
  env: Record<string, string | undefined>,
  cwd: string,
  args: string[],
  what: string,
  bench: string,
): Promise<string> {
  let exit: Awaited<ReturnType<typeof runProcess>>;
  try {
    exit = await runProcess({
      argv: ["git", ...args],
      cwd,
      env: pickEnv(env, ["PATH", "HOME", "LANG", "LC_*", ...NETWORK_ENV], {
        GIT_TERMINAL_PROMPT: "0",
      }),
      timeoutMs: 1_800_000,
    });
  } catch (err) {
    if (err instanceof SpawnError) {
      throw new SetupError(`git is not on PATH: install git, or ${FROM_HINT(bench)}`);
    }
    throw err;
  }
  if (exit.code !== 0) {
    const why = exit.stderrTail.trim().split("\n").filter(Boolean).pop() ?? `exit ${exit.code}`;
    throw new SetupError(`could not fetch ${what} (${why}); ${FROM_HINT(bench)}`);
  }
  return exit.stdout;
}

/** The repository at exactly `commit`, fetched shallowly into the empty folder `dir`. */
export async function fetchPinned(
  env: Record<string, string | undefined>,
  dir: string,
  url: string,
  commit: string,
  bench: string,
): Promise<void> {
  await git(env, dir, ["init", "-q"], url, bench);
  await git(env, dir, ["fetch", "-q", "--depth", "1", url, commit], url, bench);
  await git(env, dir, ["checkout", "-q", "FETCH_HEAD"], url, bench);
}

/**
 * A dataset repository fetched shallowly into `dir` — at `revision` when one is given, else at its
 * default branch's head — and the revision it is at.
 */
export async function cloneDataset(
  env: Record<string, string | undefined>,
  cwd: string,
  url: string,
  dir: string,
  bench: string,
  revision?: string,
): Promise<string> {
  if (revision) {
    mkdirSync(dir, { recursive: true });
    await fetchPinned(env, dir, url, revision, bench);
  } else {
    await git(env, cwd, ["clone", "-q", "--depth", "1", url, dir], url, bench);
  }
  return (await git(env, dir, ["rev-parse", "HEAD"], url, bench)).trim();
}

/** The commit a local copy is at, when it is a git checkout; else null. */
export async function commitOf(
  env: Record<string, string | undefined>,
  root: string,
): Promise<string | null> {
  if (!dirExists(join(root, ".git"))) return null;
  const out = await git(env, root, ["rev-parse", "HEAD"], root, "").catch(() => "");
  return out.trim() || null;
}

/**
 * The python of a checkout's own virtual environment (`.venv/bin/python`, usually a symlink to
 * the interpreter it was made with), or null when it has none or the link is broken.
 */
export function venvPython(root: string): string | null {
  const path = join(root, ".venv", "bin", "python");
  return existsSync(path) ? path : null;
}

/** The judge's python: the setting named `envVar`, else the checkout's .venv, else null. */
export function judgePythonOf(
  root: string,
  env: Record<string, string | undefined>,
  envVar: string,
): string | null {
  return env[envVar] || venvPython(root);
}

/**
 * What a checkout's own judge needs from a package registry, installed the checkout's own way:
 * `uv sync` (with `--locked` when it has a uv.lock) where it has a pyproject.toml and uv is on
 * PATH. Returns notes for the user; a failure is a note, never a half-trusted checkout (the data
 * is already verified, and `check` reports the judge's python).
 */
export async function installJudgeDeps(
  env: Record<string, string | undefined>,
  root: string,
  /** The setting that names another interpreter, or null when there is none. */
  envVar: string | null,
  what: { packages: string; setting: string } = {
    packages: "the judge's python packages",
    setting: "a python that has them",
  },
): Promise<string[]> {
  if (!isRegularFile(join(root, "pyproject.toml"))) return [];
  const manual = `run \`uv sync\` in ${root}${envVar === null ? "" : `, or set ${envVar} to ${what.setting}`}`;
  const uv = which("uv", env);
  if (uv === null) return [`${what.packages} are not installed (no uv on PATH): ${manual}`];
  const locked = isRegularFile(join(root, "uv.lock")) ? ["--locked"] : [];
  const exit = await runProcess({
    argv: [uv, "sync", ...locked],
    cwd: root,
    env: pickEnv(env, ["PATH", "HOME", "LANG", "LC_*", "UV_*", ...NETWORK_ENV]),
    timeoutMs: 1_800_000,
  }).catch((err: unknown) => (err instanceof SpawnError ? null : Promise.reject(err)));
  if (exit === null || exit.code !== 0) {
    const why = exit?.stderrTail.trim().split("\n").pop() ?? "uv could not start";
    return [`\`uv sync\` failed in ${root} (${why}): ${manual}`];
  }
  return [];
}

/**
 * Builds the checkout in a staging folder beside its final place and renames it there only when
 * `build` (which fetches and verifies) returned; any failure removes the staging folder. A final
 * folder setup did not write is never touched.
 */
export async function stagedCheckout<T>(
  inst: Installation,
  deps: string,
  build: (staging: string) => Promise<T>,
): Promise<{ root: string; built: T }> {
  const final = join(deps, inst.checkout);
  if (existsSync(final)) {
    throw new SetupError(
      `${final} exists but setup did not write it (no ${join(deps, inst.manifestFile)}): move it aside, or adopt it with --from '${final}'`,
    );
  }
  const staging = join(deps, `.${inst.checkout}.partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const built = await build(staging);
    renameSync(staging, final);
    return { root: final, built };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
