// The proposer's audit folder, which is also its reply cache: every improver call's mission,
// system text, response, meta and harvested workspace, named by label and cache key. A failed
// call is never served from it, and nothing is copied into it through a symlink.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeError } from "../lib/errors.ts";
import { copyTreeSafe, dirExists, lstatOrNull } from "../lib/safe-fs.ts";
import { movePlainTree, ownedTempDir } from "../lib/temp-dirs.ts";
import type { Reply } from "../seams/channel.ts";

/** Never carried out of a session's workspace. */
const HARVEST_SKIP: ReadonlySet<string> = new Set(["__pycache__"]);

export class AuditFolder {
  /**
   * `dir` null keeps no audit and serves no cache (a harvest then goes to a fresh temp folder
   * under `tmpRoot`). `channel`, `model` and `effort` are what every entry records.
   */
  constructor(
    readonly dir: string | null,
    private readonly tmpRoot: string | undefined,
    private readonly channel: string,
    private readonly model: string,
    private readonly effort: string,
  ) {}

  cached(label: string, stem: string, needWorkspace: boolean): Reply | null {
    const dir = this.dir;
    if (dir === null) return null;
    const responsePath = join(dir, `${stem}.response.md`);
    const metaPath = join(dir, `${stem}.meta.json`);
    if (!existsSync(responsePath) || !existsSync(metaPath)) return null;
    let meta: { ok?: unknown };
    try {
      meta = JSON.parse(readFileSync(metaPath, "utf8"));
    } catch {
      return null;
    }
    if (meta.ok !== true) return null; // a failed call is never served from cache
    const text = readFileSync(responsePath, "utf8");
    if (text.trim() === "") return null;
    const ws = join(dir, `${stem}.workspace`);
    const hasWorkspace = dirExists(ws);
    if (needWorkspace && !hasWorkspace) return null;
    return {
      label,
      text,
      usd: 0,
      wallS: 0,
      attempts: 0,
      cached: true,
      channel: this.channel,
      model: this.model,
      audit: responsePath,
      workspace: hasWorkspace ? ws : null,
      ...(hasWorkspace ? { skippedLinks: this.skippedLinksOf(stem) } : {}),
    };
  }

  /**
   * Copies `workspace/<sub>` out before the session folder is deleted; null when it did not come
   * back. The stale workspace of an earlier call is removed first, so no cache hit can serve it.
   * `move`: the session ran in this process and is over, so nothing can write the folder any
   * more; a plain folder is then moved out instead of copied (movePlainTree), a copy otherwise.
   */
  harvest(
    workspace: string,
    sub: string,
    stem: string,
    move = false,
  ): { dir: string; skippedLinks: string[] } | null {
    const auditDir = this.dir;
    if (auditDir !== null) {
      rmSync(join(auditDir, `${stem}.workspace`), { recursive: true, force: true });
      rmSync(join(auditDir, `${stem}.links.json`), { force: true });
    }
    const src = realDirInside(workspace, sub);
    if (src === null) return null;
    const base = auditDir ?? ownedTempDir("harvest", this.tmpRoot ?? tmpdir());
    const dest = join(base, `${stem}.workspace`);
    if (move) {
      mkdirSync(base, { recursive: true });
      if (movePlainTree(src, dest, HARVEST_SKIP)) return { dir: dest, skippedLinks: [] };
    }
    // Symlinks inside the folder are skipped, never followed out of the workspace; they are
    // named beside the copy, so a cache hit reports them as the first answer did.
    const { skippedSymlinks } = copyTreeSafe(src, dest, { skipDirs: HARVEST_SKIP });
    if (skippedSymlinks.length > 0) {
      writeFileSync(join(base, `${stem}.links.json`), `${JSON.stringify(skippedSymlinks)}\n`);
    }
    return { dir: dest, skippedLinks: skippedSymlinks };
  }

  /** The links a harvest skipped, as it recorded them beside the copy. */
  private skippedLinksOf(stem: string): string[] {
    if (this.dir === null) return [];
    try {
      const list = JSON.parse(readFileSync(join(this.dir, `${stem}.links.json`), "utf8"));
      return Array.isArray(list) ? list.map(String) : [];
    } catch {
      return [];
    }
  }

  /**
   * Writes the audit, or, when that fails (a full disk, a read-only folder), removes the call's
   * meta file so no half-written entry is ever served from the cache, and returns a note instead.
   */
  tryWrite(
    stem: string,
    mission: string,
    system: string,
    reply: Reply,
    error: string,
  ): { path: string; note: string } {
    try {
      return { path: this.write(stem, mission, system, reply, error), note: "" };
    } catch (err) {
      const dir = this.dir;
      if (dir !== null) {
        try {
          rmSync(join(dir, `${stem}.meta.json`), { force: true });
        } catch {
          // The folder is unusable: there is no entry to serve either.
        }
      }
      return { path: "", note: `audit not written: ${describeError(err)}` };
    }
  }

  dropWorkspace(stem: string): void {
    const dir = this.dir;
    if (dir === null) return;
    try {
      rmSync(join(dir, `${stem}.workspace`), { recursive: true, force: true });
    } catch {
      // Nothing can be served from a folder that cannot be read either.
    }
  }

  write(stem: string, mission: string, system: string, reply: Reply, error: string): string {
    const dir = this.dir;
    if (dir === null) return "";
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${stem}.mission.md`), mission);
    if (system !== "") writeFileSync(join(dir, `${stem}.system.md`), system);
    const responsePath = join(dir, `${stem}.response.md`);
    // Fix: a failure never writes an empty response over an earlier good one.
    if (reply.text !== "") writeFileSync(responsePath, reply.text);
    const meta = {
      label: reply.label,
      ok: reply.text !== "",
      channel: reply.channel,
      model: reply.model,
      effort: this.effort,
      attempts: reply.attempts,
      wall_s: reply.wallS,
      cost_usd: reply.usd,
      error,
    };
    writeFileSync(join(dir, `${stem}.meta.json`), `${JSON.stringify(meta, null, 2)}\n`);
    return responsePath;
  }
}

/**
 * `<workspace>/<sub>` when it and every folder on the way to it are real directories, else null.
 * (docs/differences.md X9) A session could replace the harvested folder (or a parent of it) with a
 * symlink to a folder outside its workspace, and a copy that trusts its root would then carry
 * outside files into the audit folder. A symlink anywhere on the path counts as "did not come back".
 */
function realDirInside(workspace: string, sub: string): string | null {
  let path = workspace;
  for (const part of ["", ...sub.split("/")]) {
    path = part === "" ? path : join(path, part);
    const st = lstatOrNull(path);
    if (!st || st.isSymbolicLink() || !st.isDirectory()) return null;
  }
  return path;
}
