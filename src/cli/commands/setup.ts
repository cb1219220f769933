// `harness2 setup --bench jb [--from DIR] [--dependencies DIR]`: installs a benchmark's data where
// `run`, `check` and `judge` find it (docs/benchmarks.md "Setup"), and records what it installed
// in a manifest beside it. Exit 0 when installed, 1 when it could not finish (nothing is left
// half-written), 2 for a bad command line.

import { boolOpt, type Command, stringOpt, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../self.ts";

const SETUP_BENCHES = ["jb"] as const;
const LATER = ["lab", "wb"];

const setup: Command = {
  name: "setup",
  summary: "Install a benchmark's data (JobBench: --bench jb), or adopt a copy you have (--from)",
  args: "",
  help: [
    "Example: harness2 setup --bench jb",
    "         harness2 setup --bench jb --from ~/job-bench-eval",
    "",
    "Without --from it fetches the pinned job-bench-eval checkout and the JobBench dataset with",
    "git (both splits, as dataset/main and dataset/easy) into DEPENDENCIES/job-bench-eval, and",
    "writes DEPENDENCIES/job-bench-eval.harness2.json. With --from it checks the layout of a copy",
    "you already have and records it in place. Run it again after the data changed.",
  ].join("\n"),
  options: {
    bench: { type: "string", valueName: "NAME", description: "benchmark: jb" },
    from: { type: "string", valueName: "DIR", description: "adopt this local checkout instead" },
    dependencies: {
      type: "string",
      valueName: "DIR",
      description: "where benchmarks live (default $HARNESS2_DEPENDENCIES or ./dependencies)",
    },
    json: { type: "boolean", description: "print the manifest as JSON" },
  },
  async run(args, io) {
    const bench = stringOpt(args, "bench");
    if (bench === undefined) throw new UsageError("--bench is required (available: jb)", "setup");
    if (LATER.includes(bench)) {
      throw new UsageError(
        `setup for '${bench}' is not in this build yet (available: ${SETUP_BENCHES.join(", ")})`,
        "setup",
      );
    }
    if (!(SETUP_BENCHES as readonly string[]).includes(bench)) {
      throw new UsageError(
        `unknown benchmark '${bench}' (available: ${SETUP_BENCHES.join(", ")})`,
        "setup",
      );
    }
    const { dependenciesDir } = await import("../../benchmarks/jobbench/jb-data.ts");
    const { setupJobBench, SetupError } = await import("../../benchmarks/jobbench/jb-setup.ts");
    const deps = dependenciesDir(stringOpt(args, "dependencies"), io.env, io.cwd);
    const json = boolOpt(args, "json");
    let result: Awaited<ReturnType<typeof setupJobBench>>;
    try {
      result = await setupJobBench({
        deps,
        from: stringOpt(args, "from"),
        env: io.env,
        say: (line) => {
          if (!json) io.stdout(`${line}\n`);
        },
      });
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
    io.stdout(
      `JobBench ${how}: ${m.root} — ${m.tasks.main} main and ${m.tasks.easy} easy tasks${m.repo.commit ? `, commit ${m.repo.commit.slice(0, 12)}` : ""}${m.dataset.revision ? `, dataset ${m.dataset.revision.slice(0, 12)}` : ""}.\n`,
    );
    const env =
      deps === dependenciesDir(undefined, io.env, io.cwd) ? "" : `HARNESS2_DEPENDENCIES='${deps}' `;
    io.stdout(`next: ${env}${selfCommand(io.env, io.cwd)} check --bench jb\n`);
    return EXIT.ok;
  },
};

export default setup;
