// The launcher (bin/harness2) and the hints that name it (issue 16 §2): linked from anywhere it
// runs this checkout's CLI with this checkout's Bun; without a Bun it says how to install one;
// a hint says `harness2` only when that name on PATH is this launcher, and otherwise the
// launcher's path, so it works as printed. The packed tarball holds what the CLI needs and runs
// the demo from where it is unpacked.
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { LAUNCHER, selfCommand } from "../../src/cli/help/self.ts";
import { runCaptured } from "../helpers/cli.ts";

const CHECKOUT = join(import.meta.dir, "../..");
const TMP = mkdtempSync(join(tmpdir(), "h2-launcher-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

async function run(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  return runCaptured(argv, {
    cwd: opts.cwd ?? TMP,
    env: { PATH: SYSTEM_PATH, HOME: TMP, NO_COLOR: "1", ...opts.env },
  });
}

describe("bin/harness2", () => {
  test("linked into a directory on PATH, `harness2` runs this checkout's CLI from anywhere", async () => {
    const onPath = join(TMP, "path-bin");
    mkdirSync(onPath);
    symlinkSync(LAUNCHER, join(onPath, "harness2"));
    const r = await run(["harness2", "--help"], { env: { PATH: `${onPath}:${SYSTEM_PATH}` } });
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(`harness2 ${pkg.version} — recursive agent harnessing`);
    // A usage error's hint then says plain `harness2`, which works as printed.
    const bad = await run(["harness2", "--nope"], { env: { PATH: `${onPath}:${SYSTEM_PATH}` } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("harness2: unknown option '--nope' (see 'harness2 --help')\n");
  });

  test("a checkout without Bun is one line saying how to install it, exit 1", async () => {
    const root = join(TMP, "no-bun");
    mkdirSync(join(root, "bin"), { recursive: true });
    copyFileSync(LAUNCHER, join(root, "bin", "harness2"));
    chmodSync(join(root, "bin", "harness2"), 0o755);
    // A PATH with only the two tools the launcher uses, so no Bun installed elsewhere is found.
    const tools = join(TMP, "tools");
    mkdirSync(tools);
    for (const t of ["readlink", "dirname"]) symlinkSync(Bun.which(t) as string, join(tools, t));
    const r = await run([join(root, "bin", "harness2"), "--help"], { env: { PATH: tools } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`harness2: Bun is not installed in ${root}. Fix: cd '${root}' &&`);
  });

  test("the install links it as node_modules/.bin/harness2 (what `bunx harness2` runs here)", () => {
    expect(pkg.bin.harness2).toBe("bin/harness2");
    expect(pkg.scripts.postinstall).toContain("node_modules/.bin/harness2");
    expect(existsSync(join(CHECKOUT, "node_modules", ".bin", "harness2"))).toBe(true);
  });
});

describe("selfCommand: the form of harness2 a hint prints", () => {
  test("plain harness2 only when that name on PATH is this launcher", () => {
    const linked = join(TMP, "linked");
    mkdirSync(linked);
    symlinkSync(LAUNCHER, join(linked, "harness2"));
    expect(selfCommand({ PATH: `${linked}:${SYSTEM_PATH}` }, TMP)).toBe("harness2");

    const other = join(TMP, "other");
    mkdirSync(other);
    writeFileSync(join(other, "harness2"), "#!/bin/sh\necho someone else\n");
    chmodSync(join(other, "harness2"), 0o755);
    expect(selfCommand({ PATH: `${other}:${SYSTEM_PATH}` }, TMP)).toBe(LAUNCHER);
  });

  test("a package runner's node_modules/.bin on PATH does not count: the user's shell lacks it", () => {
    const runnerPath = `${join(CHECKOUT, "node_modules", ".bin")}:${SYSTEM_PATH}`;
    expect(selfCommand({ PATH: runnerPath }, CHECKOUT)).toBe("bin/harness2");
  });

  test("otherwise the launcher's path: relative inside the checkout, absolute elsewhere", () => {
    expect(selfCommand({ PATH: SYSTEM_PATH }, CHECKOUT)).toBe("bin/harness2");
    expect(selfCommand({ PATH: SYSTEM_PATH }, join(CHECKOUT, "src"))).toBe(LAUNCHER);
    expect(selfCommand({ PATH: SYSTEM_PATH }, TMP)).toBe(LAUNCHER);
  });
});

describe("the packed package", () => {
  test(
    "holds the launcher and the CLI's sources, no tests, and runs the demo unpacked",
    async () => {
      const packed = await run(["npm", "pack", "--json", "--pack-destination", TMP], {
        cwd: CHECKOUT,
        env: { PATH: process.env.PATH ?? SYSTEM_PATH, npm_config_cache: join(TMP, "npm-cache") },
      });
      expect(packed.code).toBe(0);
      const info = JSON.parse(packed.stdout)[0] as {
        filename: string;
        files: { path: string; mode: number }[];
      };
      const paths = info.files.map((f) => f.path);
      for (const need of [
        "bin/harness2",
        "src/cli/main.ts",
        "store/schema.ts",
        "tui/live/live-app.tsx",
        "fixtures/demo/base-harness/scripts/summarize.py",
        "package.json",
        "README.md",
      ]) {
        expect(paths).toContain(need);
      }
      expect(paths.some((p) => p.startsWith("tests/") || p.startsWith(".ci/"))).toBe(false);
      expect((info.files.find((f) => f.path === "bin/harness2")?.mode ?? 0) & 0o111).not.toBe(0);

      // Unpacked beside this checkout's installed dependencies, as an install would place it.
      const unpacked = join(TMP, "unpacked");
      mkdirSync(unpacked);
      const untar = await run(["tar", "-xzf", join(TMP, info.filename), "-C", unpacked]);
      expect(untar.code).toBe(0);
      const root = join(unpacked, "package");
      symlinkSync(join(CHECKOUT, "node_modules"), join(root, "node_modules"));
      const runs = join(TMP, "packed-runs");
      const demo = await run(
        [join(root, "bin", "harness2"), "demo", "--no-tui", "--k", "1", "--runs", runs],
        { env: { PATH: process.env.PATH ?? SYSTEM_PATH } },
      );
      if (demo.code !== 0) console.error(demo.stdout, demo.stderr);
      expect(demo.code).toBe(0);
      expect(demo.stdout).toContain("Local demo: 2 task(s) completed");
      expect(readdirSync(runs)).toContain("harness2.db");
    },
    { timeout: 120_000 },
  );
});
