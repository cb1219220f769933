// Finds the Python 3 interpreter once per process. Version-manager shims (pyenv, asdf) are shell
// scripts that cost ~0.5 s per start; resolving `sys.executable` once lets every later script run
// (syntax checks, demo executions) start the real binary directly. Never runs harness code itself.

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
