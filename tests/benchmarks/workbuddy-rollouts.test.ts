// The WorkBuddy cell's rollouts against the contract fake of the checkout's runner and Harbor
// (fixtures/benchmarks/workbuddy/README.md), with harness2's own agents installed by setup and run
// for real in the fake's containers: jobs per label, trials moved into run folders and marked,
// partial resume, the reuse rules, failed trials kept out of the evidence, the timeout kill, the
// refusals, and what the strict renderer shows of real trial folders (and what it never shows).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tar from "tar";
import { WorkBuddyAdapter } from "../../src/benchmarks/workbuddy/wb-adapter.ts";
import { WB_AGENTS_VERSION } from "../../src/benchmarks/workbuddy/wb-agents.ts";
import type { WbSubset } from "../../src/benchmarks/workbuddy/wb-data.ts";
import { WB_CODEX_AGENTS } from "../../src/benchmarks/workbuddy/wb-prompts.ts";
import { setupWorkBuddy } from "../../src/benchmarks/workbuddy/wb-setup.ts";
import { rolloutText } from "../../src/cli/runs/browse-extras.ts";
import { writeTree } from "../../src/core/harness/tree.ts";
import { clearRunMark, readRunMark } from "../../src/core/rollout/runmark.ts";
import { CodexSubstrate } from "../../src/substrate/codex/substrate.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";
import { allFiles } from "../helpers/files.ts";
import { fakeDocker, wbCheckout, wbEnv } from "../helpers/workbuddy.ts";

const T = 120_000;
const OFFICE = "q3-expense-totals";
/** A real .docx of the JobBench fixture, and a sentence it holds. */
const JB_DOCX = join(
  import.meta.dir,
  "../../fixtures/benchmarks/jobbench/dataset/main/logistics_coordinator/task2/task_folder/carrier_terms.docx",
);
const JB_DOCX_TEXT = "Standard transit time is 3 business days for domestic lanes.";
const MARKERS = ["LEAK-MARKER-VERIFIER", "LEAK-MARKER-TESTS", "LEAK-MARKER-SOLUTION"];

let root: string;
let deps: string;
let env: Record<string, string>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "h2-wb-roll-"));
  deps = join(root, "deps");
  const checkout = wbCheckout(root);
  env = wbEnv({ deps, docker: fakeDocker(join(root, "bin")) });
  await setupWorkBuddy({ deps, from: checkout, env, say: () => {} });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function adapter(
  subset: WbSubset,
  extra: Record<string, string> = {},
  executor: "oc" | "cx" = "oc",
  runs = "runs",
  at = deps,
): WorkBuddyAdapter {
  const e = { ...env, ...extra };
  const ex = executor === "oc" ? new OpencodeSubstrate({ env: e }) : new CodexSubstrate({ env: e });
  return new WorkBuddyAdapter({
    deps: at,
    subset,
    runsDir: join(root, runs),
    executor: ex,
    env: e,
  });
}

const rid = (subset: WbSubset, task: string, label: string, ex = "oc") =>
  `wb-${subset}-${ex}-agg1/${task}/${label}`;

/** The Harbor runtime configuration each job of `a` reached Harbor with (the runner renders it). */
function jobs(a: WorkBuddyAdapter): { name: string; config: Record<string, unknown> }[] {
  const dir = join(a.spec.runsRoot, "jobs");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) =>
      existsSync(join(dir, name)) && name !== "logs"
        ? readdirSync(join(dir, name))
            .filter((run) => existsSync(join(dir, name, run, "config.json")))
            .map((run) => ({
              name,
              config: JSON.parse(readFileSync(join(dir, name, run, "config.json"), "utf8")),
            }))
        : [],
    );
}

type Agent = { import_path: string; model_name: string; kwargs: Record<string, unknown> };
const agentOf = (job: { config: Record<string, unknown> }) =>
  (job.config.agents as Agent[])[0] as Agent;

/** A second installation (its own copy of the checkout), for tests that break the checkout. */
async function other(name: string, change: (checkout: string) => void): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const checkout = wbCheckout(dir);
  change(checkout);
  const d = join(dir, "deps");
  await setupWorkBuddy({
    deps: d,
    from: checkout,
    env: { ...env, HARNESS2_DEPENDENCIES: d },
    say: () => {},
  });
  return d;
}

/** A harness dir: the executor's baseline with `files` written over it. */
function harness(a: WorkBuddyAdapter, name: string, files: Record<string, string>): string {
  const dir = join(root, "harnesses", name);
  writeTree(a.substrate.surface(), { ...a.substrate.baselineTree(), ...files }, dir);
  return dir;
}

const CAREFUL = {
  "systemprompt.md": "Reopen every output file with an independent reader before you finish.\n",
};

/** Whether `pid` has ended (a zombie waiting for its reaper counts as ended), within 10 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    let state = "";
    try {
      state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] ?? "";
    } catch {
      return true;
    }
    if (state === "Z") return true;
    await Bun.sleep(50);
  }
  return false;
}

function score(runDir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(runDir, "verifier/score.json"), "utf8"));
}

describe("jobs and trials (OpenCode, office)", () => {
  test(
    "the k base rollouts are one job of harness2's OpenCode agent, bare; each trial is moved into its run folder and marked",
    async () => {
      const a = adapter("office");
      const ids = [rid("office", OFFICE, "base1"), rid("office", OFFICE, "base2")];
      const dirs = await a.executeMany(OFFICE, null, ids);
      expect(dirs).toEqual(ids.map((id) => a.rolloutDir(id)));
      for (const d of dirs as string[]) {
        expect((await readRunMark(d))?.extras).toMatchObject({
          identity: {
            executor: "oc",
            agent: `harness2-opencode@1.14.18+${WB_AGENTS_VERSION}`,
            model: "solver/solver-model",
          },
        });
        expect(existsSync(join(d, "agent/opencode-output.jsonl"))).toBe(true);
        expect(score(d).reward).toBeLessThan(1);
      }
      const [job] = jobs(a);
      expect(jobs(a)).toHaveLength(1);
      // What reached Harbor is what the runner rendered from our composition.
      expect(job?.config).toMatchObject({
        n_attempts: 2,
        n_concurrent_trials: 2,
        environment: {
          import_path: "workbuddy_bench.runner.docker_environment:WorkBuddyDockerEnvironment",
          mounts: [
            {
              type: "image",
              source: "workbuddy-bench/harness/harness2-opencode:1.14.18",
              target: "/opt/harness2-opencode",
              read_only: true,
            },
          ],
        },
        verifier: { import_path: "workbuddy_bench.judge:CompositeVerifier" },
      });
      expect(agentOf(job as never)).toMatchObject({
        import_path: "harness2_wb.opencode_agent:Harness2OpenCodeAgent",
        model_name: "solver/solver-model",
        kwargs: { connection: { mode: "direct" }, mount_path: "/opt/harness2-opencode" },
      });
      expect(agentOf(job as never).kwargs).not.toHaveProperty("harness_workspace");
      // The job file lived only as long as the job; the route file stays, naming the key's variable.
      expect(
        readdirSync(join(a.manifest.root, "configs/jobs")).filter((n) => n.startsWith("_h2-")),
      ).toEqual([]);
      const route = readFileSync(
        join(a.manifest.root, "configs/models/harness2/solver.yaml"),
        "utf8",
      );
      expect(route).toContain("backend_key_env: HARNESS2_WB_API_KEY");
      expect(route).not.toContain("container-key");

      // Asked again: both are reused, no job runs.
      expect(await a.executeMany(OFFICE, null, ids)).toEqual(dirs);
      expect(jobs(a)).toHaveLength(1);
    },
    T,
  );

  test(
    "a partial resume asks only for the missing attempts and leaves the finished one alone",
    async () => {
      const a = adapter("office");
      const ids = [rid("office", OFFICE, "base1"), rid("office", OFFICE, "base2")];
      const keep = await readRunMark(a.rolloutDir(ids[0] as string));
      await clearRunMark(a.rolloutDir(ids[1] as string));
      await a.executeMany(OFFICE, null, ids);
      const all = jobs(a);
      expect(all).toHaveLength(2);
      expect(all.map((j) => j.config.n_attempts)).toContain(1);
      expect((await readRunMark(a.rolloutDir(ids[0] as string)))?.at).toBe(keep?.at as number);
    },
    T,
  );

  test(
    "reuse needs the verifier's score file and the same executor identity",
    async () => {
      const id = rid("office", OFFICE, "base1");
      const a = adapter("office");
      rmSync(join(a.rolloutDir(id), "verifier/score.json"));
      await a.executeMany(OFFICE, null, [id]);
      expect(jobs(a)).toHaveLength(3);
      expect(existsSync(join(a.rolloutDir(id), "verifier/score.json"))).toBe(true);
      // Another solver model is another executor: the trial is made again.
      const o = adapter("office", { HARNESS2_SOLVER_MODEL: "solver/another-model" });
      await o.executeMany(OFFICE, null, [id]);
      expect(jobs(o)).toHaveLength(4);
      expect((await readRunMark(o.rolloutDir(id)))?.extras).toMatchObject({
        identity: { model: "solver/another-model" },
      });
    },
    T,
  );

  test(
    "an adapted harness reaches the container: its template before the instruction, a careful one changes the result",
    async () => {
      const a = adapter("office", {}, "oc", "runs-adapted");
      const id = rid("office", OFFICE, "inv1");
      const skill = "---\nname: reconcile\ndescription: reconcile totals\n---\nReconcile.\n";
      const dir = await a.execute(
        OFFICE,
        harness(a, "careful-oc", { ...CAREFUL, "skills/reconcile/SKILL.md": skill }),
        id,
      );
      expect(score(dir).reward).toBe(1);
      const agent = agentOf(jobs(a)[0] as never);
      const staged = String(agent.kwargs.harness_workspace);
      expect(agent.kwargs.prompt_template_path).toBe(join(staged, "_composed/prompt.j2"));
      const template = readFileSync(String(agent.kwargs.prompt_template_path), "utf8");
      expect(template.startsWith("Reopen every output file")).toBe(true);
      expect(template.trimEnd().endsWith("{{ instruction }}")).toBe(true);
      expect(readFileSync(join(staged, "skills/reconcile/SKILL.md"), "utf8")).toBe(skill);
      const base = await a.execute(OFFICE, null, rid("office", OFFICE, "base1"));
      expect(score(base).reward).toBeLessThan(1);
    },
    T,
  );

  test(
    "a template the validator rejects is refused by our agent in the container: a failed rollout, never evidence",
    async () => {
      const a = adapter("office", {}, "oc", "runs-refused");
      const bad = harness(a, "jinja", { "guardrails.md": "- Never print {% raw %} blocks.\n" });
      expect(
        await a.validateTree({ "guardrails.md": "- Never print {% raw %} blocks.\n" }),
      ).toEqual([expect.stringContaining("'{%'")]);
      expect(await a.validateTree(CAREFUL)).toEqual([]);
      const id = rid("office", OFFICE, "inv1");
      const err = await a.execute(OFFICE, bad, id).catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String(err.message)).toContain(
        "environment or agent failed before its verifier ran (HarnessRefused: the prompt template holds '{%'",
      );
      expect(String(err.message)).toContain("a resume runs it again");
      expect(existsSync(a.rolloutDir(id))).toBe(false);
      expect(readdirSync(join(a.spec.runsRoot, "failed"))).toHaveLength(1);
    },
    T,
  );

  test(
    "a Harbor whose containers never start writes only errored trials: failed rollouts, unmarked, resumable",
    async () => {
      const gone = join(root, "no-docker.sock");
      const a = adapter("office", { DOCKER_HOST: `unix://${gone}` }, "oc", "runs-down");
      const ids = [rid("office", OFFICE, "base1"), rid("office", OFFICE, "base2")];
      const got = await a.executeMany(OFFICE, null, ids);
      for (const g of got) {
        expect(g).toBeInstanceOf(Error);
        expect(String((g as Error).message)).toContain(
          `(EnvironmentStartError: Cannot connect to the Docker daemon at unix://${gone}`,
        );
      }
      for (const id of ids) expect(await readRunMark(a.rolloutDir(id))).toBeNull();
      // The engine back: the same call runs both, now as rollouts that ran.
      const again = await adapter("office", {}, "oc", "runs-down").executeMany(OFFICE, null, ids);
      expect(again).toEqual(ids.map((id) => a.rolloutDir(id)));
      for (const id of ids) expect(await readRunMark(a.rolloutDir(id))).not.toBeNull();
    },
    T,
  );

  test(
    "a job out of time has its whole process group stopped: TERM, then KILL after the grace",
    async () => {
      const pidFile = join(root, "hang-child.pid");
      // Its Harbor ignores TERM (so does its child, which inherits that): only the KILL ends them.
      const hangDeps = await other("hang", (co) =>
        writeFileSync(
          join(co, ".venv/bin/harbor"),
          `#!/bin/sh\ntrap '' TERM\nsleep 300 &\necho $! > '${pidFile}'\nwait\n`,
        ),
      );
      const a = adapter(
        "office",
        { HARNESS2_WB_TRIAL_TIMEOUT: "1", HARNESS2_WB_JOB_SLACK: "0", HARNESS2_WB_KILL_GRACE: "1" },
        "oc",
        "runs-hang",
        hangDeps,
      );
      const started = Date.now();
      const err = await a.execute(OFFICE, null, rid("office", OFFICE, "base1")).catch((e) => e);
      expect(String(err?.message)).toContain("the job ran out of its 1 s and was stopped");
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      const child = Number(readFileSync(pidFile, "utf8"));
      expect(await gone(child)).toBe(true);
      expect(
        readdirSync(join(a.manifest.root, "configs/jobs")).filter((n) => n.startsWith("_h2-")),
      ).toEqual([]);
    },
    T,
  );

  test(
    "a rollout timeout the run gives scales the task's own timeouts in the job",
    async () => {
      const a = adapter("office", { HARNESS2_ROLLOUT_TIMEOUT: "900" }, "oc", "runs-limit");
      await a.execute(OFFICE, null, rid("office", OFFICE, "base1"));
      expect(jobs(a)[0]?.config.timeout_multiplier).toBe(0.5);
      const b = adapter("code", { HARNESS2_ROLLOUT_TIMEOUT: "900" }, "oc", "runs-limit");
      await b.execute("fix-median", null, rid("code", "fix-median", "base1"));
      // fix-median declares no agent limit of its own: the bench's multiplier stands.
      expect(jobs(b)[0]?.config.timeout_multiplier).toBe(2);
      expect(jobs(adapter("office"))[0]?.config.timeout_multiplier).toBe(2);
    },
    T,
  );

  test("preflight: no Docker engine, no runner environment, no route, no agents each refuse in one line", async () => {
    const down = adapter("office", { HARNESS2_WB_DOCKER: fakeDocker(join(root, "down"), true) });
    await expect(down.preflight()).rejects.toThrow(/^Docker: docker info failed: Cannot connect/);
    const noVenv = await other("no-venv", (co) => rmSync(join(co, ".venv"), { recursive: true }));
    await expect(adapter("office", {}, "oc", "runs", noVenv).preflight()).rejects.toThrow(
      /^WorkBuddy runner: the checkout's environment lacks \.venv\/bin\/python3 and \.venv\/bin\/harbor; run `uv sync`/,
    );
    const noRoute = adapter("office", { HARNESS2_WB_BASE_URL: "" });
    await expect(noRoute.preflight()).rejects.toThrow(/HARNESS2_WB_BASE_URL is not set/);
    const newer = adapter("office", { HARNESS2_WB_OPENCODE_VERSION: "1.20.0" });
    await expect(newer.preflight()).rejects.toThrow(
      /^harness2's agents: outdated: .*; run harness2 setup --bench wb --from /,
    );
    await expect(adapter("office").preflight()).resolves.toBeUndefined();
    const web = adapter("web");
    await expect(web.preflight()).rejects.toThrow(/judge route/);
  });
});

describe("what the renderer shows of a trial, and what it never shows", () => {
  test(
    "office: each formula with its cached value, slides as text, images sized; the verdict never",
    async () => {
      const a = adapter("office", {}, "oc", "runs-adapted");
      const dir = a.rolloutDir(rid("office", OFFICE, "inv1"));
      const text = await a.deliverableText(dir);
      expect(text).toMatch(/### summary\.xlsx\n\n## Sheet "Summary"/);
      expect(text).toContain("B5: =SUM(B2:B4) → 1234.5");
      expect(text).toContain("B2: =SUMIF(Expenses!B:B,A2,Expenses!C:C) → ");
      expect(text).toContain("## Slide 1\nQ3 expenses\nGrand total 1234.50 across 3 categories");
      expect(text).toContain("### chart.png\n\nimage, 64×32 px");
      expect(await a.delivered(dir)).toBe(true);
      expect((await a.deliverableAssets(dir)).map((p) => p.slice(dir.length + 1))).toEqual([
        "verifier/raw_artifacts/brief.pptx",
        "verifier/raw_artifacts/summary.xlsx",
      ]);
      expect(await a.deliverableImages(dir)).toEqual([
        join(dir, "verifier/raw_artifacts/chart.png"),
      ]);
      const trajectory = await a.trajectory(dir, { obsTrunc: 50_000 });
      expect(trajectory).toContain("[ACTION] bash(");
      expect(trajectory).toContain("reopened the outputs and checked them");
      const inputs = (await a.taskFiles(OFFICE)) as string;
      expect(readdirSync(inputs).sort()).toEqual(["instruction.md", "task.toml"]);
      const seen = [
        text,
        trajectory,
        JSON.stringify(await a.deliverableFiles(dir)),
        ...allFiles(inputs).map((p) => readFileSync(p, "utf8")),
      ].join("\n");
      for (const m of MARKERS) expect(seen).not.toContain(m);
      // The score file is in the trial folder, beside what was rendered.
      expect(readFileSync(join(dir, "verifier/score.json"), "utf8")).toContain(
        MARKERS[0] as string,
      );
    },
    T,
  );

  test("the browser shows a trial through the same renderer, with the agent's own stream", async () => {
    const a = adapter("office", {}, "oc", "runs-adapted");
    const dir = a.rolloutDir(rid("office", OFFICE, "inv1"));
    const io = { stdout: () => {}, stderr: () => {}, isTTY: false, env, cwd: root };
    const got = await rolloutText(dir, io);
    expect(Object.keys(got?.files ?? {}).sort()).toEqual([
      "brief.pptx",
      "chart.png",
      "summary.xlsx",
    ]);
    expect(got?.files["summary.xlsx"]).toContain("=SUM(B2:B4) → 1234.5");
    expect(got?.trajectory).toContain("[ACTION] bash(");
    for (const m of MARKERS) expect(JSON.stringify(got)).not.toContain(m);
  });

  test("files that look written by the checker, or carry its verdict, are quarantined", async () => {
    const a = adapter("office", {}, "oc", "runs-adapted");
    const src = a.rolloutDir(rid("office", OFFICE, "inv1"));
    const dir = join(root, "planted-trial");
    cpSync(src, dir, { recursive: true });
    const raw = join(dir, "verifier/raw_artifacts");
    writeFileSync(join(raw, "reward.txt"), "1\n");
    writeFileSync(join(raw, "score.json"), '{"reward": 1}');
    writeFileSync(join(raw, "notes.md"), 'Checked: {"pass_rate": 1.0}\n');
    mkdirSync(join(raw, "tests"), { recursive: true });
    writeFileSync(join(raw, "tests/test_outputs.py"), "assert True\n");
    const r = await a.render(dir);
    expect(r.quarantined.sort()).toEqual([
      "notes.md",
      "reward.txt",
      "score.json",
      "tests/test_outputs.py",
    ]);
    expect(Object.keys(r.files).sort()).toEqual(["brief.pptx", "chart.png", "summary.xlsx"]);
    expect(await a.deliverableText(dir)).toContain("4 file(s) withheld");
    // An allowlisted path that is a link is never followed: a trial folder pointing elsewhere shows nothing.
    const linked = join(root, "linked-trial");
    mkdirSync(join(linked, "verifier"), { recursive: true });
    symlinkSync(raw, join(linked, "verifier/raw_artifacts"));
    symlinkSync("/etc/passwd", join(linked, "verifier/agent.patch"));
    const none = await a.render(linked);
    expect(none.names).toEqual([]);
    expect(await a.delivered(linked)).toBe(false);
  });

  test("a web archive: links and node_modules are never unpacked, and at most 200 files are rendered", async () => {
    const web = adapter("web");
    const ws = join(root, "big-ws");
    mkdirSync(join(ws, "node_modules/dep"), { recursive: true });
    writeFileSync(join(ws, "node_modules/dep/index.js"), "module.exports = 1;\n");
    for (let i = 0; i < 205; i++)
      writeFileSync(join(ws, `page${String(i).padStart(3, "0")}.html`), `<p>${i}</p>\n`);
    symlinkSync("/etc/passwd", join(ws, "passwd-link"));
    const dir = join(root, "big-web-trial");
    mkdirSync(join(dir, "verifier"), { recursive: true });
    await tar.c({ gzip: true, file: join(dir, "verifier/agent.workspace.tar.gz"), cwd: ws }, ["."]);
    const r = await web.render(dir);
    expect(r.names).toHaveLength(200);
    expect(r.unshown).toBe(5);
    expect(existsSync(join(dir, ".h2-workspace/node_modules"))).toBe(false);
    expect(existsSync(join(dir, ".h2-workspace/passwd-link"))).toBe(false);
    expect(await web.deliverableText(dir)).toContain("(5 more file(s) not shown)");
  });

  test("office: a Word document delivered is shown as its text", async () => {
    const a = adapter("office", {}, "oc", "runs-adapted");
    const dir = join(root, "docx-trial");
    mkdirSync(join(dir, "verifier/raw_artifacts"), { recursive: true });
    cpSync(JB_DOCX, join(dir, "verifier/raw_artifacts/terms.docx"));
    const r = await a.render(dir);
    expect(r.files["terms.docx"]).toContain(JB_DOCX_TEXT);
    expect(r.assets).toEqual([join(dir, "verifier/raw_artifacts/terms.docx")]);
    writeFileSync(join(dir, "verifier/raw_artifacts/broken.xlsx"), "not a zip");
    const again = await adapter("office", {}, "oc", "runs-adapted").render(dir);
    expect(again.files["broken.xlsx"]).toMatch(/^\(could not be read as \.xlsx: /);
  });

  test("a rollout delivered only past 200 characters of rendered body", async () => {
    const a = adapter("office", {}, "oc", "runs-adapted");
    const dir = join(root, "thin-trial");
    mkdirSync(join(dir, "verifier/raw_artifacts"), { recursive: true });
    writeFileSync(join(dir, "verifier/raw_artifacts/answer.txt"), "x".repeat(199));
    expect(await a.delivered(dir)).toBe(false);
    const fuller = join(root, "full-trial");
    cpSync(dir, fuller, { recursive: true });
    writeFileSync(join(fuller, "verifier/raw_artifacts/answer.txt"), "x".repeat(200));
    expect(await a.delivered(fuller)).toBe(true);
  });

  test(
    "web: the workspace archive, unpacked; code: the patch, and for the improver only names",
    async () => {
      const web = adapter("web", {
        HARNESS2_JUDGE_MODEL: "judge-m",
        HARNESS2_JUDGE_BASE_URL: "http://judge.invalid/v1",
        HARNESS2_JUDGE_API_KEY: "jk",
      });
      const wdir = await web.execute(
        "tip-calculator",
        harness(web, "careful-web", CAREFUL),
        rid("web", "tip-calculator", "inv1"),
      );
      const files = await web.deliverableFiles(wdir);
      expect(Object.keys(files).sort()).toEqual(["app.js", "index.html"]);
      expect(files["index.html"]).toContain('<script src="app.js"></script>');
      expect(score(wdir).overall).toBe(1);
      expect(
        readFileSync(join(web.manifest.root, "configs/models/harness2/judge.yaml"), "utf8"),
      ).toContain("name: judge-m");

      const code = adapter("code");
      expect(code.spec.proposerDeliverables).toBe("names");
      expect(code.spec.leakGlobs).toContain("solution/**");
      const cdir = await code.execute("fix-median", null, rid("code", "fix-median", "base1"));
      expect(await code.deliverableListing(cdir)).toEqual(["agent.patch", "agent.patch: stats.py"]);
      expect((await code.deliverableFiles(cdir))["agent.patch"]).toContain("+    s = sorted(xs)");
      expect(score(cdir)).toMatchObject({ tests_passed: 2, tests_total: 4 });
      const inputs = (await code.taskFiles("fix-median")) as string;
      expect(readdirSync(inputs).sort()).toEqual(["instruction.md", "task.toml"]);
    },
    T,
  );
});

describe("the Codex executor (codex_root in the container)", () => {
  test(
    "harness2's Codex agent gets the root files in /workspace, Codex from its image, the route's endpoint",
    async () => {
      const a = adapter(
        "code",
        {
          HARNESS2_CODEX_CONTAINER_URL: "http://host.docker.internal:4010/v1",
          HARNESS2_CODEX_API_KEY: "cx-key",
          HARNESS2_CODEX_MODEL: "mock-model",
        },
        "cx",
        "runs-cx",
      );
      expect(a.spec.installMode).toBe("codex_root");
      expect(a.spec.allowSubagents).toBe(false);
      expect(readFileSync(join(await a.baseHarness(), "AGENTS.md"), "utf8")).toBe(WB_CODEX_AGENTS);
      const careful = harness(a, "careful-cx", {
        "AGENTS.md": "Reopen the changed files and run the tests before you finish.\n",
        "sub_agents/reviewer/AGENT.md": "---\ndescription: reviews\n---\nReview.\n",
      });
      await a.preflight();
      const dir = await a.execute("fix-median", careful, rid("code", "fix-median", "inv1", "cx"));
      expect(score(dir)).toMatchObject({ tests_passed: 4, tests_total: 4 });
      const job = jobs(a)[0] as never;
      const agent = agentOf(job);
      expect(agent).toMatchObject({
        import_path: "harness2_wb.codex_agent:Harness2CodexAgent",
        model_name: "mock-model",
        kwargs: {
          reasoning_effort: "high",
          mount_path: "/opt/harness2-codex",
          connection: { mode: "direct" },
        },
      });
      const staged = String(agent.kwargs.harness_workspace);
      expect(existsSync(join(staged, "AGENTS.md"))).toBe(true);
      expect(existsSync(join(staged, "sub_agents"))).toBe(false);
      // The harness files it put at the workspace root are gone before the verifier looks.
      expect(readFileSync(join(dir, "verifier/agent.patch"), "utf8")).not.toContain("AGENTS.md");
      const route = readFileSync(
        join(a.manifest.root, "configs/models/harness2/codex.yaml"),
        "utf8",
      );
      expect(route).toContain("backend_url_env: HARNESS2_CODEX_CONTAINER_URL");
      expect(route).not.toContain("cx-key");
      const trajectory = await a.trajectory(dir, { obsTrunc: 50_000 });
      expect(trajectory).toContain("[ACTION]");
      expect(trajectory).toContain("reopened the outputs and checked them");
      expect((await readRunMark(dir))?.extras).toMatchObject({
        identity: {
          executor: "cx",
          agent: `harness2-codex@0.144.6+${WB_AGENTS_VERSION}`,
          model: "mock-model",
        },
      });
    },
    T,
  );
});
