// `harness2 validate DIR`: checks a harness directory against an executor's editable surface the
// way a stage's proposal is checked, and prints the census or every problem. It never writes to
// DIR: autotrigger runs on an in-memory copy and is only reported.

import { resolve } from "node:path";
import type { Census, SurfaceSpec, Tree } from "../../core/harness/tree.ts";
import { type CliIO, defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { EXIT } from "../exit-codes.ts";

const SURFACES: Record<string, () => Promise<SurfaceSpec>> = {
  opencode: () => import("../../substrate/opencode/surface.ts").then((m) => m.OPENCODE_SURFACE),
  codex: () => import("../../substrate/codex/surface.ts").then((m) => m.CODEX_SURFACE),
};

type Report = {
  surface: string;
  dir: string;
  valid: boolean;
  census: Census | null;
  problems: string[];
  /** Files under DIR that are off the editable surface (ignored, as a proposal's would be refused). */
  ignored: string[];
  /** Skills autotrigger would add a trigger line for before validating. */
  autotriggered: string[];
};

const OPTIONS = {
  surface: {
    type: "string",
    valueName: "NAME",
    description: "Editable surface: opencode (default) or codex",
  },
  json: { type: "boolean", description: "Print one JSON object instead of text" },
  "allow-subagents": {
    type: "boolean",
    description: "Accept sub_agents/ (off unless the deployment installs them)",
  },
} as const satisfies OptionSpecs;

const validateCommand = defineCommand({
  name: "validate",
  summary: "Check a harness directory against an executor's editable surface",
  args: "DIR",
  help: [
    "Reads the on-surface files of DIR, adds the trigger lines autotrigger would add (in memory",
    "only), then runs every check a proposed harness must pass: always-on cap, skill and sub-agent",
    "frontmatter, trigger lines, Python syntax (python3 compiles, never runs, the scripts), hooks,",
    "and script references. Exit 0 when valid, 1 when not, 2 for a bad command line.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 1, max: 1 },
  async run(args, io) {
    const surfaceName = args.opts.surface ?? "opencode";
    const load = SURFACES[surfaceName];
    if (!load) {
      throw new UsageError(
        `--surface must be one of ${Object.keys(SURFACES).join(", ")}, got '${surfaceName}'`,
        "validate",
      );
    }
    const dir = resolve(io.cwd, args.positionals[0] as string);
    const { dirExists } = await import("../../core/lib/safe-fs.ts");
    if (!dirExists(dir)) throw new UsageError(`no harness directory at '${dir}'`, "validate");

    const surface = await load();
    const report = await check(surface, dir, args.opts["allow-subagents"]);
    if (args.opts.json) io.stdout(`${JSON.stringify(report)}\n`);
    else printReport(io, report, surface);
    return report.valid ? EXIT.ok : EXIT.failed;
  },
});

async function check(surface: SurfaceSpec, dir: string, allowSubagents: boolean): Promise<Report> {
  const tree = await import("../../core/harness/tree.ts");
  const report: Report = {
    surface: surface.name,
    dir,
    valid: false,
    census: null,
    problems: [],
    ignored: [],
    autotriggered: [],
  };
  let files: Tree;
  try {
    files = tree.readTree(surface, dir, report.ignored);
  } catch (err) {
    if (!(err instanceof tree.TreeSymlinkError)) throw err;
    report.problems.push(err.message);
    return report;
  }
  if (Object.keys(files).length === 0) {
    report.problems.push(
      `'${dir}' holds no file of the ${surface.name} editable surface (always-on files: ${surface.alwaysOn.join(", ")})`,
    );
    return report;
  }
  const copy = structuredClone(files);
  report.autotriggered = tree.autotrigger(surface, copy);
  try {
    report.census = await tree.validate(surface, copy, { allowSubagents });
    report.valid = true;
  } catch (err) {
    if (err instanceof tree.TreeValidationError) report.problems.push(...err.problems);
    else throw err;
  }
  return report;
}

function printReport(io: CliIO, r: Report, surface: SurfaceSpec): void {
  const lines = [`${r.dir} (${r.surface} surface)`];
  for (const rel of r.ignored) lines.push(`ignored, off the editable surface: ${rel}`);
  if (r.autotriggered.length > 0) {
    lines.push(
      `autotrigger would add trigger lines to ${surface.autotriggerFile} for: ${r.autotriggered.join(", ")}`,
    );
  }
  if (r.census) {
    const c = r.census;
    const parts = [
      `always-on ${c.always_on_chars}/${surface.alwaysOnMax} chars`,
      `${c.n_files} files`,
      `${c.skills} skills`,
      `${c.sub_agents} sub-agents`,
      `${c.scripts} scripts`,
    ];
    if (c.plugins !== undefined) parts.push(`${c.plugins} plugins`);
    if (c.hooks !== undefined) parts.push(c.hooks ? "hooks file" : "no hooks file");
    lines.push(`valid: ${parts.join(", ")}`);
  } else {
    const n = r.problems.length;
    lines.push(`invalid: ${n} problem${n === 1 ? "" : "s"}`);
    for (const p of r.problems) lines.push(`  ${p.replace(/\s*\n\s*/g, " ")}`);
  }
  io.stdout(`${lines.join("\n")}\n`);
}

export default validateCommand;
