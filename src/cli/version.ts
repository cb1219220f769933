// `harness2 --version`: what a bug report needs in one place. harness2's own version and commit,
// the store schema it writes, the Bun running it, and the OpenCode and Codex executables a run
// would start (each asked for its version, as `check` does), or why there is none. `--json`
// gives the same as one object.

import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { SCHEMA_VERSION } from "../../store/schema.ts";

const ROOT = resolve(import.meta.dir, "../..");

export type Tool = { version: string; source: string } | { missing: string };

export type VersionReport = {
  harness2: string;
  /** The checkout's commit (short), or null outside a git checkout. */
  commit: string | null;
  storeSchema: number;
  bun: string;
  opencode: Tool;
  codex: Tool;
};

/**
 * The commit of HEAD, read from `.git` without starting git; null when it cannot be read. A `.git`
 * file (a worktree or submodule) names the folder holding HEAD, whose refs may live in the common
 * folder its `commondir` names.
 */
export function checkoutCommit(root: string = ROOT): string | null {
  try {
    let git = join(root, ".git");
    if (existsSync(git) && !statSync(git).isDirectory()) {
      const pointer = readFileSync(git, "utf8")
        .trim()
        .match(/^gitdir: (.+)$/);
      if (pointer === null) return null;
      git = resolve(root, pointer[1] as string);
    }
    if (!existsSync(join(git, "HEAD"))) return null;
    const head = readFileSync(join(git, "HEAD"), "utf8").trim();
    if (!head.startsWith("ref: ")) return /^[0-9a-f]{40}$/.test(head) ? head.slice(0, 7) : null;
    const ref = head.slice(5);
    const common = existsSync(join(git, "commondir"))
      ? resolve(git, readFileSync(join(git, "commondir"), "utf8").trim())
      : git;
    for (const dir of [...new Set([git, common])]) {
      const loose = join(dir, ref);
      if (existsSync(loose)) return readFileSync(loose, "utf8").trim().slice(0, 7);
      const packed = join(dir, "packed-refs");
      if (!existsSync(packed)) continue;
      const line = readFileSync(packed, "utf8")
        .split("\n")
        .find((l) => l.endsWith(` ${ref}`));
      if (line !== undefined) return line.slice(0, 7);
    }
    return null;
  } catch {
    return null;
  }
}

async function opencodeVersion(env: Record<string, string | undefined>, scratch: string) {
  const { OpencodeSolver } = await import("../substrate/opencode/execute.ts");
  try {
    const solver = new OpencodeSolver({ env });
    const version = await solver.version(join(scratch, "opencode"));
    return { version, source: solver.cli.command.source };
  } catch (err) {
    return { missing: err instanceof Error ? err.message : String(err) };
  }
}

async function codexVersion(env: Record<string, string | undefined>, scratch: string) {
  const { CodexSubstrate } = await import("../substrate/codex/substrate.ts");
  try {
    const codex = new CodexSubstrate({ env });
    const version = await codex.version(join(scratch, "codex"));
    return { version, source: codex.command.source };
  } catch (err) {
    return { missing: err instanceof Error ? err.message : String(err) };
  }
}

export async function versionReport(
  env: Record<string, string | undefined>,
): Promise<VersionReport> {
  const scratch = mkdtempSync(join(tmpdir(), "harness2-version-"));
  try {
    const [opencode, codex] = await Promise.all([
      opencodeVersion(env, scratch),
      codexVersion(env, scratch),
    ]);
    return {
      harness2: pkg.version,
      commit: checkoutCommit(),
      storeSchema: SCHEMA_VERSION,
      bun: Bun.version,
      opencode,
      codex,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const toolLine = (name: string, t: Tool) =>
  "missing" in t
    ? `${name.padEnd(9)}not available: ${t.missing}`
    : `${name.padEnd(9)}${t.version}  ${t.source}`;

export function formatVersion(v: VersionReport): string {
  return [
    `harness2 ${v.harness2} (commit ${v.commit ?? "unknown: not a git checkout"}, store schema ${v.storeSchema})`,
    `${"bun".padEnd(9)}${v.bun}  ${process.execPath}`,
    toolLine("opencode", v.opencode),
    toolLine("codex", v.codex),
    "",
  ].join("\n");
}
