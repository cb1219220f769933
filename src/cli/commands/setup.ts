// `harness2 setup --bench jb|lab [--from DIR] [--dependencies DIR]`: installs a benchmark's data where
// `run`, `check` and `judge` find it (docs/benchmarks.md "Setup"), and records what it installed
// in a manifest beside it. Exit 0 when installed, 1 when it could not finish (nothing is left
// half-written), 2 for a bad command line.

import type { Manifest } from "../../benchmarks/common/install.ts";
import { defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import { WB_SUBSETS } from "../sweep/cell-options.ts";

const SETUP_BENCHES = ["jb", "lab", "wb"] as const;
const TITLES: Record<string, string> = { jb: "JobBench", lab: "LAB", wb: "WorkBuddy-Bench" };

const OPTIONS = {
  bench: { type: "choice", choices: SETUP_BENCHES, description: "benchmark: jb, lab or wb" },
  subset: {
    type: "choice",
    choices: WB_SUBSETS,
    description:
      "wb only: the subset that must hold tasks (office, web or code; all are installed)",
  },
  from: { type: "string", valueName: "DIR", description: "adopt this local checkout instead" },
  dependencies: {
    type: "string",
    valueName: "DIR",
    description: "where benchmarks live (default $HARNESS2_DEPENDENCIES or ./dependencies)",
  },
  json: { type: "boolean", description: "print the manifest as JSON" },
} as const satisfies OptionSpecs;

const setup = defineCommand({
  name: "setup",
  summary:
    "Install a benchmark's data (JobBench --bench jb, LAB --bench lab, WorkBuddy --bench wb), or adopt a copy (--from)",
  args: "",
  help: [
    "Example: harness2 setup --bench jb",
    "         harness2 setup --bench jb --from ~/job-bench-eval",
    "",
    "Without --from it fetches with git: for jb the pinned job-bench-eval checkout and the JobBench",
    "dataset (both splits, as dataset/main and dataset/easy) into DEPENDENCIES/job-bench-eval; for",
    "lab the harvey-labs checkout (its tasks are part of it) into DEPENDENCIES/harvey-labs. Each",
    "gets a manifest beside it; for wb the workbuddy-bench checkout with the dataset's task folders",
    "in its datasets/, then its runner's packages (uv sync) and the model route files. With --from",
    "it checks the layout of a copy you already have and records it in place. Run it again after",
    "the data changed.",
  ].join("\n"),
  options: OPTIONS,
  async run(args, io) {
    const bench = args.opts.bench;
    if (bench === undefined) {
      throw new UsageError(`--bench is required (available: ${SETUP_BENCHES.join(", ")})`, "setup");
    }
    const { subsetOpt } = await import("../bench/build-adapter.ts");
    const subset = subsetOpt(args, bench, "setup", true);
    const { dependenciesDir, SetupError } = await import("../../benchmarks/common/install.ts");
    const deps = dependenciesDir(args.opts.dependencies, io.env, io.cwd);
    const json = args.opts.json;
    const opts = {
      deps,
      from: args.opts.from,
      env: io.env,
      say: (line: string) => {
        if (!json) io.stdout(`${line}\n`);
      },
    };
    let result: {
      manifest: Manifest;
      problems: { path: string; problem: string }[];
      notes: string[];
    };
    try {
      if (bench === "jb") {
        result = await (await import("../../benchmarks/jobbench/jb-setup.ts")).setupJobBench(opts);
      } else if (bench === "lab") {
        result = await (await import("../../benchmarks/lab/lab-setup.ts")).setupLab(opts);
      } else {
        const { setupWorkBuddy } = await import("../../benchmarks/workbuddy/wb-setup.ts");
        result = await setupWorkBuddy({ ...opts, subset });
      }
    } catch (err) {
      if (err instanceof SetupError) throw new CliError(err.message);
      throw err;
    }
    const m = result.manifest;
    if (json) {
      io.stdout(
        `${JSON.stringify({ ...m, problems: result.problems, notes: result.notes }, null, 2)}\n`,
      );
      return EXIT.ok;
    }
    for (const p of result.problems) io.stderr(`  skipped: ${p.path} ${p.problem}\n`);
    for (const n of result.notes) io.stdout(`note: ${n}\n`);
    const how = m.source === "from" ? "adopted in place" : "fetched";
    const tasks =
      bench === "jb"
        ? `${m.tasks.main ?? 0} main and ${m.tasks.easy ?? 0} easy tasks`
        : bench === "wb"
          ? `${m.tasks.office ?? 0} office, ${m.tasks.web ?? 0} web and ${m.tasks.code ?? 0} code tasks`
          : `${m.tasks.all ?? 0} tasks`;
    const title = TITLES[bench] ?? bench;
    io.stdout(
      `${title} ${how}: ${m.root} — ${tasks}${m.repo.commit ? `, commit ${m.repo.commit.slice(0, 12)}` : ""}${m.dataset.revision ? `, dataset ${m.dataset.revision.slice(0, 12)}` : ""}.\n`,
    );
    const env =
      deps === dependenciesDir(undefined, io.env, io.cwd) ? "" : `HARNESS2_DEPENDENCIES='${deps}' `;
    const sub = bench === "wb" ? ` --subset ${subset ?? "office"}` : "";
    io.stdout(`next: ${env}${selfCommand(io.env, io.cwd)} check --bench ${bench}${sub}\n`);
    return EXIT.ok;
  },
});

export default setup;
