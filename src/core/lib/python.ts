// Finds the Python 3 interpreter once per process. Version-manager shims (pyenv, asdf) are shell
// scripts that cost ~0.5 s per start; resolving `sys.executable` once lets every later script run
// (syntax checks, demo executions) start the real binary directly, and a plain pyenv choice is read
// from pyenv's own version files without starting the shim at all. Never runs harness code itself.

import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pickEnv, runProcess, which } from "./process.ts";

const resolved = new Map<string, Promise<string | null>>();

/**
 * What `python3` (or `HARNESS2_PYTHON` when set) names on `env.PATH` — possibly a version-manager
 * shim — or null when nothing does. A cheap lookup: resolvePython answers null exactly when this does.
 */
export function pythonCandidate(env: Record<string, string | undefined>): string | null {
  return which(env.HARNESS2_PYTHON ?? "python3", env);
}

/**
 * The absolute path of the real python3 behind `env.PATH` (or `HARNESS2_PYTHON` when set), or null
 * when there is none. The answer is cached per (override, PATH).
 */
export function resolvePython(env: Record<string, string | undefined>): Promise<string | null> {
  const override = env.HARNESS2_PYTHON;
  // No override means `python3`, so asking for `python3` by name shares the same answer.
  const key = `${override ?? "python3"}\0${env.PATH ?? ""}`;
  let found = resolved.get(key);
  if (!found) {
    found = locate(env);
    resolved.set(key, found);
  }
  return found;
}

async function locate(env: Record<string, string | undefined>): Promise<string | null> {
  const candidate = pythonCandidate(env);
  if (candidate === null) return null;
  const direct = pyenvDirect(candidate, env);
  if (direct !== null) return direct;
  try {
    const exit = await runProcess({
      // -S: sys.executable is settled before `site` runs, and site-packages' .pth files can
      // cost more than the interpreter's own start.
      argv: [candidate, "-S", "-c", "import sys; print(sys.executable)"],
      env: pythonEnv(env),
      timeoutMs: 30_000,
    });
    const real = exit.stdout.trim();
    if (exit.code === 0 && real !== "" && which(real, env) !== null) return real;
  } catch {
    // fall through: the shim itself still works as an interpreter path
  }
  return candidate;
}

/** The environment a Python helper needs: path, home, locale, and version-manager variables. */
export function pythonEnv(
  env: Record<string, string | undefined>,
  set: Record<string, string> = {},
): Record<string, string> {
  return pickEnv(env, ["PATH", "HOME", "LANG", "LC_*", "PYENV_*", "TMPDIR"], {
    PYTHONDONTWRITEBYTECODE: "1",
    ...set,
  });
}

/**
 * The interpreter a pyenv shim would run, found without starting the shim (a bash script that
 * costs 0.3–1 s per start on a loaded 2-core machine), or null whenever pyenv's choice is not a
 * plain one: then the caller asks the shim itself. Plain means: `candidate` is
 * `$PYENV_ROOT/shims/<name>`, the selected version is exactly one name (from PYENV_VERSION, else
 * the nearest `.python-version` from PYENV_DIR or the working directory upwards, else
 * `$PYENV_ROOT/version`), it is not `system`, and `$PYENV_ROOT/versions/<version>/bin/<name>` is
 * an executable file. That is the file `pyenv exec` runs for such a choice.
 */
export function pyenvDirect(
  candidate: string,
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): string | null {
  const root = env.PYENV_ROOT || (env.HOME ? join(env.HOME, ".pyenv") : "");
  if (root === "" || dirname(candidate) !== join(root, "shims")) return null;
  const versions = selectedVersions(env, root, cwd);
  if (versions === null || versions.length !== 1) return null;
  const version = versions[0] as string;
  if (version === "system" || version.includes("/") || version.startsWith(".")) return null;
  return which(join(root, "versions", version, "bin", basename(candidate)), env);
}

/** pyenv's version selection as names, or null when no source names one. */
function selectedVersions(
  env: Record<string, string | undefined>,
  root: string,
  cwd: string,
): string[] | null {
  if (env.PYENV_VERSION !== undefined && env.PYENV_VERSION.trim() !== "") {
    return env.PYENV_VERSION.split(":").filter((v) => v.trim() !== "");
  }
  for (let dir = env.PYENV_DIR || cwd; ; dir = dirname(dir)) {
    const named = versionFile(join(dir, ".python-version"));
    if (named !== null) return named;
    if (dirname(dir) === dir) break;
  }
  return versionFile(join(root, "version"));
}

/** The version names a pyenv version file lists (comments dropped), or null when it is absent. */
function versionFile(path: string): string[] | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  return text
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .flatMap((line) => line.split(/\s+/))
    .filter((v) => v !== "");
}
