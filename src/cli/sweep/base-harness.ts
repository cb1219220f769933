// The one check of a task folder's own `harness/` before anything runs: read through the
// executor's surface (a symlink refuses it), autotriggered and validated as a stage's edit would
// be. `check` lists the problems; `run` and `run --dry-run` refuse a harness that has any.

import type { SurfaceSpec } from "../../core/harness/surface.ts";

export type BaseHarnessCheck = {
  /** Every problem, one sentence each; [] when the harness is valid. */
  problems: string[];
  /** Files that are off the surface and ignored. */
  ignored: string[];
  /** The Python syntax check could not run (python3 is reported on its own). */
  pythonMissing: boolean;
};

export async function checkBaseHarness(
  dir: string,
  surface: SurfaceSpec,
  allowSubagents = true,
): Promise<BaseHarnessCheck> {
  const tree = await import("../../core/harness/tree.ts");
  const { PythonUnavailableError } = await import("../../core/harness/python-check.ts");
  const ignored: string[] = [];
  try {
    const files = tree.readTree(surface, dir, ignored);
    tree.autotrigger(surface, files);
    await tree.validate(surface, files, { allowSubagents });
  } catch (err) {
    if (err instanceof tree.TreeValidationError) {
      return { problems: [...err.problems], ignored, pythonMissing: false };
    }
    if (err instanceof tree.TreeSymlinkError) {
      return { problems: [err.message], ignored, pythonMissing: false };
    }
    if (err instanceof PythonUnavailableError)
      return { problems: [], ignored, pythonMissing: true };
    throw err;
  }
  return { problems: [], ignored, pythonMissing: false };
}
