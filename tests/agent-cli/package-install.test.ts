// Installed as a package of another project (`<project>/node_modules/harness2`), harness2 finds the
// agent CLIs it brought where the package manager hoisted them (`<project>/node_modules/.bin`,
// `<project>/node_modules/@openai/codex-<platform>`), before anything on PATH; in its own checkout
// it looks in its own node_modules first, as before.

import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pinnedNative } from "../../src/agent-cli/codex.ts";
import { dependencyFolders, pinnedOrOnPath } from "../../src/agent-cli/session-env.ts";

const root = mkdtempSync(join(tmpdir(), "h2-pkg-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function executable(path: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "#!/bin/sh\nexit 0\n");
  chmodSync(path, 0o755);
}

describe("harness2 installed as a package of another project", () => {
  const project = join(root, "project");
  const installed = join(project, "node_modules", "harness2");
  mkdirSync(installed, { recursive: true });

  test("its dependency folders: its own, then the project's it was hoisted into", () => {
    expect(dependencyFolders(installed)).toEqual([
      join(installed, "node_modules"),
      join(project, "node_modules"),
    ]);
    // A checkout (not inside a node_modules) has only its own.
    expect(dependencyFolders(join(root, "checkout"))).toEqual([
      join(root, "checkout", "node_modules"),
    ]);
  });

  test("opencode and claude from the project's .bin, before PATH; none there is null without PATH", () => {
    const env = { PATH: "/nonexistent" };
    expect(pinnedOrOnPath("opencode", env, installed)).toBeNull();
    executable(join(project, "node_modules", ".bin", "opencode"));
    expect(pinnedOrOnPath("opencode", env, installed)).toBe(
      join(project, "node_modules", ".bin", "opencode"),
    );
    // Its own copy wins when the package manager nested one under it.
    executable(join(installed, "node_modules", ".bin", "opencode"));
    expect(pinnedOrOnPath("opencode", env, installed)).toBe(
      join(installed, "node_modules", ".bin", "opencode"),
    );
  });

  test("codex's native binary from the project's hoisted @openai/codex-<platform>", () => {
    const triple: Record<string, string> = {
      "linux-x64": "x86_64-unknown-linux-musl",
      "linux-arm64": "aarch64-unknown-linux-musl",
      "darwin-x64": "x86_64-apple-darwin",
      "darwin-arm64": "aarch64-apple-darwin",
    };
    const t = triple[`${process.platform}-${process.arch}`];
    if (t === undefined) return;
    expect(pinnedNative(installed)).toBeNull();
    const vendor = join(
      project,
      "node_modules",
      "@openai",
      `codex-${process.platform}-${process.arch}`,
      "vendor",
      t,
    );
    executable(join(vendor, "bin", "codex"));
    mkdirSync(join(vendor, "codex-path"));
    expect(pinnedNative(installed)).toEqual({
      bin: join(vendor, "bin", "codex"),
      toolsDir: join(vendor, "codex-path"),
      source: "@openai/codex (pinned)",
    });
  });
});
