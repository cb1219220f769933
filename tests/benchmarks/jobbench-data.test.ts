// JobBench's data: discovery (ids, order, problems), the manifest setup writes and the refusals
// when it is missing, torn or stale, and setup itself — adopting a copy, fetching with real git
// from local repositories, and refusing in one line (leaving nothing behind) when it cannot fetch.

import { afterAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchDataError } from "../../src/benchmarks/common/install.ts";
import {
  discoverSplit,
  installedJobBench,
  JB_CHECKOUT,
  JB_MANIFEST,
} from "../../src/benchmarks/jobbench/jb-data.ts";
import { SetupError, setupJobBench } from "../../src/benchmarks/jobbench/jb-setup.ts";
import { JB_FIXTURE } from "../helpers/jobbench.ts";

const root = mkdtempSync(join(tmpdir(), "h2-jb-data-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function copyFixture(): string {
  const dir = join(root, `copy${n++}`);
  cpSync(JB_FIXTURE, dir, { recursive: true });
  return dir;
}
const quiet = () => {};

function gitRun(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: root,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

describe("discovering a split", () => {
  test("ids are <profession>/taskN, by profession then task number; problems are named", () => {
    const copy = copyFixture();
    // task10 sorts after task2 by number, not by name
    cpSync(
      join(copy, "dataset/main/accountant/task2"),
      join(copy, "dataset/main/accountant/task10"),
      { recursive: true },
    );
    mkdirSync(join(copy, "dataset/main/accountant/task3/task_folder"), { recursive: true });
    writeFileSync(
      join(copy, "dataset/main/accountant/task3/task_folder/TASK_INSTRUCTIONS.txt"),
      "x",
    );
    mkdirSync(join(copy, "dataset/main/accountant/notes"), { recursive: true });
    const found = discoverSplit(copy, "main");
    expect(found.tasks.map((t) => t.id)).toEqual([
      "accountant/task1",
      "accountant/task2",
      "accountant/task10",
      "logistics_coordinator/task1",
      "logistics_coordinator/task2",
    ]);
    expect(found.problems).toEqual([
      {
        path: join(copy, "dataset/main/accountant/task3"),
        problem: "has no RUBRICS.json beside its task_folder/",
      },
    ]);
    expect(discoverSplit(copy, "easy").tasks.map((t) => t.id)).toEqual(["accountant/task1"]);
  });
});

describe("setup --from and the manifest", () => {
  test("adopts a copy in place and records its task counts; run-time reads verify it", async () => {
    const copy = copyFixture();
    const deps = join(root, "deps-from");
    const r = await setupJobBench({ deps, from: copy, env: process.env, say: quiet });
    expect(r.manifest.source).toBe("from");
    expect(r.manifest.root).toBe(copy);
    expect(r.manifest.tasks.main).toBe(4);
    expect(r.manifest.tasks.easy).toBe(1);
    expect(existsSync(join(deps, JB_MANIFEST))).toBe(true);
    expect(installedJobBench(deps).root).toBe(copy);
    // the fixture has no .venv: setup says what the judge still needs
    expect(r.notes.join("\n")).toContain("uv sync");

    // a task added after setup makes the manifest stale: refused with the command to fix it
    cpSync(
      join(copy, "dataset/main/accountant/task2"),
      join(copy, "dataset/main/accountant/task9"),
      {
        recursive: true,
      },
    );
    expect(() => installedJobBench(deps)).toThrow(
      /changed since setup .*5 main.*run harness2 setup --bench jb/,
    );
    await setupJobBench({ deps, from: copy, env: process.env, say: quiet });
    expect(installedJobBench(deps).tasks.main).toBe(5);
  });

  test("no manifest, a torn manifest, a vanished checkout: each one line naming setup", async () => {
    const deps = join(root, "deps-none");
    expect(() => installedJobBench(deps)).toThrow(BenchDataError);
    expect(() => installedJobBench(deps)).toThrow(/not set up .*harness2 setup --bench jb/);
    mkdirSync(deps, { recursive: true });
    writeFileSync(join(deps, JB_MANIFEST), "{ torn");
    expect(() => installedJobBench(deps)).toThrow(/not a manifest harness2 wrote/);
    const copy = copyFixture();
    await setupJobBench({ deps, from: copy, env: process.env, say: quiet });
    rmSync(copy, { recursive: true });
    expect(() => installedJobBench(deps)).toThrow(/is gone: run harness2 setup/);
  });

  test("a folder with no task is refused, and no manifest is written", async () => {
    const empty = join(root, "empty");
    mkdirSync(join(empty, "dataset", "main"), { recursive: true });
    const deps = join(root, "deps-empty");
    await expect(
      setupJobBench({ deps, from: empty, env: process.env, say: quiet }),
    ).rejects.toThrow(/holds no JobBench task/);
    expect(existsSync(join(deps, JB_MANIFEST))).toBe(false);
    await expect(
      setupJobBench({ deps, from: join(root, "nope"), env: process.env, say: quiet }),
    ).rejects.toThrow(/is not a folder/);
  });
});

describe("setup fetching with git", () => {
  test("fetches the pinned commit and the dataset, lays out both splits, records both revisions", async () => {
    // The upstream repository (eval/judge.py, no data) and the dataset repository (dataset/ and
    // dataset_easy/ as the Hugging Face repository has them), both local git repositories.
    const upstream = join(root, "upstream");
    mkdirSync(join(upstream, "eval"), { recursive: true });
    cpSync(join(JB_FIXTURE, "eval/judge.py"), join(upstream, "eval/judge.py"));
    writeFileSync(join(upstream, "pyproject.toml"), '[project]\nname = "job-bench-eval"\n');
    writeFileSync(join(upstream, "uv.lock"), "version = 1\n");
    gitRun(upstream, "init", "-q");
    gitRun(upstream, "add", ".");
    gitRun(upstream, "commit", "-q", "-m", "judge");
    const commit = gitRun(upstream, "rev-parse", "HEAD");
    const hf = join(root, "hf");
    cpSync(join(JB_FIXTURE, "dataset/main"), join(hf, "dataset"), { recursive: true });
    cpSync(join(JB_FIXTURE, "dataset/easy"), join(hf, "dataset_easy"), { recursive: true });
    gitRun(hf, "init", "-q");
    gitRun(hf, "add", ".");
    gitRun(hf, "commit", "-q", "-m", "data");
    const revision = gitRun(hf, "rev-parse", "HEAD");

    const deps = join(root, "deps-fetch");
    // A contract fake of uv (no package index is reachable here): `uv sync --locked` in a project
    // with pyproject.toml and uv.lock makes the project's .venv, as the real one does.
    const bin = join(root, "fake-uv-bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "uv"),
      [
        "#!/bin/sh",
        '[ "$1" = sync ] && [ "$2" = --locked ] && [ -f pyproject.toml ] && [ -f uv.lock ] || { echo "fake uv: unexpected $*" >&2; exit 2; }',
        'mkdir -p .venv/bin && ln -s "$(command -v python3)" .venv/bin/python',
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      HARNESS2_JB_REPO_URL: `file://${upstream}`,
      HARNESS2_JB_REPO_COMMIT: commit,
      HARNESS2_JB_DATASET_URL: `file://${hf}`,
    };
    const lines: string[] = [];
    const r = await setupJobBench({ deps, env, say: (l) => lines.push(l) });
    expect(r.manifest.source).toBe("download");
    expect(r.manifest.repo.commit).toBe(commit);
    expect(r.manifest.dataset.revision).toBe(revision);
    expect(r.manifest.tasks).toMatchObject({ main: 4, easy: 1 });
    const checkout = join(deps, JB_CHECKOUT);
    expect(existsSync(join(checkout, "eval/judge.py"))).toBe(true);
    expect(existsSync(join(checkout, "dataset/main/accountant/task1/RUBRICS.json"))).toBe(true);
    expect(existsSync(join(checkout, ".hf-dataset"))).toBe(false);
    expect(readdirSync(deps).sort()).toEqual([JB_CHECKOUT, `${JB_CHECKOUT}.harness2.json`]);
    expect(lines.join("\n")).toContain("fetching");
    // uv made the judge's .venv: no note left about its packages
    expect(existsSync(join(checkout, ".venv/bin/python"))).toBe(true);
    expect(r.notes).toEqual([]);
    // again: nothing is fetched, the data is verified and the manifest rewritten
    const again = await setupJobBench({ deps, env, say: quiet });
    expect(again.manifest.repo.commit).toBe(commit);
  });

  test("an unreachable source fails in one line naming it and --from, and leaves nothing behind", async () => {
    const deps = join(root, "deps-offline");
    const env = { ...process.env, HARNESS2_JB_REPO_URL: "http://127.0.0.1:9/job-bench-eval.git" };
    const err = await setupJobBench({ deps, env, say: quiet }).catch((e) => e);
    expect(err).toBeInstanceOf(SetupError);
    expect(err.message).toContain("could not fetch http://127.0.0.1:9/job-bench-eval.git");
    expect(err.message).toContain("--from DIR");
    expect(err.message).not.toContain("\n");
    expect(readdirSync(deps)).toEqual([]);
  });

  test("a checkout setup did not write is never overwritten", async () => {
    const deps = join(root, "deps-foreign");
    mkdirSync(join(deps, JB_CHECKOUT), { recursive: true });
    await expect(setupJobBench({ deps, env: process.env, say: quiet })).rejects.toThrow(
      /exists but setup did not write it .*--from/,
    );
  });
});
