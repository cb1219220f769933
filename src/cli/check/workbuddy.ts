// `harness2 check --bench wb --subset S`: the WorkBuddy data setup installed (its manifest still
// matching it), the subset's tasks per domain, the licence notice, and what a job needs before
// anything is spent — the checkout's runner, Docker, the model routes and, on Codex, the endpoint
// the containers reach (wb-ready.ts, the same checks `run` makes before its first job).

import { BenchDataError, dependenciesDir, type Manifest } from "../../benchmarks/common/install.ts";
import {
  discoverSubset,
  installedWorkBuddy,
  licenceNotice,
  type WbSubset,
} from "../../benchmarks/workbuddy/wb-data.ts";
import { wbReady } from "../../benchmarks/workbuddy/wb-ready.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { Executor } from "../../core/seams/executor.ts";
import type { Report } from "./report.ts";

export async function checkWorkBuddy(
  report: Report,
  opts: {
    env: Record<string, string | undefined>;
    cwd: string;
    dependencies: string | undefined;
    subset: WbSubset;
    executor: Executor;
    config: RunConfig | null;
  },
): Promise<number> {
  const deps = dependenciesDir(opts.dependencies, opts.env, opts.cwd);
  let m: Manifest;
  try {
    m = installedWorkBuddy(deps);
  } catch (err) {
    if (!(err instanceof BenchDataError)) throw err;
    const [what, fix] = err.message.split(": run ");
    report.line(
      "FAIL",
      "WorkBuddy data",
      what ?? err.message,
      `run ${fix ?? "harness2 setup --bench wb"}`,
    );
    return 0;
  }
  const commit = m.repo.commit ? `commit ${m.repo.commit.slice(0, 12)}, ` : "";
  report.line("ok", "WorkBuddy data", `${m.root} (${commit}set up ${m.fetchedAt})`);
  report.line("note", "licence", licenceNotice(m.root));
  const found = discoverSubset(m.root, opts.subset);
  for (const p of found.problems) report.line("warn", p.path, `${p.problem}: skipped`);
  const domains: Record<string, number> = {};
  for (const t of found.tasks) domains[t.domain] = (domains[t.domain] ?? 0) + 1;
  if (found.tasks.length === 0) {
    report.line(
      "FAIL",
      "WorkBuddy tasks",
      `none in the ${opts.subset} subset`,
      "run harness2 setup --bench wb again",
    );
  } else {
    const per = Object.entries(domains)
      .map(([d, c]) => `${d} ${c}`)
      .join(", ");
    const n = (k: number, word: string) => `${k} ${word}${k === 1 ? "" : "s"}`;
    const d = Object.keys(domains).length;
    report.line(
      "ok",
      "WorkBuddy tasks",
      `${n(found.tasks.length, `${opts.subset} task`)} in ${n(d, "domain")}: ${per}`,
    );
  }
  if (opts.config === null) return found.tasks.length;
  for (const line of await wbReady({
    root: m.root,
    env: opts.env,
    executor: opts.executor,
    config: opts.config,
    subset: opts.subset,
  })) {
    report.line(line.status, line.what, line.detail, line.fix || undefined);
  }
  return found.tasks.length;
}
