// `harness2 init DIR`: a task folder to start from (fixtures/tasks/README.md is the format): one
// domain, one task with instructions, an input file, a working answer key that gives partial
// credit, task.toml and prompts.toml, each commented to teach the format, and the commands to
// run next. It refuses a DIR that is not new or empty, so nothing of the user's is overwritten.

import { chmodSync, existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { dirExists, writeFileSafe } from "../../core/lib/safe-fs.ts";
import { defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";

const TASK = "reports/expense-summary";

const FILES: Record<string, string> = {
  "README.md": `# My harness2 tasks

A task folder for \`harness2 run --bench tasks --tasks <this folder>\`. Its layout:

- \`prompts.toml\` — optional: how the improver is told about this folder's work.
- \`<domain>/<task>/\` — one folder per task; tasks of a domain share a library of lessons,
  and run in name order within it.
  - \`task.md\` — the instructions, sent whole as the agent's first message.
  - \`inputs/\` — copied into the agent's working directory before it starts.
  - \`tests/check\` — the answer key, run only by \`harness2 judge\`; never shown to any model.
  - \`task.toml\` — optional settings.
- \`harness/\` — optional: your starting OpenCode harness (without it, stock OpenCode).

Files at the top level, like this one, are ignored. Add a task by copying
\`${TASK}/\` and editing it. The full format is in harness2's \`fixtures/tasks/README.md\`.
`,
  "prompts.toml": `# How the improver is told about this folder's work. Every key is optional and replaces a
# generic default. Describe the work itself, never how it is checked: words such as "score",
# "grader" or "rubric" are refused (harness2 check says so).
work = "Small reporting chores on the CSV files in the working directory; every result is saved under output/."
deliverable_word = "report"

# Extra guidance for the tasks of one domain (the folder name).
[domains.reports]
guidance = "Totals are copied exactly from the inputs: refunds are negative amounts, and two decimals always."
`,
  [`${TASK}/task.md`]: `# Expense summary

\`expenses.csv\` lists one expense per row: a \`category\` and an \`amount\` (a refund is a negative
amount). Write \`summary.md\` with one line per category, in alphabetical order, of the form

    <category>: <total>

and then a last line \`Total: <total>\`, every total with exactly two decimals.
`,
  [`${TASK}/inputs/expenses.csv`]: `category,amount
travel,120.50
meals,42.10
travel,-20.00
office,15.99
meals,18.40
office,-5.99
travel,64.00
`,
  [`${TASK}/task.toml`]: `# Settings of this task; every key is optional. An unknown key is reported, never ignored.
# domain = "reports"         # the library domain (default: the folder the task sits in)
timeout = 600                # seconds per rollout (default 1800)
deliverables = ["summary.md"] # the files the agent is asked to save under output/
check_timeout = 60           # seconds the judge gives tests/check (default 300)
`,
  [`${TASK}/tests/expected.md`]: `meals: 60.50
office: 10.00
travel: 164.50
Total: 235.00
`,
  [`${TASK}/tests/check`]: `#!/usr/bin/env python3
"""The answer key: harness2 judge runs \`tests/check <output dir>\` from tests/ and reads the
last JSON line it prints. One point per expected line found, so a partly right summary gets
partial credit; the exit code does not matter."""
import json
import pathlib
import sys

expected = pathlib.Path("expected.md").read_text(encoding="utf-8").split("\\n")
expected = [line.strip() for line in expected if line.strip()]
summary = pathlib.Path(sys.argv[1]) / "summary.md"
got = summary.read_text(encoding="utf-8") if summary.is_file() else ""
lines = {line.strip() for line in got.split("\\n")}
print(json.dumps({"passed": sum(line in lines for line in expected), "total": len(expected)}))
`,
};

const OPTIONS = {} as const satisfies OptionSpecs;

const init = defineCommand({
  name: "init",
  summary: "Scaffold a task folder to start from: one domain, one task, its answer key",
  args: "DIR",
  help: [
    "Writes into DIR (new or empty) a task folder in the format `run --bench tasks` reads:",
    `${TASK}/ with task.md, an input file, tests/check (a working answer key with partial`,
    "credit) and task.toml, plus prompts.toml and a README, each commented. Then it prints the",
    "commands to check and dry-run it.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 1, max: 1 },
  run: async (args, io) => {
    const raw = args.positionals[0] as string;
    if (raw.trim() === "")
      throw new UsageError("'init' needs a directory (DIR), got an empty value", "init");
    const dir = resolve(io.cwd, raw);
    if (existsSync(dir) && (!dirExists(dir) || readdirSync(dir).length > 0)) {
      throw new UsageError(`${dir} is not a new or empty directory: choose another DIR`, "init");
    }
    for (const [rel, text] of Object.entries(FILES)) writeFileSafe(dir, rel, text);
    chmodSync(join(dir, TASK, "tests", "check"), 0o755);
    const self = selfCommand(io.env, io.cwd);
    io.stdout(
      [
        `Wrote a task folder with 1 task (${TASK}) to ${dir}.`,
        "Next:",
        `  ${self} check --tasks ${raw}                       the folder, the models, the store`,
        `  ${self} run --bench tasks --tasks ${raw} --dry-run   the plan, touching nothing`,
        `  ${self} run --bench tasks --tasks ${raw} --k 1       a real sweep (needs HARNESS2_SOLVER_MODEL)`,
        `No model provider? In another terminal, ${self} serve-model prints the env lines for`,
        "scripted models made for this task; paste them, then run the sweep above with --k 1.",
        `On Codex: ${self} serve-model --substrate cx, then the sweep with --substrate cx --k 1.`,
        "",
      ].join("\n"),
    );
    return EXIT.ok;
  },
});

export default init;
