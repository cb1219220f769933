// A benchmark judge's environment, tried for real before anything is spent (docs/benchmarks.md
// "Setup, in common: the judge's environment"): the judge's own interpreter imports what the
// judge needs, and JobBench's spreadsheet runtime (the Docker image its eval/setup_judge.sh
// builds) is there. Each problem comes back with the exact command that fixes it.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NETWORK_ENV, pickEnv, runProcess } from "../../core/lib/process.ts";
import { pythonEnv } from "../../core/lib/python.ts";
import { isRegularFile } from "../../core/lib/safe-fs.ts";
import { SpawnError } from "../../core/lib/spawn-error.ts";

/**
 * What JobBench's eval/judge.py imports beyond the standard library, by import name and by the
 * package its pyproject.toml lists (openai for the judge model; openpyxl and xlrd for
 * spreadsheets, python-pptx for slides, mammoth for .docx, pdfplumber for .pdf).
 */
export const JB_JUDGE_MODULES: readonly { module: string; pkg: string }[] = [
  { module: "openai", pkg: "openai" },
  { module: "openpyxl", pkg: "openpyxl" },
  { module: "xlrd", pkg: "xlrd" },
  { module: "pptx", pkg: "python-pptx" },
  { module: "mammoth", pkg: "mammoth" },
  { module: "pdfplumber", pkg: "pdfplumber" },
];

/** Imports each module with `python` (in `cwd`); the ones that fail, with their first error line. */
const PROBE = [
  "import importlib, json, sys",
  "bad = {}",
  "for m in sys.argv[1:]:",
  "    try:",
  "        importlib.import_module(m)",
  "    except BaseException as e:",
  "        bad[m] = (type(e).__name__ + ': ' + str(e)).splitlines()[0][:200]",
  "print(json.dumps(bad))",
].join("\n");

export type ImportProbe =
  | { ok: true }
  | { ok: false; failed: Record<string, string> }
  | { ok: false; broken: string };

export async function probeImports(
  python: string,
  modules: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<ImportProbe> {
  let exit: Awaited<ReturnType<typeof runProcess>>;
  try {
    exit = await runProcess({
      argv: [python, "-c", PROBE, ...modules],
      cwd,
      env: pythonEnv(env, pickEnv(env, ["PYTHONPATH"])),
      timeoutMs: 60_000,
    });
  } catch (err) {
    if (err instanceof SpawnError)
      return { ok: false, broken: `${python} cannot start (${err.message})` };
    throw err;
  }
  const last = exit.stdout.trim().split("\n").pop() ?? "";
  let failed: Record<string, string>;
  try {
    failed = JSON.parse(last) as Record<string, string>;
  } catch {
    const why = exit.timedOut
      ? "timed out"
      : (exit.stderrTail.trim().split("\n").pop() ?? `exit ${exit.code}`);
    return { ok: false, broken: `${python} could not run an import check (${why})` };
  }
  return Object.keys(failed).length === 0 ? { ok: true } : { ok: false, failed };
}

/** The Dockerfile of JobBench's pinned spreadsheet runtime, when the checkout has one. */
export function calcDockerfile(root: string): string | null {
  const path = join(root, "eval", "calc-runtime", "Dockerfile");
  return isRegularFile(path) ? path : null;
}

/**
 * The image JobBench's judge runs spreadsheets in, named as its eval/jobbench_eval/calc.py names
 * it: `jobbench-calc:` and the first 20 hex digits of the Dockerfile's sha256.
 */
export function calcImage(root: string): string | null {
  const file = calcDockerfile(root);
  if (file === null) return null;
  return `jobbench-calc:${createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 20)}`;
}

export type CalcStatus =
  | { state: "not-needed" }
  | { state: "ready"; image: string }
  | { state: "missing"; image: string; why: string; fix: string };

/**
 * Whether the judge can recalculate spreadsheets: the checkout pins no runtime (not needed), or
 * the image is in the Docker engine (`docker image inspect`; the judge runs it with
 * `--pull=never`). JOBBENCH_CALC_NATIVE=1 works only inside that image, so it is no way out here.
 */
export async function calcStatus(
  root: string,
  env: Record<string, string | undefined>,
): Promise<CalcStatus> {
  const image = calcImage(root);
  if (image === null) return { state: "not-needed" };
  const fix = `run (cd ${root} && ./eval/setup_judge.sh) with Docker running; it builds ${image}`;
  const docker = env.HARNESS2_JB_DOCKER || "docker";
  try {
    const exit = await runProcess({
      argv: [docker, "image", "inspect", "--format", "{{.Id}}", image],
      env: pickEnv(env, ["PATH", "HOME", "DOCKER_*", ...NETWORK_ENV]),
      timeoutMs: 45_000,
    });
    if (exit.code === 0) return { state: "ready", image };
    const why = exit.timedOut
      ? "docker did not answer within 45 s"
      : (exit.stderrTail.trim().split("\n").pop() ?? `docker exited ${exit.code}`);
    return { state: "missing", image, why, fix };
  } catch (err) {
    if (!(err instanceof SpawnError)) throw err;
    return {
      state: "missing",
      image,
      why: `${docker} cannot be run (${err.message})`,
      fix: `install Docker Engine (or set HARNESS2_JB_DOCKER to its client), then ${fix}`,
    };
  }
}
