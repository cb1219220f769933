// `harness2 setup --bench wb` (docs/benchmarks.md "WorkBuddy: setup"): the workbuddy-bench
// checkout at the commit harness2 is built against (HARNESS2_WB_REPO_COMMIT overrides it), each
// subset's published archive downloaded, checked against SHA256SUMS and unpacked into its
// `datasets/` (wb-dataset.ts), the whole renamed into place and recorded in a manifest; or
// `--from DIR`, a checkout where the checkout's own scripts/dataset/fetch-dataset.sh already ran,
// adopted in place. Then the runner's packages (`uv sync`), harness2's own agents (wb-agents.ts),
// the model routes, and the licence notice.

import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import {
  adoptInPlace,
  commitOf,
  fetchPinned,
  installJudgeDeps,
  type Manifest,
  previousDownload,
  recordInstall,
  SetupError,
  stagedCheckout,
} from "../common/install.ts";
import { installAgents } from "./wb-agents.ts";
import {
  discoverSubset,
  licenceNotice,
  subsetDir,
  WB_INSTALL,
  WB_REPO_COMMIT,
  WB_REPO_URL,
  WB_SUBSETS,
  type WbProblem,
  type WbSubset,
} from "./wb-data.ts";
import {
  datasetSource,
  fetchSubset,
  fetchSums,
  resolveBase,
  writeDatasetsRecord,
} from "./wb-dataset.ts";
import { venvTool } from "./wb-job.ts";
import { routeEnv, routesOf, wbSettings, writeRoutes } from "./wb-settings.ts";

export type WbSetupOptions = {
  deps: string;
  from?: string;
  /** Only this subset is downloaded and must hold tasks (else all three). */
  subset?: WbSubset;
  env: Record<string, string | undefined>;
  say: (line: string) => void;
};

export type WbSetupResult = { manifest: Manifest; problems: WbProblem[]; notes: string[] };

function verify(root: string, subset: WbSubset | undefined): WbProblem[] {
  const problems: WbProblem[] = [];
  let tasks = 0;
  for (const s of subset === undefined ? WB_SUBSETS : [subset]) {
    const found = discoverSubset(root, s);
    tasks += found.tasks.length;
    problems.push(...found.problems);
  }
  if (tasks === 0) {
    const first = problems[0];
    const which = subset ?? "office";
    throw new SetupError(
      `${root} holds no WorkBuddy task (datasets/wb-bench-${subset ?? "<subset>"}-v1.0/tasks/<task>/ with task.toml and instruction.md): run the checkout's ./scripts/dataset/fetch-dataset.sh ${which} there first${first ? ` (e.g. ${first.path} ${first.problem})` : ""}`,
    );
  }
  return problems;
}

/** After the checkout is in place: its runner, our agents, the routes; licence first. */
async function finish(
  root: string,
  env: Record<string, string | undefined>,
  say: (line: string) => void,
  fromUser: boolean,
): Promise<string[]> {
  const out = [licenceNotice(root)];
  if (!fromUser && venvTool(root, "harbor") === null) {
    say("installing the runner's python packages (uv sync)");
    out.push(
      ...(await installJudgeDeps(env, root, null, {
        packages: "the runner's python packages (Harbor)",
        setting: "",
      })),
    );
  }
  if (venvTool(root, "harbor") === null) {
    out.push(`the runner (Harbor) is not installed in ${root}/.venv: run \`uv sync\` there`);
  }
  const s = wbSettings(env);
  out.push(installAgents(root, { opencode: s.opencodeVersion, codex: s.codexVersion }));
  const codexEnv = routeEnv(env, {
    codexContainerUrl: env.HARNESS2_CODEX_CONTAINER_URL || env.HARNESS2_CODEX_BASE_URL || "",
    codexApiKey: env.HARNESS2_CODEX_API_KEY || "",
  });
  const written: string[] = [];
  const pending: string[] = [];
  for (const [ex, model] of [
    ["oc", env.HARNESS2_SOLVER_MODEL || ""],
    ["cx", env.HARNESS2_CODEX_MODEL || ""],
  ] as const) {
    const routes = routesOf(codexEnv, ex, model);
    if ("problem" in routes) {
      pending.push(`${ex === "oc" ? "OpenCode" : "Codex"}: ${routes.problem}`);
      continue;
    }
    writeRoutes(root, routes);
    written.push(routes.agent.slug, ...(routes.judge ? [routes.judge.slug] : []));
  }
  if (written.length > 0) out.push(`model routes written: ${[...new Set(written)].join(", ")}`);
  for (const p of pending)
    out.push(`model route not written yet (${p}); run writes it before each job`);
  return out;
}

export async function setupWorkBuddy(opts: WbSetupOptions): Promise<WbSetupResult> {
  const deps = resolve(opts.deps);
  mkdirSync(deps, { recursive: true });
  if (opts.from !== undefined) {
    const adopted = await adoptInPlace(WB_INSTALL, deps, opts.from, opts.env, (root) =>
      verify(root, opts.subset),
    );
    const notes = await finish(adopted.root, opts.env, opts.say, true);
    return { manifest: adopted.manifest, problems: adopted.found, notes };
  }
  const previous = previousDownload(WB_INSTALL, deps);
  if (previous !== null) {
    opts.say(`already fetched: ${previous.root}; verifying it again`);
    const problems = verify(previous.root, opts.subset);
    const notes = await finish(previous.root, opts.env, opts.say, false);
    return { manifest: recordInstall(WB_INSTALL, deps, previous), problems, notes };
  }
  const url = opts.env.HARNESS2_WB_REPO_URL || WB_REPO_URL;
  const commit = opts.env.HARNESS2_WB_REPO_COMMIT || WB_REPO_COMMIT;
  const source = datasetSource(opts.env);
  const subsets = opts.subset === undefined ? [...WB_SUBSETS] : [opts.subset];
  const { root, built } = await stagedCheckout(WB_INSTALL, deps, async (staging) => {
    opts.say(
      `fetching ${url} at ${commit === "HEAD" ? "its default branch" : commit.slice(0, 12)}`,
    );
    await fetchPinned(opts.env, staging, url, commit, "wb");
    opts.say(`fetching SHA256SUMS from ${resolveBase(source)}`);
    const sums = await fetchSums(source);
    const record: Record<string, { sha256: string; bytes: number; url: string }> = {};
    for (const s of subsets) {
      const name = subsetDir(s);
      opts.say(`fetching ${name}.tar.gz (checked against SHA256SUMS before it is unpacked)`);
      record[name] = await fetchSubset(source, `${staging}/datasets`, name, sums);
    }
    writeDatasetsRecord(staging, record);
    return { commit: await commitOf(opts.env, staging), problems: verify(staging, opts.subset) };
  });
  const manifest = recordInstall(WB_INSTALL, deps, {
    source: "download",
    root,
    repo: { url, commit: built.commit },
    dataset: { url: `${source.endpoint}/datasets/${source.repo}`, revision: source.revision },
  });
  const notes = await finish(root, opts.env, opts.say, false);
  return { manifest, problems: built.problems, notes };
}
