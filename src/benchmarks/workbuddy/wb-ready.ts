// WorkBuddy's readiness (docs/benchmarks.md "WorkBuddy: check"): what a job needs before anything
// is spent — the checkout's runner and its environment (`uv sync` done), a Docker engine this user
// may use, harness2's agents installed and current, the subset's data, and the model routes the
// jobs name (the judge's too for web, whose verifier asks a model). Offline: no model is asked
// anything.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NETWORK_ENV, pickEnv, runProcess } from "../../core/lib/process.ts";
import { isRegularFile } from "../../core/lib/safe-fs.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { Executor } from "../../core/seams/executor.ts";
import { agentsStatus } from "./wb-agents.ts";
import { discoverSubset, subsetDir, type WbSubset } from "./wb-data.ts";
import { readDatasetsRecord } from "./wb-dataset.ts";
import { venvTool } from "./wb-job.ts";
import { type Routes, routeEnv, routesOf, routesText, wbSettings } from "./wb-settings.ts";

export type ReadyLine = {
  status: "ok" | "warn" | "FAIL";
  what: string;
  detail: string;
  fix: string;
};

export type ReadyOptions = {
  root: string;
  env: Record<string, string | undefined>;
  executor: Executor;
  config: RunConfig;
  subset?: WbSubset;
};

async function docker(env: Record<string, string | undefined>): Promise<ReadyLine> {
  const bin = wbSettings(env).docker;
  const dline = (status: ReadyLine["status"], detail: string, fix = ""): ReadyLine => ({
    status,
    what: "Docker",
    detail,
    fix,
  });
  try {
    const exit = await runProcess({
      argv: [bin, "info", "--format", "{{.ServerVersion}}"],
      env: pickEnv(env, ["PATH", "HOME", "DOCKER_*", ...NETWORK_ENV]),
      timeoutMs: 45_000,
    });
    if (exit.code === 0) return dline("ok", `engine ${exit.stdout.trim() || "running"} (${bin})`);
    const why = exit.timedOut
      ? "did not answer within 45 s"
      : (exit.stderrTail.trim().split("\n").pop() ?? `exit ${exit.code}`);
    return dline(
      "FAIL",
      `docker info failed: ${why}`,
      "start the Docker engine and let this user use it (e.g. add it to the docker group)",
    );
  } catch (err) {
    if (!(err instanceof SpawnError)) throw err;
    return dline(
      "FAIL",
      `${bin} cannot be run (${err.message})`,
      "install Docker Engine, or set HARNESS2_WB_DOCKER to the docker client",
    );
  }
}

/** One check line from a status and its parts. */
const line = (status: ReadyLine["status"], what: string, detail: string, fix = ""): ReadyLine => ({
  status,
  what,
  detail,
  fix,
});

/** The checkout's own runner and the environment `uv sync` makes for it. */
function runner(root: string): ReadyLine {
  if (!isRegularFile(join(root, "scripts", "run.sh"))) {
    return line(
      "FAIL",
      "WorkBuddy runner",
      `${root} has no scripts/run.sh`,
      "run harness2 setup --bench wb again (it fetches the checkout)",
    );
  }
  const missing = ["python3", "harbor"].filter((t) => venvTool(root, t) === null);
  if (missing.length > 0) {
    return line(
      "FAIL",
      "WorkBuddy runner",
      `the checkout's environment lacks ${missing.map((t) => `.venv/bin/${t}`).join(" and ")}`,
      `run \`uv sync\` in ${root} (it installs Harbor and the runner's packages into .venv)`,
    );
  }
  return line(
    "ok",
    "WorkBuddy runner",
    `${join(root, "scripts", "run.sh")} with ${join(root, ".venv")}`,
  );
}

function agents(root: string, env: Record<string, string | undefined>): ReadyLine {
  const s = wbSettings(env);
  const st = agentsStatus(root, { opencode: s.opencodeVersion, codex: s.codexVersion });
  if (st.state === "current") {
    return line(
      "ok",
      "harness2's agents",
      `version ${st.version}: harness2-opencode/${s.opencodeVersion}, harness2-codex/${s.codexVersion}`,
    );
  }
  return line(
    "FAIL",
    "harness2's agents",
    `${st.state}: ${st.detail}`,
    `run harness2 setup --bench wb --from ${root} (it installs or replaces them)`,
  );
}

/** The route files on disk parse as the checkout's model schema (or are not written yet). */
function routeFiles(root: string, routes: Routes): ReadyLine {
  const want = routesText(routes);
  const slugs = [routes.agent, ...(routes.judge ? [routes.judge] : [])].map((r) => r.slug);
  for (const slug of slugs) {
    const path = join(root, "configs", "models", `${slug}.yaml`);
    if (!isRegularFile(path)) continue;
    let parsed: unknown;
    try {
      parsed = Bun.YAML.parse(readFileSync(path, "utf8"));
    } catch (err) {
      return line(
        "FAIL",
        "model routes",
        `${path} does not parse (${(err as Error).message.split("\n")[0]})`,
        "delete it: run writes it again from the settings",
      );
    }
    const model = (parsed as { model?: Record<string, unknown> } | null)?.model;
    if (!model || typeof model.name !== "string" || typeof model.backend_url_env !== "string") {
      return line(
        "FAIL",
        "model routes",
        `${path} has no model: block with name and backend_url_env`,
        "delete it: run writes it again from the settings",
      );
    }
  }
  return line(
    "ok",
    "model routes",
    `${slugs.join(", ")} (${want.length} bytes; written before each job)`,
  );
}

function data(root: string, subset: WbSubset | undefined): ReadyLine[] {
  const rec = readDatasetsRecord(root);
  return (subset === undefined ? [] : [subset]).map((s) => {
    const name = subsetDir(s);
    const found = discoverSubset(root, s);
    if (found.tasks.length === 0) {
      return line(
        "FAIL",
        `${s} data`,
        `no task in ${root}/datasets/${name}/tasks`,
        `run harness2 setup --bench wb --subset ${s} (or the checkout's ./scripts/dataset/fetch-dataset.sh ${s}, then setup --from)`,
      );
    }
    const got = rec?.[name];
    const how = got
      ? `verified against SHA256SUMS at setup (${got.sha256.slice(0, 12)}…)`
      : "fetched by the checkout's own script, which checks SHA256SUMS";
    return line("ok", `${s} data`, `${found.tasks.length} task(s), ${how}`);
  });
}

export async function wbReady(opts: ReadyOptions): Promise<ReadyLine[]> {
  const out: ReadyLine[] = [runner(opts.root), await docker(opts.env), agents(opts.root, opts.env)];
  out.push(...data(opts.root, opts.subset));
  const routes = routesOf(
    routeEnv(opts.env, opts.config),
    opts.executor.name === "oc" ? "oc" : "cx",
    opts.executor.modelOf(opts.config),
  );
  if ("problem" in routes) {
    const [detail, fix] = routes.problem.split(": ");
    out.push(line("FAIL", "model routes", detail ?? "", fix ?? ""));
    return out;
  }
  out.push(routeFiles(opts.root, routes));
  if (opts.subset === "web" && routes.judge === null) {
    out.push(
      line(
        "FAIL",
        "judge route",
        "HARNESS2_JUDGE_MODEL, an http(s) HARNESS2_JUDGE_BASE_URL and HARNESS2_JUDGE_API_KEY are needed",
        "set them: the web verifier asks that model whether a page works (through the checkout's proxy)",
      ),
    );
  }
  return out;
}
