// The remembered `--version` of an agent CLI binary (src/agent-cli/version-cache.ts): asked once
// per binary file, asked again when the file changes, never remembered when the binary failed,
// and no cache folder is no error.

import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rememberedVersion, versionCacheFile } from "../../src/agent-cli/version-cache.ts";

const root = mkdtempSync(join(tmpdir(), "h2-version-cache-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function binary(name: string, body: string): string {
  const path = join(root, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A probe that runs `bin --version` and counts how often it was asked. */
function counted(bin: string) {
  const probe = async () => {
    probe.calls++;
    const r = Bun.spawnSync([bin, "--version"]);
    if (r.exitCode !== 0) throw new Error(`${bin} --version failed`);
    return r.stdout.toString().trim();
  };
  probe.calls = 0;
  return probe;
}

describe("rememberedVersion", () => {
  test("a binary is asked once; the same file again is answered from the cache", async () => {
    const env = { XDG_CACHE_HOME: join(root, "cache-a") };
    const bin = binary("cli-a", 'echo "1.2.3"');
    const probe = counted(bin);
    expect(await rememberedVersion(bin, env, probe)).toBe("1.2.3");
    expect(await rememberedVersion(bin, env, probe)).toBe("1.2.3");
    expect(probe.calls).toBe(1);
    const file = versionCacheFile(env) as string;
    expect(file).toBe(join(root, "cache-a", "harness2", "cli-versions.json"));
    expect(Object.values(JSON.parse(readFileSync(file, "utf8")))).toEqual(["1.2.3"]);
  });

  test("a binary replaced or touched since is asked again", async () => {
    const env = { XDG_CACHE_HOME: join(root, "cache-b") };
    const bin = binary("cli-b", 'echo "1.0.0"');
    const probe = counted(bin);
    expect(await rememberedVersion(bin, env, probe)).toBe("1.0.0");
    writeFileSync(bin, '#!/bin/sh\necho "2.0.0"\n');
    expect(await rememberedVersion(bin, env, probe)).toBe("2.0.0");
    const later = new Date(Date.now() + 5000);
    utimesSync(bin, later, later);
    expect(await rememberedVersion(bin, env, probe)).toBe("2.0.0");
    expect(probe.calls).toBe(3);
  });

  test("a binary that fails is never remembered: it is asked again, and fails again", async () => {
    const env = { XDG_CACHE_HOME: join(root, "cache-c") };
    const bin = binary("cli-c", "echo broken >&2; exit 3");
    const probe = counted(bin);
    await expect(rememberedVersion(bin, env, probe)).rejects.toThrow("--version failed");
    await expect(rememberedVersion(bin, env, probe)).rejects.toThrow("--version failed");
    expect(probe.calls).toBe(2);
    expect(existsSync(versionCacheFile(env) as string)).toBe(false);
  });

  test("no usable cache folder, or a garbled cache file, only means asking every time", async () => {
    const bin = binary("cli-d", 'echo "4.5.6"');
    const blocked = join(root, "not-a-folder");
    writeFileSync(blocked, "a file where the cache folder would be");
    const probe = counted(bin);
    for (const env of [{ XDG_CACHE_HOME: blocked }, {}]) {
      expect(await rememberedVersion(bin, env, probe)).toBe("4.5.6");
    }
    const garbled = { XDG_CACHE_HOME: join(root, "cache-e") };
    const file = versionCacheFile(garbled) as string;
    await rememberedVersion(bin, garbled, probe);
    writeFileSync(file, "{not json");
    expect(await rememberedVersion(bin, garbled, probe)).toBe("4.5.6");
    expect(probe.calls).toBe(4);
    // A path that is no file (gone, or a folder) is asked every time, never remembered.
    expect(await rememberedVersion(join(root, "gone"), garbled, async () => "9.9.9")).toBe("9.9.9");
  });
});
