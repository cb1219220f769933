// WorkBuddy-Bench's data as harness2 finds it (docs/benchmarks.md "WorkBuddy"): the checkout's
// `datasets/wb-bench-<subset>-v1.0/tasks/<task>/` folders in the Harbor task format —
// `instruction.md` (what the agent gets), `task.toml` (metadata, where the domain is kept),
// `environment/` (the container), `tests/` (the verifier) and, for code, `solution/`. Only the
// instruction and the metadata's domain are read here; the verifier and solution never are.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dirExists, isRegularFile, subdirectories } from "../../core/lib/safe-fs.ts";
import { type Installation, type Manifest, readInstalled } from "../common/install.ts";

export const WB_BENCH = "wb";
export const WB_SUBSETS = ["office", "web", "code"] as const;
export type WbSubset = (typeof WB_SUBSETS)[number];

/** The public repository, and the commit harness2's runner contract was read from. */
export const WB_REPO_URL = "https://github.com/Tencent/workbuddy-bench.git";
export const WB_REPO_COMMIT = "b516950be5b56eb3be406c2f76ee1c5111dcb57f";
export const WB_CHECKOUT = "workbuddy-bench";
export const WB_MANIFEST = "workbuddy-bench.harness2.json";

export const INSTRUCTION_FILE = "instruction.md";
export const TASK_TOML = "task.toml";

/** The metadata key that names a task's domain in each subset. */
export const DOMAIN_KEY: Record<WbSubset, "category" | "role"> = {
  office: "category",
  web: "category",
  code: "role",
};

/** What the agent never sees and the improver is never shown (the verifier, the solution, the container's build files). */
export const WB_LEAK_GLOBS: Record<WbSubset, readonly string[]> = {
  office: ["tests/**", "environment/**"],
  web: ["tests/**", "environment/**"],
  code: ["tests/**", "solution/**", "environment/**"],
};

export type WbTask = {
  /** The task folder's name. */
  id: string;
  subset: WbSubset;
  domain: string;
  dir: string;
  /** The task's own `[agent] timeout_sec`, when it declares one. */
  agentTimeoutS: number | null;
};

export type WbProblem = { path: string; problem: string };

/** A subset's folder (and archive) name: `wb-bench-<subset>-v1.0`. */
export function subsetDir(subset: WbSubset): string {
  return `wb-bench-${subset}-v1.0`;
}

/** `<root>/datasets/wb-bench-<subset>-v1.0/tasks`. */
export function tasksDirOf(root: string, subset: WbSubset): string {
  return join(root, "datasets", subsetDir(subset), "tasks");
}

/** One task folder as a task, or the reason it cannot be one. */
export function readWbTask(dir: string, id: string, subset: WbSubset): WbTask | WbProblem {
  const rel = `${subset}/${id}`;
  const toml = join(dir, TASK_TOML);
  if (!isRegularFile(toml)) return { path: rel, problem: `has no ${TASK_TOML}` };
  let parsed: unknown;
  try {
    parsed = Bun.TOML.parse(readFileSync(toml, "utf8"));
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    return { path: `${rel}/${TASK_TOML}`, problem: `is not valid TOML (${why})` };
  }
  const meta = (parsed as { metadata?: unknown }).metadata;
  const key = DOMAIN_KEY[subset];
  const domain =
    meta !== null && typeof meta === "object" ? (meta as Record<string, unknown>)[key] : undefined;
  if (typeof domain !== "string" || domain.trim() === "") {
    return {
      path: `${rel}/${TASK_TOML}`,
      problem: `has no [metadata] ${key} (a non-empty string naming the task's domain)`,
    };
  }
  const instruction = join(dir, INSTRUCTION_FILE);
  if (!isRegularFile(instruction)) return { path: rel, problem: `has no ${INSTRUCTION_FILE}` };
  if (readFileSync(instruction, "utf8").trim() === "") {
    return { path: `${rel}/${INSTRUCTION_FILE}`, problem: "is empty" };
  }
  const agent = (parsed as { agent?: { timeout_sec?: unknown } }).agent;
  const t = agent !== null && typeof agent === "object" ? agent.timeout_sec : undefined;
  const agentTimeoutS = typeof t === "number" && Number.isFinite(t) && t > 0 ? t : null;
  return { id, subset, domain: domain.trim(), dir, agentTimeoutS };
}

/** Every task of one subset in folder-name order, and the folders that cannot be tasks. */
export function discoverSubset(
  root: string,
  subset: WbSubset,
): { tasks: WbTask[]; problems: WbProblem[] } {
  const base = tasksDirOf(root, subset);
  const tasks: WbTask[] = [];
  const problems: WbProblem[] = [];
  if (!dirExists(base)) return { tasks, problems };
  for (const name of subdirectories(base).sort()) {
    const got = readWbTask(join(base, name), name, subset);
    if ("problem" in got) problems.push(got);
    else tasks.push(got);
  }
  return { tasks, problems };
}

function fingerprint(root: string): { counts: Record<string, number>; hash: string } {
  const h = createHash("sha256");
  const counts: Record<string, number> = {};
  for (const subset of WB_SUBSETS) {
    const { tasks } = discoverSubset(root, subset);
    counts[subset] = tasks.length;
    for (const t of tasks) h.update(`${subset}/${t.id}\0${t.domain}\n`);
  }
  return { counts, hash: h.digest("hex") };
}

export const WB_INSTALL: Installation = {
  bench: WB_BENCH,
  title: "WorkBuddy-Bench",
  checkout: WB_CHECKOUT,
  manifestFile: WB_MANIFEST,
  fingerprint,
};

/** The installed checkout, checked against its manifest (see readInstalled). */
export function installedWorkBuddy(deps: string): Manifest {
  return readInstalled(WB_INSTALL, deps);
}

/** The licence file the benchmark asks its users to read, when the checkout has one. */
export function licenceFile(root: string): string | null {
  for (const name of ["LICENSE", "LICENSE.md", "LICENSE.txt", "License.txt"]) {
    if (isRegularFile(join(root, name))) return join(root, name);
  }
  return null;
}

/** The notice setup and check print: the benchmark is under its own licence, with limits. */
export function licenceNotice(root: string): string {
  const file = licenceFile(root);
  return `WorkBuddy-Bench comes under Tencent's own licence, which limits where and how it may be used (it has a territorial restriction): read ${file ?? `the licence in ${root}`} before you run it`;
}
