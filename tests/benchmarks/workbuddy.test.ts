// The WorkBuddy cell's pure parts: discovery from task.toml, the job file, the prompt template's
// rule, stale job files, the verifier's score file, and the words of its prompts.

import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tar from "tar";
import { SetupError } from "../../src/benchmarks/common/install.ts";
import {
  adapterBlock,
  agentsStatus,
  installAgents,
  WB_AGENTS_VERSION,
} from "../../src/benchmarks/workbuddy/wb-agents.ts";
import {
  discoverSubset,
  readWbTask,
  WB_LEAK_GLOBS,
} from "../../src/benchmarks/workbuddy/wb-data.ts";
import {
  JOB_FILE_PREFIX,
  jobComposition,
  jobTimeoutS,
  sweepStaleJobFiles,
  templateProblems,
  withJobSlot,
  writeJobFile,
} from "../../src/benchmarks/workbuddy/wb-job.ts";
import { promptsForDomain, WB_PROMPTS } from "../../src/benchmarks/workbuddy/wb-prompts.ts";
import { readScore, WorkBuddyScorer } from "../../src/benchmarks/workbuddy/wb-scorer.ts";
import { routesOf } from "../../src/benchmarks/workbuddy/wb-settings.ts";
import { setupWorkBuddy } from "../../src/benchmarks/workbuddy/wb-setup.ts";
import { taskOfTrial } from "../../src/benchmarks/workbuddy/wb-trials.ts";
import { forbiddenWordsIn, SCANNED_PROMPT_FIELDS } from "../../src/core/seams/bench-prompts.ts";
import { normaliseScore } from "../../src/judge/judge.ts";
import { WB_FIXTURE } from "../helpers/workbuddy.ts";

const root = mkdtempSync(join(tmpdir(), "h2-wb-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function task(dir: string, toml: string, instruction: string | null = "Do it.\n"): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "task.toml"), toml);
  if (instruction !== null) writeFileSync(join(dir, "instruction.md"), instruction);
  return dir;
}

describe("discovery", () => {
  test("the fixture: one task per subset, the domain from category (office, web) or role (code)", () => {
    expect(discoverSubset(WB_FIXTURE, "office").tasks.map((t) => [t.id, t.domain])).toEqual([
      ["q3-expense-totals", "data-file-ops"],
    ]);
    expect(discoverSubset(WB_FIXTURE, "web").tasks.map((t) => [t.id, t.domain])).toEqual([
      ["tip-calculator", "page-interaction"],
    ]);
    expect(discoverSubset(WB_FIXTURE, "code").tasks.map((t) => [t.id, t.domain])).toEqual([
      ["fix-median", "developer"],
    ]);
    // The task's own agent limit, when it declares one.
    expect(discoverSubset(WB_FIXTURE, "office").tasks[0]?.agentTimeoutS).toBe(1800);
    expect(discoverSubset(WB_FIXTURE, "code").tasks[0]?.agentTimeoutS).toBeNull();
    for (const s of ["office", "web", "code"] as const) {
      expect(discoverSubset(WB_FIXTURE, s).problems).toEqual([]);
    }
  });

  test("a task without its domain, instruction or valid TOML is a problem, never a task", () => {
    const base = join(root, "disc");
    const good = task(join(base, "a"), '[metadata]\nrole = "qa"\n');
    expect(readWbTask(good, "a", "code")).toMatchObject({ id: "a", domain: "qa" });
    // The office domain key is category: a role alone is not one.
    expect(readWbTask(good, "a", "office")).toEqual({
      path: "office/a/task.toml",
      problem: "has no [metadata] category (a non-empty string naming the task's domain)",
    });
    const blank = task(join(base, "b"), '[metadata]\ncategory = "  "\n');
    expect(readWbTask(blank, "b", "web")).toMatchObject({
      problem: expect.stringContaining("category"),
    });
    const notString = task(join(base, "c"), "[metadata]\ncategory = 3\n");
    expect(readWbTask(notString, "c", "web")).toMatchObject({
      problem: expect.stringContaining("non-empty string"),
    });
    const torn = task(join(base, "d"), "[metadata\ncategory = ");
    expect(readWbTask(torn, "d", "web")).toMatchObject({
      problem: expect.stringContaining("not valid TOML"),
    });
    const noInstruction = task(join(base, "e"), '[metadata]\ncategory = "doc-ops"\n', null);
    expect(readWbTask(noInstruction, "e", "office")).toEqual({
      path: "office/e",
      problem: "has no instruction.md",
    });
    const empty = task(join(base, "f"), '[metadata]\ncategory = "doc-ops"\n', " \n");
    expect(readWbTask(empty, "f", "office")).toEqual({
      path: "office/f/instruction.md",
      problem: "is empty",
    });
    mkdirSync(join(base, "g"), { recursive: true });
    expect(readWbTask(join(base, "g"), "g", "office")).toEqual({
      path: "office/g",
      problem: "has no task.toml",
    });
  });

  test("leak globs per subset: solution/ only exists for code", () => {
    expect(WB_LEAK_GLOBS.code).toEqual(["tests/**", "solution/**", "environment/**"]);
    expect(WB_LEAK_GLOBS.office).toEqual(["tests/**", "environment/**"]);
    expect(WB_LEAK_GLOBS.web).toEqual(["tests/**", "environment/**"]);
  });
});

describe("the job composition", () => {
  test("is the checkout's own format: model, harness, dataset, backend, connection, selection, overrides", () => {
    const checkout = join(root, "job-checkout");
    const req = {
      subset: "office" as const,
      jobsDir: join(root, "jobs", "j1"),
      jobName: "wb-office-q3-base-1",
      taskId: "q3-expense-totals",
      attempts: 3,
      concurrency: 2,
      harness: { family: "harness2-opencode" as const, version: "1.14.18" },
      params: { harness_workspace: "/w", prompt_template_path: "/w/_composed/prompt.j2" },
      route: "harness2/solver" as const,
      judge: null,
    };
    const slug = writeJobFile(checkout, req);
    expect(slug).toBe(`${JOB_FILE_PREFIX}wb-office-q3-base-1`);
    const job = Bun.YAML.parse(
      readFileSync(join(checkout, "configs/jobs", `${slug}.yaml`), "utf8"),
    ) as Record<string, unknown>;
    expect(job).toEqual({
      model: "harness2/solver",
      harness: "harness2-opencode/1.14.18",
      dataset: "datasets/wb-bench-office-v1.0/tasks",
      harness_backend: "local",
      model_connection: "direct",
      jobs_dir: join(root, "jobs", "j1"),
      n_attempts: 3,
      orchestrator_override: { n_concurrent_trials: 2 },
      task_selection: { mode: "name", names: ["q3-expense-totals"] },
      harness_params_override: {
        harness_workspace: "/w",
        prompt_template_path: "/w/_composed/prompt.j2",
      },
    });
    // Web: the verifier's judge runs only through the checkout's proxy, on harness2's judge route.
    const web = jobComposition({
      ...req,
      subset: "web",
      params: {},
      judge: "harness2/judge",
      timeoutMultiplier: 0.5,
    });
    expect(web).toMatchObject({
      dataset: "datasets/wb-bench-web-v1.0/tasks",
      model_connection: "local_proxy",
      llm_judge_override: { model: "harness2/judge" },
      timeout_multiplier: 0.5,
    });
    expect(web).not.toHaveProperty("harness_params_override");
  });

  test("the time budget: ⌈trials / concurrency⌉ trials plus the slack", () => {
    expect(jobTimeoutS(1, 2, 100, 900)).toBe(1000);
    expect(jobTimeoutS(3, 2, 100, 0)).toBe(200);
    expect(jobTimeoutS(4, 2, 4320, 900)).toBe(9540);
  });

  test("only our job files older than the limit are swept", () => {
    const checkout = join(root, "sweep");
    const dir = join(checkout, "configs/jobs");
    mkdirSync(dir, { recursive: true });
    for (const n of [`${JOB_FILE_PREFIX}old.yaml`, `${JOB_FILE_PREFIX}new.yaml`, "upstream.yaml"]) {
      writeFileSync(join(dir, n), "x: 1\n");
    }
    const old = Date.now() / 1000 - 25 * 3600;
    utimesSync(join(dir, `${JOB_FILE_PREFIX}old.yaml`), old, old);
    utimesSync(join(dir, "upstream.yaml"), old, old);
    expect(sweepStaleJobFiles(checkout, 24 * 3_600_000)).toEqual([
      join(dir, `${JOB_FILE_PREFIX}old.yaml`),
    ]);
    expect(sweepStaleJobFiles(join(root, "no-such-checkout"), 1)).toEqual([]);
  });

  test("one job at a time in a process", async () => {
    const seen: string[] = [];
    const job = (name: string, ms: number) =>
      withJobSlot(async () => {
        seen.push(`start ${name}`);
        await Bun.sleep(ms);
        seen.push(`end ${name}`);
      });
    await Promise.all([job("a", 30), job("b", 1), job("c", 1)]);
    expect(seen).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  test("a trial name maps back to its task, whole or by its first 32 characters", () => {
    const long = "a-task-whose-name-runs-past-thirty-two-characters";
    expect(taskOfTrial(`${long.slice(0, 32)}__Ab3dE9x`, [long, "other"])).toBe(long);
    expect(taskOfTrial(`${long}__Ab3dE9x`, [long, "other"])).toBe(long);
    expect(taskOfTrial("other__x1y2z3w", [long, "other"])).toBe("other");
    expect(taskOfTrial("unknown__x1y2z3w", [long, "other"])).toBeNull();
    expect(taskOfTrial("nosuffix", ["nosuffix"])).toBeNull();
  });
});

describe("the prompt template's rule", () => {
  test("exactly one instruction slot, at the end, and no other template syntax", () => {
    expect(templateProblems("Be careful.\n\n---\n\n{{ instruction }}\n")).toEqual([]);
    expect(templateProblems("Be careful.")).toEqual([expect.stringContaining("holds it 0 times")]);
    expect(templateProblems("{{ instruction }}\n{{ instruction }}")[0]).toContain("2 times");
    expect(templateProblems("Use {{ name }} here.\n{{ instruction }}")[0]).toContain("'{{'");
    expect(templateProblems("{% raw %}\n{{ instruction }}")[0]).toContain("'{%'");
    // `{#` would silently delete text up to the next `#}`: CSS like `a{#x}` trips it too.
    expect(templateProblems("a{#x}\n{{ instruction }}")[0]).toContain("'{#'");
    expect(templateProblems("{{ instruction }}\nMore text after.")).toEqual([
      "the instruction slot must be the last thing in the composed prompt",
    ]);
  });
});

describe("the verifier's score file", () => {
  test("reward, then overall, then test_pass_rate, then tests_passed/tests_total", () => {
    const s = (o: unknown) => readScore(JSON.stringify(o));
    expect(s({ reward: 0.5, overall: 1, test_pass_rate: 0 })).toMatchObject({
      score: 0.5,
      source: "reward",
      passed: 0,
      total: 1,
      all_pass: false,
    });
    // A full score is all-pass: 1 of 1, the one criterion the report's all-pass rate reads.
    expect(s({ overall: 1, test_pass_rate: 0 })).toMatchObject({
      score: 1,
      passed: 1,
      total: 1,
      all_pass: true,
    });
    expect(s({ test_pass_rate: 0.25, tests_passed: 4, tests_total: 4 })).toMatchObject({
      score: 0.25,
      source: "test_pass_rate",
    });
    expect(s({ tests_passed: 3, tests_total: 4 })).toMatchObject({
      score: 0.75,
      source: "tests_passed/tests_total",
      passed: 0,
      tests_passed: 3,
      tests_total: 4,
    });
  });

  test("values outside [0, 1], non-numbers, torn or empty files are refused (ungraded)", () => {
    const s = (text: string) => readScore(text);
    expect(s('{"reward": 1.5}')).toEqual({ problem: "has reward 1.5, not a number in [0, 1]" });
    expect(s('{"overall": -0.1}')).toMatchObject({ problem: expect.stringContaining("-0.1") });
    expect(s('{"reward": "1"}')).toMatchObject({ problem: expect.stringContaining('"1"') });
    expect(s('{"tests_passed": 2, "tests_total": 0}')).toMatchObject({
      problem: expect.stringContaining("total above 0"),
    });
    expect(s('{"tests_passed": 5, "tests_total": 4}')).toMatchObject({
      problem: expect.stringContaining("1.25"),
    });
    expect(s('{"reward": 0.')).toEqual({ problem: "is not JSON" });
    expect(s("[1]")).toEqual({ problem: "is not a JSON object" });
    expect(s("{}")).toMatchObject({ problem: expect.stringContaining("has none of") });
  });
});

describe("setup", () => {
  const gitEnv = {
    PATH: process.env.PATH ?? "",
    HOME: root,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
  };
  const g = (cwd: string, ...a: string[]) =>
    Bun.spawnSync(["git", ...a], { cwd, env: gitEnv })
      .stdout.toString()
      .trim();
  function repo(dir: string): string {
    g(dir, "init", "-q");
    g(dir, "add", ".");
    g(dir, "commit", "-q", "-m", "x");
    return g(dir, "rev-parse", "HEAD");
  }

  /** The dataset as it is published: one archive per subset and SHA256SUMS, served on loopback. */
  async function publish(dir: string, tamper = false) {
    mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (const s of ["office", "web", "code"]) {
      const name = `wb-bench-${s}-v1.0`;
      const file = join(dir, `${name}.tar.gz`);
      await tar.c({ gzip: true, file, cwd: join(WB_FIXTURE, "datasets") }, [name]);
      lines.push(
        `${createHash("sha256").update(readFileSync(file)).digest("hex")}  ${name}.tar.gz`,
      );
    }
    writeFileSync(join(dir, "SHA256SUMS"), `${lines.join("\n")}\n`);
    if (tamper)
      writeFileSync(join(dir, "wb-bench-office-v1.0.tar.gz"), "not the published archive");
    const seen: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = new URL(req.url).pathname;
        seen.push(path);
        const m = /^\/datasets\/tencent\/workbuddy-bench\/resolve\/main\/([^/]+)$/.exec(path);
        const file = m ? join(dir, m[1] as string) : "";
        return m && existsSync(file)
          ? new Response(Bun.file(file))
          : new Response("no", { status: 404 });
      },
    });
    return { server, seen, endpoint: `http://127.0.0.1:${server.port}` };
  }

  function upstreamCheckout(name: string): { url: string; commit: string } {
    const upstream = join(root, name);
    cpSync(WB_FIXTURE, upstream, { recursive: true });
    rmSync(join(upstream, "datasets"), { recursive: true });
    return { url: `file://${upstream}`, commit: repo(upstream) };
  }

  test("fetches the pinned checkout and each published subset archive, verified before it is unpacked", async () => {
    const up = upstreamCheckout("up-checkout");
    const pub = await publish(join(root, "published"));
    try {
      const said: string[] = [];
      const env = {
        ...gitEnv,
        HARNESS2_WB_REPO_URL: up.url,
        HARNESS2_WB_REPO_COMMIT: up.commit,
        HARNESS2_WB_DATASET_ENDPOINT: pub.endpoint,
      };
      const r = await setupWorkBuddy({
        deps: join(root, "fetched"),
        env,
        say: (l) => said.push(l),
      });
      expect(r.manifest).toMatchObject({
        source: "download",
        root: join(root, "fetched", "workbuddy-bench"),
        repo: { commit: up.commit },
        dataset: { url: `${pub.endpoint}/datasets/tencent/workbuddy-bench`, revision: "main" },
        tasks: { office: 1, web: 1, code: 1 },
      });
      const ds = join(r.manifest.root, "datasets");
      expect(existsSync(join(ds, "wb-bench-code-v1.0/tasks/fix-median/task.toml"))).toBe(true);
      expect(existsSync(join(ds, "wb-bench-code-v1.0/dataset.toml"))).toBe(true);
      // No archive, staging folder or git copy of the dataset is left in the checkout.
      expect(readdirSync(ds).sort()).toEqual([
        "wb-bench-code-v1.0",
        "wb-bench-office-v1.0",
        "wb-bench-web-v1.0",
      ]);
      const rec = JSON.parse(
        readFileSync(join(r.manifest.root, ".harness2-datasets.json"), "utf8"),
      );
      const sums = readFileSync(join(root, "published", "SHA256SUMS"), "utf8");
      expect(sums).toContain(`${rec["wb-bench-office-v1.0"].sha256}  wb-bench-office-v1.0.tar.gz`);
      expect(pub.seen).toContain("/datasets/tencent/workbuddy-bench/resolve/main/SHA256SUMS");
      expect(r.notes[0]).toContain("Tencent's own licence");
      expect(r.notes.some((n) => n.startsWith("harness2's agents installed (version"))).toBe(true);
      expect(said[0]).toContain(`at ${up.commit.slice(0, 12)}`);
      // Again: the download is verified, not fetched twice; the agents are found current.
      const before = pub.seen.length;
      const again = await setupWorkBuddy({
        deps: join(root, "fetched"),
        env,
        say: (l) => said.push(l),
      });
      expect(again.manifest.repo.commit).toBe(up.commit);
      expect(said).toContain(`already fetched: ${r.manifest.root}; verifying it again`);
      expect(again.notes.some((n) => n.startsWith("harness2's agents already current"))).toBe(true);
      expect(pub.seen.length).toBe(before);
      // One subset only, when asked.
      const one = await setupWorkBuddy({
        deps: join(root, "fetched-one"),
        subset: "web",
        env,
        say: () => {},
      });
      expect(
        readdirSync(join(one.manifest.root, "datasets")).filter((n) => n.startsWith("wb-")),
      ).toEqual(["wb-bench-web-v1.0"]);
    } finally {
      pub.server.stop(true);
    }
  });

  test("a tampered archive, one SHA256SUMS does not name, or an unreachable source leaves nothing behind", async () => {
    const up = upstreamCheckout("up-checkout-2");
    const pub = await publish(join(root, "published-bad"), true);
    try {
      const env = {
        ...gitEnv,
        HARNESS2_WB_REPO_URL: up.url,
        HARNESS2_WB_REPO_COMMIT: up.commit,
        HARNESS2_WB_DATASET_ENDPOINT: pub.endpoint,
      };
      const deps = join(root, "bad-fetch");
      const err = await setupWorkBuddy({ deps, env, say: () => {} }).catch((e) => e);
      expect(err).toBeInstanceOf(SetupError);
      expect(err.message).toMatch(
        /^wb-bench-office-v1\.0\.tar\.gz does not match SHA256SUMS .*refused, nothing unpacked/,
      );
      expect(readdirSync(deps)).toEqual([]);
      writeFileSync(join(root, "published-bad", "SHA256SUMS"), `${"0".repeat(64)}  other.tar.gz\n`);
      const unnamed = await setupWorkBuddy({ deps, env, subset: "code", say: () => {} }).catch(
        (e) => e,
      );
      expect(unnamed.message).toBe(
        "SHA256SUMS has no line for wb-bench-code-v1.0.tar.gz: an archive that cannot be verified is refused",
      );
      expect(readdirSync(deps)).toEqual([]);
      const gone = await setupWorkBuddy({
        deps,
        env: { ...env, HARNESS2_WB_DATASET_ENDPOINT: "http://127.0.0.1:9" },
        say: () => {},
      }).catch((e) => e);
      expect(gone.message).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9\/.*SHA256SUMS/);
      expect(readdirSync(deps)).toEqual([]);
    } finally {
      pub.server.stop(true);
    }
    const offline = await setupWorkBuddy({
      deps: join(root, "bad-fetch"),
      env: { ...gitEnv, HARNESS2_WB_REPO_URL: "http://127.0.0.1:9/wb.git" },
      say: () => {},
    }).catch((e) => e);
    expect(offline.message).toMatch(
      /could not fetch http:\/\/127\.0\.0\.1:9\/wb\.git .*--bench wb --from DIR/,
    );
    const foreign = await setupWorkBuddy({
      deps: join(root, "bad-fetch"),
      from: join(root, "nope"),
      env: gitEnv,
      say: () => {},
    }).catch((e) => e);
    expect(foreign.message).toContain("is not a folder");
    // --from a checkout whose fetch script never ran: no task, and the command that fixes it.
    const empty = join(root, "empty-checkout");
    cpSync(WB_FIXTURE, empty, { recursive: true });
    rmSync(join(empty, "datasets"), { recursive: true });
    const bare = await setupWorkBuddy({
      deps: join(root, "bad-fetch"),
      from: empty,
      env: gitEnv,
      say: () => {},
    }).catch((e) => e);
    expect(bare.message).toContain("./scripts/dataset/fetch-dataset.sh office there first");
  });
});

describe("harness2's agents in the checkout", () => {
  const versions = { opencode: "1.14.18", codex: "0.144.6" };
  const table = "src/workbuddy_bench/runner/harness_adapters.py";

  test("installed with their registrations and a manifest; a newer build replaces them cleanly", () => {
    const co = join(root, "agents-co");
    cpSync(WB_FIXTURE, co, { recursive: true });
    const pristine = readFileSync(join(co, table), "utf8");
    expect(agentsStatus(co, versions)).toMatchObject({ state: "missing" });
    expect(installAgents(co, versions)).toStartWith("harness2's agents installed (version");
    expect(agentsStatus(co, versions)).toEqual({ state: "current", version: WB_AGENTS_VERSION });
    const registered = readFileSync(join(co, table), "utf8");
    expect(registered).toContain('    "harness2-opencode": HarnessRuntimeAdapter(');
    expect(registered.replace(`${adapterBlock()}\n`, "")).toBe(pristine);
    // The checkout's own runner table resolves our names (the fake runs the same module).
    const py = Bun.spawnSync(
      ["python3", "-m", "workbuddy_bench.runner.harness_adapters", "harness2-codex"],
      {
        cwd: co,
        env: { PATH: process.env.PATH ?? "", PYTHONPATH: join(co, "src") },
      },
    );
    expect(py.stdout.toString()).toContain("HARNESS_BACKEND_BASE_ENV='HARNESS2_CX_BASE_URL'");
    expect(existsSync(join(co, "configs/harnesses/harness2-opencode/versions/1.14.18.yaml"))).toBe(
      true,
    );
    // Another OpenCode version: the old version file goes, the new one comes, the entries stay once.
    const newer = { ...versions, opencode: "1.15.0" };
    expect(agentsStatus(co, newer)).toMatchObject({ state: "outdated" });
    expect(installAgents(co, newer)).toContain("replaced (was version");
    expect(existsSync(join(co, "configs/harnesses/harness2-opencode/versions/1.14.18.yaml"))).toBe(
      false,
    );
    expect(existsSync(join(co, "configs/harnesses/harness2-opencode/versions/1.15.0.yaml"))).toBe(
      true,
    );
    expect(readFileSync(join(co, table), "utf8").split('"harness2-opencode": ').length).toBe(2);
    expect(agentsStatus(co, newer)).toEqual({ state: "current", version: WB_AGENTS_VERSION });
  });

  test("refuses, changing nothing, to overwrite a foreign file or one changed since it was written", () => {
    const co = join(root, "agents-foreign");
    cpSync(WB_FIXTURE, co, { recursive: true });
    const theirs = join(co, "configs/harnesses/harness2-codex/_defaults.yaml");
    mkdirSync(join(co, "configs/harnesses/harness2-codex"), { recursive: true });
    writeFileSync(theirs, "harness: {name: someone-elses}\n");
    const before = readFileSync(join(co, table), "utf8");
    expect(() => installAgents(co, versions)).toThrow(
      /exists and harness2 did not write it: setup never overwrites/,
    );
    expect(readFileSync(join(co, table), "utf8")).toBe(before);
    expect(existsSync(join(co, "src/harness2_wb"))).toBe(false);
    expect(existsSync(join(co, ".harness2-agents.json"))).toBe(false);
    rmSync(theirs);
    installAgents(co, versions);
    const ours = join(co, "src/harness2_wb/common.py");
    writeFileSync(ours, `${readFileSync(ours, "utf8")}# a local edit\n`);
    expect(agentsStatus(co, versions)).toMatchObject({
      state: "changed",
      detail: "src/harness2_wb/common.py changed since setup wrote it",
    });
    expect(() => installAgents(co, { ...versions, codex: "0.150.0" })).toThrow(
      /common\.py changed since harness2 installed it/,
    );
    expect(existsSync(join(co, "configs/harnesses/harness2-codex/versions/0.150.0.yaml"))).toBe(
      false,
    );
    // A table that is not the runner's (no adapter table line) is never edited.
    const other = join(root, "agents-notable");
    cpSync(WB_FIXTURE, other, { recursive: true });
    writeFileSync(join(other, table), "ADAPTERS = {}\n");
    expect(() => installAgents(other, versions)).toThrow(
      /does not hold the adapter table harness2 knows/,
    );
  });
});

describe("the judge of WorkBuddy rollouts", () => {
  test("reads the trial's score file; a missing or torn one leaves the rollout ungraded", async () => {
    const run = (name: string, text: string | null) => {
      const dir = join(root, "scored", name);
      mkdirSync(join(dir, "verifier"), { recursive: true });
      if (text !== null) writeFileSync(join(dir, "verifier/score.json"), text);
      return dir;
    };
    const scorer = new WorkBuddyScorer();
    expect(await scorer.score(run("ok", '{"reward": 0.667}'), "t")).toEqual({
      score: 0.667,
      source: "reward",
      passed: 0,
      total: 1,
      all_pass: false,
      tests_passed: null,
      tests_total: null,
    });
    // The judge reads it as graded with its all-pass criterion (the report's all-pass column).
    expect(normaliseScore(await scorer.score(run("full", '{"reward": 1}'), "t"))).toMatchObject({
      graded: true,
      score: 1,
      passed: 1,
      total: 1,
    });
    const missing = run("missing", null);
    expect(await scorer.score(missing, "t")).toBeNull();
    expect(scorer.problems.get(missing)).toContain("is missing: the verifier did not finish");
    const torn = run("torn", '{"rew');
    expect(await scorer.score(torn, "t")).toBeNull();
    expect(scorer.problems.get(torn)).toBe("verifier/score.json is not JSON");
  });
});

describe("prompts and routes", () => {
  test("no prompt of any subset or domain says how the work is measured", () => {
    for (const subset of ["office", "web", "code"] as const) {
      for (const domain of ["doc-ops", "page-interaction", "developer", "a-new-domain"]) {
        const p = promptsForDomain(subset, domain);
        for (const field of SCANNED_PROMPT_FIELDS) {
          expect(forbiddenWordsIn(String(p[field as keyof typeof p]))).toEqual([]);
        }
      }
    }
    expect(promptsForDomain("web", "page-interaction").domainGuidance).toContain(
      "Page interaction",
    );
    expect(WB_PROMPTS.web.selectionLead).toContain("Does it work?");
  });

  test("the routes refuse a missing model, endpoint or key in one line each", () => {
    const env = { HARNESS2_WB_BASE_URL: "http://h:1/v1", HARNESS2_WB_API_KEY: "k" };
    expect(routesOf(env, "oc", "")).toMatchObject({
      problem: expect.stringContaining("HARNESS2_SOLVER_MODEL"),
    });
    expect(routesOf({ HARNESS2_WB_API_KEY: "k" }, "oc", "p/m")).toMatchObject({
      problem: expect.stringContaining("HARNESS2_WB_BASE_URL is not set"),
    });
    expect(routesOf({ ...env, HARNESS2_WB_BASE_URL: "ftp://x" }, "oc", "p/m")).toMatchObject({
      problem: expect.stringContaining("not an http(s) URL"),
    });
    expect(routesOf({ HARNESS2_WB_BASE_URL: "http://h:1/v1" }, "oc", "p/m")).toMatchObject({
      problem: expect.stringContaining("HARNESS2_WB_API_KEY"),
    });
    expect(routesOf(env, "cx", "m")).toMatchObject({
      problem: expect.stringContaining("HARNESS2_CODEX_CONTAINER_URL is not set"),
    });
    const ok = routesOf(env, "oc", "p/m");
    // The checkout's model schema: a model block naming the variables, never holding the key.
    expect(ok).toMatchObject({
      agent: {
        slug: "harness2/solver",
        model: {
          name: "p/m",
          protocols: ["openai"],
          backend_url_env: "HARNESS2_WB_BASE_URL",
          backend_key_env: "HARNESS2_WB_API_KEY",
        },
      },
      judge: null,
    });
    expect(JSON.stringify(ok)).not.toContain('"k"');
    const cx = routesOf(
      { HARNESS2_CODEX_CONTAINER_URL: "http://c/v1", HARNESS2_CODEX_API_KEY: "ck" },
      "cx",
      "m",
    );
    expect(cx).toMatchObject({
      agent: { slug: "harness2/codex", model: { backend_url_env: "HARNESS2_CODEX_CONTAINER_URL" } },
    });
    // The web verifier's judge route needs its model, an http(s) endpoint and a key.
    const judge = { HARNESS2_JUDGE_MODEL: "j", HARNESS2_JUDGE_BASE_URL: "http://j/v1" };
    expect(routesOf({ ...env, ...judge }, "oc", "p/m")).toMatchObject({ judge: null });
    expect(routesOf({ ...env, ...judge, HARNESS2_JUDGE_API_KEY: "jk" }, "oc", "p/m")).toMatchObject(
      {
        judge: {
          slug: "harness2/judge",
          model: { name: "j", backend_key_env: "HARNESS2_JUDGE_API_KEY" },
        },
      },
    );
  });
});
