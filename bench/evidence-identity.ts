// Is the evidence every improver session sees byte-identical between two versions of harness2?
// (issue 36: the evidence may be written differently, never changed.) Runs `harness2 demo` once
// with each program at each k into fresh folders, reads every stage's evidence folder from that
// run's store (stages.evidence_dir, what the session was handed) and finds the selector's and
// reflector's folders, hashes each as a tree (every folder and file by relative path, each file's
// bytes) and prints, per stage, both hashes and whether they agree; also the files and folders
// each run left under its runs folder. A stage whose hashes differ, or that one run has and the
// other not, makes the bench exit 1.
//   node_modules/.bin/bun bench/evidence-identity.ts --before <git rev> [--k 2,8]
//   node_modules/.bin/bun bench/evidence-identity.ts --before-dir <checkout> [--k 2,8]

import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { hashDirectory } from "../src/core/lib/fingerprint.ts";
import { census, load, machine } from "./stats.ts";

const ROOT = join(import.meta.dir, "..");
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const KS = (arg("--k") ?? "2,8").split(",").map((x) => Number.parseInt(x, 10));
if (KS.some((k) => !Number.isInteger(k) || k < 1)) {
  console.error("--k takes whole numbers from 1, comma-separated (e.g. --k 2,8)");
  process.exit(2);
}

/** The earlier program: a checkout given as is, or a worktree of a revision made here. */
function beforeProgram(): { dir: string; label: string; cleanup: () => void } {
  const dir = arg("--before-dir");
  if (dir !== undefined) {
    if (!existsSync(join(dir, "src/cli/main.ts"))) {
      console.error(`--before-dir ${dir} holds no src/cli/main.ts: give a harness2 checkout`);
      process.exit(2);
    }
    return { dir, label: dir, cleanup: () => {} };
  }
  const rev = arg("--before");
  if (rev === undefined) {
    console.error("say what to compare with: --before <git rev> or --before-dir <checkout>");
    process.exit(2);
  }
  const wt = mkdtempSync(join(tmpdir(), "h2-bench-before-"));
  const add = Bun.spawnSync(["git", "-C", ROOT, "worktree", "add", "-q", "--detach", wt, rev]);
  if (add.exitCode !== 0) {
    console.error(`git worktree add ${rev} failed: ${add.stderr.toString().trim()}`);
    process.exit(2);
  }
  symlinkSync(join(ROOT, "node_modules"), join(wt, "node_modules"));
  const sha = Bun.spawnSync(["git", "-C", wt, "rev-parse", "--short", "HEAD"]).stdout.toString();
  return {
    dir: wt,
    label: `${rev} (${sha.trim()})`,
    cleanup: () => {
      Bun.spawnSync(["git", "-C", ROOT, "worktree", "remove", "--force", wt]);
      rmSync(wt, { recursive: true, force: true });
    },
  };
}

/**
 * A tree's hash: every folder and file under `dir` by sorted relative path, files with bytes
 * (core/lib/fingerprint.ts's hashDirectory leaves out folders and __pycache__, which a session
 * sees too);
 * `later` names files at its top that are written after the session ran (left out).
 */
function treeHash(dir: string, later: readonly string[] = []): string {
  const h = createHash("sha256");
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (d === dir && later.includes(name)) continue;
      const p = join(d, name);
      const rel = relative(dir, p);
      const st = statSync(p);
      if (st.isDirectory()) {
        h.update(`d ${rel}\0`);
        walk(p);
      } else {
        const bytes = readFileSync(p);
        h.update(`f ${rel} ${bytes.length}\0`);
        h.update(bytes);
      }
    }
  };
  walk(dir);
  return h.digest("hex").slice(0, 16);
}

/** Every `<parent>/<name>` folder under `root` whose parent is named one of `parents`. */
function folders(root: string, parents: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = join(d, e.name);
      if (parents.includes(e.name)) {
        for (const f of readdirSync(p, { withFileTypes: true })) {
          if (f.isDirectory()) out.push(join(p, f.name));
        }
      } else walk(p);
    }
  };
  walk(root);
  return out.sort();
}

type Run = { hashes: Map<string, string>; files: number; dirs: number };

function demo(program: string, k: number): Run {
  const runs = mkdtempSync(join(tmpdir(), "h2-bench-evid-"));
  try {
    const r = Bun.spawnSync(
      [
        process.execPath,
        join(program, "src/cli/main.ts"),
        "demo",
        "--no-tui",
        "--runs",
        runs,
        "--k",
        String(k),
      ],
      { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" },
    );
    if (r.exitCode !== 0) {
      console.error(`${program}: demo failed (${r.exitCode}): ${r.stderr.toString().slice(-800)}`);
      process.exit(1);
    }
    const db = new Database(join(runs, "harness2.db"), { readonly: true });
    const rows = db
      .query(
        "SELECT t.task AS task, s.mode AS mode, s.label AS label, s.evidence_dir AS dir FROM stages s JOIN tasks t ON t.id = s.task_id WHERE t.k = ?",
      )
      .all(k) as { task: string; mode: string; label: string; dir: string }[];
    db.close();
    const hashes = new Map<string, string>();
    for (const row of rows) {
      hashes.set(
        `${row.task} ${row.mode} ${row.label}`,
        row.dir && existsSync(row.dir) ? treeHash(row.dir) : "(none)",
      );
    }
    // The reflector's and the selector's evidence: the folders the method lays out for them
    // (an older version handed the reflector a `.experience` copy; edits.md and selection.json
    // are written after the session).
    for (const folder of folders(runs, ["reflection", "selection"])) {
      const key = relative(runs, folder);
      if (key.endsWith(".experience")) continue;
      const copy = `${folder}.experience`;
      hashes.set(
        key,
        existsSync(copy) ? treeHash(copy) : treeHash(folder, ["edits.md", "selection.json"]),
      );
    }
    return { hashes, ...census(runs) };
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
}

const before = beforeProgram();
let differ = 0;
try {
  const inputs = async (dir: string) =>
    (await hashDirectory(join(dir, "fixtures", "demo"), { algorithm: "sha256" })).slice(0, 16);
  console.log(machine());
  console.log(
    `before: ${before.label}, fixtures/demo sha256/16 ${await inputs(before.dir)}; ` +
      `after: this checkout, ${await inputs(ROOT)}`,
  );
  for (const k of KS) {
    const a = demo(before.dir, k);
    const b = demo(ROOT, k);
    const keys = [...new Set([...a.hashes.keys(), ...b.hashes.keys()])].sort();
    let same = 0;
    for (const key of keys) {
      const x = a.hashes.get(key) ?? "(missing)";
      const y = b.hashes.get(key) ?? "(missing)";
      const ok = x === y && x !== "(none)";
      if (ok) same++;
      else differ++;
      console.log(`k=${k}  ${key.padEnd(34)} ${x}  ${y}  ${ok ? "same" : "DIFFERENT"}`);
    }
    console.log(
      `k=${k}: ${same} of ${keys.length} stages saw byte-identical evidence; runs folder: ` +
        `before ${a.files} files, ${a.dirs} folders; after ${b.files} files, ${b.dirs} folders; ` +
        `load ${load()}`,
    );
  }
} finally {
  before.cleanup();
}
process.exit(differ === 0 ? 0 : 1);
