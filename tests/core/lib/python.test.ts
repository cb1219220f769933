// Finding the real python3 behind a pyenv shim without starting the shim, and falling back to
// asking the shim whenever pyenv's choice is anything but one plain installed version.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pyenvDirect, resolvePython } from "../../../src/core/lib/python.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-python-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

let n = 0;
/** A fake pyenv root: a shim that leaves a marker when run, and the given installed versions. */
function pyenv(versions: string[]) {
  const root = join(ROOT, `pyenv-${++n}`);
  const marker = join(root, "shim-ran");
  mkdirSync(join(root, "shims"), { recursive: true });
  const shim = join(root, "shims", "python3");
  writeFileSync(shim, `#!/bin/sh\ntouch '${marker}'\necho /from/the/shim\n`);
  chmodSync(shim, 0o755);
  for (const v of versions) {
    const bin = join(root, "versions", v, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "python3"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, "python3"), 0o755);
  }
  const work = join(root, "project", "sub");
  mkdirSync(work, { recursive: true });
  return {
    root,
    shim,
    marker,
    work,
    bin: (v: string) => join(root, "versions", v, "bin", "python3"),
  };
}

describe("pyenvDirect", () => {
  test("PYENV_VERSION names the installed interpreter", () => {
    const p = pyenv(["3.9.1", "3.11.7"]);
    const env = { PYENV_ROOT: p.root, PYENV_VERSION: "3.9.1", PATH: "/usr/bin" };
    expect(pyenvDirect(p.shim, env, p.work)).toBe(p.bin("3.9.1"));
  });

  test("the nearest .python-version wins over the global version file", () => {
    const p = pyenv(["3.9.1", "3.11.7"]);
    writeFileSync(join(p.root, "version"), "3.11.7\n");
    const env = { PYENV_ROOT: p.root, PATH: "/usr/bin" };
    expect(pyenvDirect(p.shim, env, p.work)).toBe(p.bin("3.11.7"));
    writeFileSync(join(p.root, "project", ".python-version"), "# pinned\n3.9.1\n");
    expect(pyenvDirect(p.shim, env, p.work)).toBe(p.bin("3.9.1"));
  });

  test("anything but one plain installed version is left to the shim", () => {
    const p = pyenv(["3.9.1", "3.11.7"]);
    const base = { PYENV_ROOT: p.root, PATH: "/usr/bin" };
    for (const version of ["system", "3.9.1:3.11.7", "3.12.0", "../3.9.1"]) {
      expect(pyenvDirect(p.shim, { ...base, PYENV_VERSION: version }, p.work)).toBeNull();
    }
    // no version source at all
    expect(pyenvDirect(p.shim, base, p.work)).toBeNull();
    // a python3 that is not this root's shim
    expect(pyenvDirect("/usr/bin/python3", { ...base, PYENV_VERSION: "3.9.1" }, p.work)).toBeNull();
  });

  test("resolvePython takes the direct answer and never starts the shim", async () => {
    const p = pyenv(["3.9.1"]);
    const env = { PYENV_ROOT: p.root, PYENV_VERSION: "3.9.1", PATH: join(p.root, "shims") };
    expect(await resolvePython(env)).toBe(p.bin("3.9.1"));
    expect(existsSync(p.marker)).toBe(false);
  });

  test("when the choice is not plain, resolvePython asks the shim", async () => {
    const p = pyenv(["3.9.1"]);
    const env = {
      PYENV_ROOT: p.root,
      PYENV_VERSION: "system",
      PATH: `${join(p.root, "shims")}:/usr/bin:/bin`,
    };
    // The fake shim answers a path that does not exist, so the shim itself is kept.
    expect(await resolvePython(env)).toBe(p.shim);
    expect(existsSync(p.marker)).toBe(true);
  });
});
