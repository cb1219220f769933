// harness2's own Harbor agents in a WorkBuddy-Bench checkout (docs/benchmarks.md "WorkBuddy: our
// agents"). The checkout runs a harness through three things (its configs/README.md and
// configs/harnesses/HARNESS_AUTHORING.md): a Python agent class named by an import path, a harness
// configuration `configs/harnesses/<family>/{_defaults.yaml,versions/<v>.yaml}` that names it, and
// an entry in the runner's table of harness adapters (src/workbuddy_bench/runner/
// harness_adapters.py, which `scripts/run.sh` asks for every job and which has no other place to
// register one). setup writes all three for OpenCode and Codex, records every file it wrote with
// its hash in `.harness2-agents.json`, replaces an older install of its own cleanly, and refuses —
// before writing anything — to overwrite a file it did not write or one changed since it wrote it.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { isRegularFile, lstatOrNull } from "../../core/lib/safe-fs.ts";
import { SetupError } from "../common/install.ts";

/** The version of what setup installs; bump it whenever a file below or the table entries change. */
export const WB_AGENTS_VERSION = 1;
export const AGENTS_MANIFEST = ".harness2-agents.json";
/** The runner's table of harness adapters, which `scripts/run.sh` consults for every job. */
export const ADAPTERS_FILE = join("src", "workbuddy_bench", "runner", "harness_adapters.py");
export const OPENCODE_FAMILY = "harness2-opencode";
export const CODEX_FAMILY = "harness2-codex";

const SHIPPED = join(import.meta.dir, "harbor");
const TABLE_OPEN = "HARNESS_ADAPTERS: dict[str, HarnessRuntimeAdapter] = {";
const BEGIN = "    # >>> harness2 agents";
const END = "    # <<< harness2 agents";

export type AgentVersions = { opencode: string; codex: string };

const AgentsManifest = z.object({
  version: z.number().int(),
  versions: z.object({ opencode: z.string(), codex: z.string() }),
  /** Every file setup wrote, relative to the checkout, with its sha256. */
  files: z.record(z.string(), z.string()),
  /** The table file's sha256 right after setup added its entries. */
  adapters: z.string(),
});
type AgentsManifest = z.infer<typeof AgentsManifest>;

const sha = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex");

/** The entries setup adds to the runner's adapter table (the names our agents' configs give). */
export function adapterBlock(): string {
  const entry = (name: string, display: string, prefix: string) =>
    [
      `    "${name}": HarnessRuntimeAdapter(`,
      `        harness_name="${name}",`,
      `        canonical_display_name="${display}",`,
      `        harness_protocol="openai",`,
      `        backend_base_env="${prefix}_BASE_URL",`,
      `        backend_key_env="${prefix}_API_KEY",`,
      `        proxy_url_env="${prefix}_PROXY_URL",`,
      "        uses_anthropic_env=False,",
      "    ),",
    ].join("\n");
  return [
    `${BEGIN} v${WB_AGENTS_VERSION} (written and removed only by \`harness2 setup --bench wb\`)`,
    entry(OPENCODE_FAMILY, "OpenCode (harness2)", "HARNESS2_OC"),
    entry(CODEX_FAMILY, "Codex (harness2)", "HARNESS2_CX"),
    END,
  ].join("\n");
}

/** Every file of the install: its place in the checkout and its text. */
export function agentFiles(v: AgentVersions): Map<string, string> {
  const out = new Map<string, string>();
  const ship = (from: string, to: string) => {
    for (const name of readdirSync(from).sort()) {
      const path = join(from, name);
      if (name === "__pycache__") continue;
      if (statSync(path).isDirectory()) ship(path, join(to, name));
      else if (!name.endsWith(".pyc")) out.set(join(to, name), readFileSync(path, "utf8"));
    }
  };
  ship(join(SHIPPED, "harness2_wb"), join("src", "harness2_wb"));
  ship(join(SHIPPED, "harnesses"), join("configs", "harnesses"));
  const version = (family: string, key: string, value: string) =>
    out.set(
      join("configs", "harnesses", family, "versions", `${value}.yaml`),
      `# ${family} at ${value}: written by harness2 setup from its settings.\nharness:\n  params:\n    ${key}: "${value}"\n`,
    );
  version(OPENCODE_FAMILY, "OPENCODE_VERSION", v.opencode);
  version(CODEX_FAMILY, "CODEX_VERSION", v.codex);
  return out;
}

function readManifest(root: string): AgentsManifest | null {
  const path = join(root, AGENTS_MANIFEST);
  if (!isRegularFile(path)) return null;
  try {
    return AgentsManifest.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    throw new SetupError(
      `${path} is not a record harness2 wrote: remove it and the harness2 files it named, then run setup again`,
    );
  }
}

/** The table file with harness2's entries taken out, or the reason it cannot be edited. */
function withoutOurEntries(text: string, path: string): string {
  const opens = text.split("\n").filter((l) => l.trim() === TABLE_OPEN).length;
  if (opens !== 1) {
    throw new SetupError(
      `${path} does not hold the adapter table harness2 knows (one line '${TABLE_OPEN}'): this checkout is not a WorkBuddy-Bench runner harness2 can register its agents with`,
    );
  }
  const lines = text.split("\n");
  const begin = lines.findIndex((l) => l.startsWith(BEGIN));
  if (begin < 0) return text;
  const end = lines.findIndex((l, i) => i > begin && l === END);
  if (end < 0)
    throw new SetupError(
      `${path} holds the start of harness2's entries but not their end: restore the file from the checkout's git`,
    );
  return [...lines.slice(0, begin), ...lines.slice(end + 1)].join("\n");
}

function withOurEntries(clean: string): string {
  const lines = clean.split("\n");
  const at = lines.findIndex((l) => l.trim() === TABLE_OPEN);
  return [...lines.slice(0, at + 1), adapterBlock(), ...lines.slice(at + 1)].join("\n");
}

/** Replaces a file of the checkout, keeping its mode (an executable stays executable). */
function writeAtomic(path: string, text: string): void {
  writeFileAtomic(path, text, { mkdir: true, keepMode: true });
}

export type AgentsStatus =
  | { state: "current"; version: number }
  | { state: "missing" | "outdated" | "changed"; detail: string };

/** Whether the checkout holds this build's agents, unchanged since setup wrote them. */
export function agentsStatus(root: string, v: AgentVersions): AgentsStatus {
  let m: AgentsManifest | null;
  try {
    m = readManifest(root);
  } catch (err) {
    return { state: "changed", detail: (err as Error).message };
  }
  if (m === null) return { state: "missing", detail: `no ${AGENTS_MANIFEST} in ${root}` };
  for (const [rel, hash] of Object.entries(m.files)) {
    const path = join(root, rel);
    if (!isRegularFile(path)) return { state: "changed", detail: `${rel} is gone` };
    if (sha(readFileSync(path)) !== hash)
      return { state: "changed", detail: `${rel} changed since setup wrote it` };
  }
  const table = join(root, ADAPTERS_FILE);
  if (!isRegularFile(table) || sha(readFileSync(table)) !== m.adapters) {
    return {
      state: "changed",
      detail: `${ADAPTERS_FILE} changed since setup registered the agents`,
    };
  }
  const want = agentFiles(v);
  const same =
    m.version === WB_AGENTS_VERSION &&
    want.size === Object.keys(m.files).length &&
    [...want].every(([rel, text]) => m.files[rel] === sha(text));
  if (!same) {
    return {
      state: "outdated",
      detail: `version ${m.version} for OpenCode ${m.versions.opencode} and Codex ${m.versions.codex}; this build installs version ${WB_AGENTS_VERSION} for OpenCode ${v.opencode} and Codex ${v.codex}`,
    };
  }
  return { state: "current", version: m.version };
}

/**
 * Installs (or replaces) harness2's agents in the checkout at `root`. All checks come first; a
 * refusal leaves every file as it was. Returns what it did, in one line.
 */
export function installAgents(root: string, v: AgentVersions): string {
  const previous = readManifest(root);
  const owned = previous?.files ?? {};
  const want = agentFiles(v);
  // 1. Nothing foreign is overwritten; nothing of ours that someone changed is replaced.
  for (const rel of new Set([...want.keys(), ...Object.keys(owned)])) {
    const path = join(root, rel);
    const st = lstatOrNull(path);
    if (!st) continue;
    if (!st.isFile())
      throw new SetupError(
        `${path} is in the way and is not a file harness2 wrote: move it aside and run setup again`,
      );
    const recorded = owned[rel];
    if (recorded === undefined) {
      if (want.get(rel) === readFileSync(path, "utf8")) continue;
      throw new SetupError(
        `${path} exists and harness2 did not write it: setup never overwrites a checkout's own file; move it aside and run setup again`,
      );
    }
    if (sha(readFileSync(path)) !== recorded) {
      throw new SetupError(
        `${path} changed since harness2 installed it: restore or remove it, then run setup again`,
      );
    }
  }
  const tablePath = join(root, ADAPTERS_FILE);
  if (!isRegularFile(tablePath)) {
    throw new SetupError(
      `${tablePath} is missing: ${root} is not a WorkBuddy-Bench checkout (its runner registers harnesses there)`,
    );
  }
  const table = readFileSync(tablePath, "utf8");
  if (previous !== null && sha(table) !== previous.adapters && table.includes(BEGIN)) {
    throw new SetupError(
      `${tablePath} changed since harness2 registered its agents: restore it from the checkout's git, then run setup again`,
    );
  }
  const clean = withoutOurEntries(table, tablePath);
  for (const name of [OPENCODE_FAMILY, CODEX_FAMILY]) {
    if (clean.includes(`"${name}"`))
      throw new SetupError(
        `${tablePath} already names ${name} outside harness2's entries: remove that entry, then run setup again`,
      );
  }
  // 2. Write: files of an older install that this one no longer has go first.
  for (const rel of Object.keys(owned))
    if (!want.has(rel)) rmSync(join(root, rel), { force: true });
  for (const [rel, text] of want) writeAtomic(join(root, rel), text);
  const registered = withOurEntries(clean);
  writeAtomic(tablePath, registered);
  const manifest: AgentsManifest = {
    version: WB_AGENTS_VERSION,
    versions: v,
    files: Object.fromEntries([...want].map(([rel, text]) => [rel, sha(text)])),
    adapters: sha(registered),
  };
  writeAtomic(join(root, AGENTS_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  const same =
    previous !== null &&
    JSON.stringify(previous.files) === JSON.stringify(manifest.files) &&
    previous.version === WB_AGENTS_VERSION;
  const verb =
    previous === null
      ? "installed"
      : same
        ? "already current"
        : `replaced (was version ${previous.version})`;
  return `harness2's agents ${verb} (version ${WB_AGENTS_VERSION}: ${OPENCODE_FAMILY}/${v.opencode} and ${CODEX_FAMILY}/${v.codex}; ${want.size} files and 2 entries in ${relative(root, tablePath)})`;
}
