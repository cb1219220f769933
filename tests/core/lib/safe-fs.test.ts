import { afterEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  comparePathSegments,
  copyTreeSafe,
  linkOrWriteSafe,
  PathEscapeError,
  readFileBytes,
  relSegments,
  SymlinkRefusedError,
  safeJoin,
  sortPaths,
  walkFiles,
  writeFileSafe,
} from "../../../src/core/lib/safe-fs.ts";
import { movePlainTree, ownedTempDir, removeTreeSoon } from "../../../src/core/lib/temp-dirs.ts";

const made: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "h2-safefs-"));
  made.push(d);
  return d;
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function put(root: string, rel: string, text: string): void {
  const p = join(root, rel);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
}

describe("relSegments", () => {
  test("collapses empty and '.' segments and treats backslashes as separators", () => {
    expect(relSegments("a//b/./c")).toEqual(["a", "b", "c"]);
    expect(relSegments("a\\b\\c.md")).toEqual(["a", "b", "c.md"]);
    expect(relSegments("./a/")).toEqual(["a"]);
  });

  test.each([
    ["../x", "'..'"],
    ["a/../../x", "'..'"],
    ["a\\..\\x", "'..'"],
    ["/etc/passwd", "absolute"],
    ["\\etc\\passwd", "absolute"],
    ["C:/x", "drive"],
    ["a\0b", "NUL"],
  ])("refuses %p", (rel, why) => {
    expect(() => relSegments(rel)).toThrow(PathEscapeError);
    expect(() => relSegments(rel)).toThrow(why);
  });
});

describe("path ordering", () => {
  test("sorts by segments like Python's Path, not by plain string order", () => {
    expect(sortPaths(["a.b", "a-b/x", "a/b"])).toEqual(["a/b", "a-b/x", "a.b"]);
    expect(["a/b", "a-b/x"].sort()).toEqual(["a-b/x", "a/b"]); // the plain order differs
  });

  test("orders astral characters after every BMP character (code point order)", () => {
    expect(comparePathSegments("\u{1F600}", "\uFFFF")).toBeGreaterThan(0);
    expect(comparePathSegments("a", "a/b")).toBeLessThan(0);
  });
});

describe("safeJoin", () => {
  test("joins a plain relative path under the root", () => {
    const root = tmp();
    expect(safeJoin(root, "x/y.md")).toBe(join(root, "x", "y.md"));
  });

  test("refuses '..', absolute paths and the root itself", () => {
    const root = tmp();
    expect(() => safeJoin(root, "../x")).toThrow(PathEscapeError);
    expect(() => safeJoin(root, "/tmp/x")).toThrow(PathEscapeError);
    expect(() => safeJoin(root, "./")).toThrow(PathEscapeError);
  });

  test("refuses a path whose parent is a symlink leading outside the root", () => {
    const root = tmp();
    const outside = tmp();
    symlinkSync(outside, join(root, "link"));
    expect(() => safeJoin(root, "link/x.md")).toThrow(PathEscapeError);
    expect(() => safeJoin(root, "link/deeper/x.md")).toThrow(PathEscapeError);
  });

  test("checks every level below the root, while the root itself may be reached through a link", () => {
    const root = tmp();
    const outside = tmp();
    mkdirSync(join(root, "a", "b"), { recursive: true });
    symlinkSync(outside, join(root, "a", "b", "link"));
    expect(() => safeJoin(root, "a/b/link/x.md")).toThrow(PathEscapeError);
    expect(() => safeJoin(root, "a/b/link/new/x.md")).toThrow(PathEscapeError);
    writeFileSync(join(root, "a", "file"), "x");
    expect(safeJoin(root, "a/file/x.md")).toBe(join(root, "a", "file", "x.md"));
    const alias = join(tmp(), "alias-root");
    symlinkSync(root, alias);
    expect(safeJoin(alias, "a/b/new/x.md")).toBe(join(alias, "a", "b", "new", "x.md"));
    expect(() => safeJoin(alias, "a/b/link/x.md")).toThrow(PathEscapeError);
  });

  test("allows a parent symlink that stays inside the root", () => {
    const root = tmp();
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "alias"));
    expect(safeJoin(root, "alias/x.md")).toBe(join(root, "alias", "x.md"));
  });
});

describe("walkFiles", () => {
  test("lists regular files sorted by segments and reports symlinks without following them", () => {
    const root = tmp();
    const outside = tmp();
    put(outside, "secret.txt", "s");
    put(root, "a.b", "1");
    put(root, "a/b", "2");
    put(root, "a-b/x", "3");
    put(root, "__pycache__/c.pyc", "4");
    symlinkSync(outside, join(root, "dirlink"));
    symlinkSync(join(outside, "secret.txt"), join(root, "filelink"));
    const links: string[] = [];
    const files = walkFiles(root, {
      skipDirs: new Set(["__pycache__"]),
      onSymlink: (r) => links.push(r),
    });
    expect(files).toEqual(["a/b", "a-b/x", "a.b"]);
    expect(links.sort()).toEqual(["dirlink", "filelink"]);
  });

  test("a missing root has no files", () => {
    expect(walkFiles(join(tmp(), "nope"))).toEqual([]);
  });
});

describe("readFileBytes / writeFileSafe", () => {
  test("round-trips bytes and refuses a symlink at the path", () => {
    const root = tmp();
    const outside = tmp();
    const bytes = new Uint8Array([0, 255, 10, 128]);
    writeFileSafe(root, "d/e/f.bin", bytes);
    expect(readFileBytes(root, "d/e/f.bin")).toEqual(bytes);
    put(outside, "secret.txt", "top secret");
    symlinkSync(join(outside, "secret.txt"), join(root, "leak.txt"));
    expect(() => readFileBytes(root, "leak.txt")).toThrow(SymlinkRefusedError);
  });

  test("replaces a symlink at the target instead of writing through it", () => {
    const root = tmp();
    const outside = tmp();
    put(outside, "victim.txt", "original");
    symlinkSync(join(outside, "victim.txt"), join(root, "x.txt"));
    writeFileSafe(root, "x.txt", "new");
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original");
    expect(readFileSync(join(root, "x.txt"), "utf8")).toBe("new");
  });

  test("truncates a longer file, and replaces a dangling link without creating its target", () => {
    const root = tmp();
    const outside = tmp();
    writeFileSafe(root, "f.txt", "a much longer first version");
    writeFileSafe(root, "f.txt", "short");
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("short");
    symlinkSync(join(outside, "planted.txt"), join(root, "dangling.txt"));
    writeFileSafe(root, "dangling.txt", "mine");
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    expect(readFileSync(join(root, "dangling.txt"), "utf8")).toBe("mine");
  });

  test("replaces a file shared by hard link instead of writing through it", () => {
    const root = tmp();
    const other = tmp();
    put(other, "candidate.md", "the candidate's text\n");
    linkSync(join(other, "candidate.md"), join(root, "evidence.md"));
    writeFileSafe(root, "evidence.md", "an edit of the evidence\n");
    expect(readFileSync(join(other, "candidate.md"), "utf8")).toBe("the candidate's text\n");
    expect(readFileSync(join(root, "evidence.md"), "utf8")).toBe("an edit of the evidence\n");
    expect(statSync(join(root, "evidence.md")).nlink).toBe(1);
    // the same bytes again leave the shared file alone: still shared, not rewritten
    linkSync(join(other, "candidate.md"), join(root, "same.md"));
    writeFileSafe(root, "same.md", "the candidate's text\n");
    expect(statSync(join(root, "same.md")).ino).toBe(statSync(join(other, "candidate.md")).ino);
  });

  test("leaves a file that already holds the bytes untouched, and rewrites one of equal size", () => {
    const root = tmp();
    writeFileSafe(root, "f.txt", "abc");
    const before = statSync(join(root, "f.txt"));
    utimesSync(join(root, "f.txt"), 1_000, 1_000);
    writeFileSafe(root, "f.txt", "abc");
    const after = statSync(join(root, "f.txt"));
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(1_000_000);
    writeFileSafe(root, "f.txt", "xyz");
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("xyz");
    writeFileSafe(root, "f.txt", new Uint8Array(0));
    expect(readFileSync(join(root, "f.txt"))).toHaveLength(0);
  });

  test("replaces a FIFO at the path instead of writing into it (or blocking on it)", () => {
    const root = tmp();
    execFileSync("mkfifo", [join(root, "pipe")]);
    writeFileSafe(root, "pipe", "x".repeat(100_000));
    expect(lstatSync(join(root, "pipe")).isFile()).toBe(true);
    expect(readFileSync(join(root, "pipe"), "utf8")).toHaveLength(100_000);
  });

  test("refuses to write through a symlinked directory leading outside", () => {
    const root = tmp();
    const outside = tmp();
    symlinkSync(outside, join(root, "out"));
    expect(() => writeFileSafe(root, "out/x.txt", "no")).toThrow(PathEscapeError);
    expect(existsSync(join(outside, "x.txt"))).toBe(false);
  });
});

describe("copyTreeSafe", () => {
  test("copies regular files, skips and reports symlinks, never reaches outside", () => {
    const src = tmp();
    const dst = join(tmp(), "copy");
    const outside = tmp();
    put(outside, "secret.txt", "top secret");
    put(src, "a.txt", "aa");
    put(src, "sub/b.txt", "bbb");
    symlinkSync(outside, join(src, "sub", "escape"));
    symlinkSync(join(outside, "secret.txt"), join(src, "leak.txt"));
    const r = copyTreeSafe(src, dst);
    expect(r.files).toBe(2);
    expect(r.bytes).toBe(5);
    expect(r.skippedSymlinks.sort()).toEqual(["leak.txt", "sub/escape"]);
    expect(walkFiles(dst)).toEqual(["a.txt", "sub/b.txt"]);
    expect(existsSync(join(dst, "leak.txt"))).toBe(false);
    expect(existsSync(join(dst, "sub", "escape"))).toBe(false);
  });

  test("applies the filter to relative paths", () => {
    const src = tmp();
    const dst = tmp();
    put(src, "keep/x.md", "1");
    put(src, "drop/y.md", "2");
    const r = copyTreeSafe(src, dst, { filter: (rel) => rel.startsWith("keep/") });
    expect(r.files).toBe(1);
    expect(walkFiles(dst)).toEqual(["keep/x.md"]);
  });

  test("overwrites a file already in the destination and replaces a file symlink there", () => {
    const src = tmp();
    const dst = tmp();
    const outside = tmp();
    put(src, "a.txt", "new a");
    put(src, "b.txt", "new b");
    put(dst, "a.txt", "an older, longer a");
    put(outside, "victim.txt", "original");
    symlinkSync(join(outside, "victim.txt"), join(dst, "b.txt"));
    expect(copyTreeSafe(src, dst).bytes).toBe(10);
    expect(readFileSync(join(dst, "a.txt"), "utf8")).toBe("new a");
    expect(readFileSync(join(dst, "b.txt"), "utf8")).toBe("new b");
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original");
  });

  test("link: shares each file's inode, and an entry already at the destination is replaced, never written through", () => {
    const src = tmp();
    const dst = tmp();
    const outside = tmp();
    put(src, "a.txt", "aa");
    put(src, "sub/b.txt", "bbb");
    put(outside, "victim.txt", "original");
    symlinkSync(join(outside, "victim.txt"), join(dst, "a.txt")); // linking fails here: copied
    symlinkSync(outside, join(src, "sub", "escape"));
    const r = copyTreeSafe(src, dst, { link: true });
    expect(r.files).toBe(2);
    expect(r.bytes).toBe(5);
    expect(r.skippedSymlinks).toEqual(["sub/escape"]);
    expect(statSync(join(dst, "sub/b.txt")).ino).toBe(statSync(join(src, "sub/b.txt")).ino);
    expect(lstatSync(join(dst, "a.txt")).isFile()).toBe(true);
    expect(readFileSync(join(dst, "a.txt"), "utf8")).toBe("aa");
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original");
  });

  test("never writes through a symlink already in the destination", () => {
    const src = tmp();
    const dst = tmp();
    const outside = tmp();
    put(src, "sub/x.txt", "payload");
    symlinkSync(outside, join(dst, "sub"));
    expect(() => copyTreeSafe(src, dst)).toThrow(PathEscapeError);
    expect(existsSync(join(outside, "x.txt"))).toBe(false);
  });
});

describe("removeTreeSoon", () => {
  const parkedFor = (name: string) =>
    readdirSync(tmpdir()).filter(
      (n) => n.startsWith(`harness2-removing-${process.pid}-`) && n.endsWith(`-${name}`),
    );

  test("the tree is gone at once and deleted in the background, never following a symlink", async () => {
    const root = tmp();
    const outside = tmp();
    put(outside, "keep.txt", "mine");
    const ws = join(root, "workspace");
    for (let i = 0; i < 20; i++) put(ws, `d${i}/e/f.txt`, "x");
    symlinkSync(outside, join(ws, "escape"));
    const done = removeTreeSoon(ws);
    expect(existsSync(ws)).toBe(false);
    await done;
    expect(parkedFor("workspace")).toEqual([]);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("mine");
  });

  test("an explicit process.exit() finishes the pending deletions before the process ends", async () => {
    const ws = join(tmp(), "exiting");
    for (let i = 0; i < 40; i++) put(ws, `d${i}/e/f.txt`, "x");
    const safeFs = join(import.meta.dir, "../../../src/core/lib/temp-dirs.ts");
    const script = `const { removeTreeSoon } = await import(${JSON.stringify(safeFs)});
removeTreeSoon(${JSON.stringify(ws)});
process.exit(0);`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "pipe" });
    expect(await child.exited).toBe(0);
    expect(existsSync(ws)).toBe(false);
    const left = readdirSync(tmpdir()).filter((n) =>
      n.startsWith(`harness2-removing-${child.pid}-`),
    );
    expect(left).toEqual([]);
  });

  test("ownedTempDir names a folder by kind and pid", () => {
    const dir = ownedTempDir("prop", tmp());
    expect(basename(dir)).toMatch(new RegExp(`^harness2-prop-${process.pid}-.{6}$`));
    expect(statSync(dir).isDirectory()).toBe(true);
  });

  test("a process's first removal also deletes trees parked by processes that are gone", async () => {
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    const alive = Bun.spawn(["sleep", "30"]);
    try {
      const orphan = join(tmpdir(), `harness2-removing-${dead.pid}-1-orphan`);
      const held = join(tmpdir(), `harness2-removing-${alive.pid}-1-held`);
      // A session workspace of a process killed mid-session (SIGKILL runs no clean-up) goes too.
      const workspace = join(tmpdir(), `harness2-prop-${dead.pid}-AbCdEf`);
      const heldWorkspace = join(tmpdir(), `harness2-prop-${alive.pid}-AbCdEf`);
      for (const dir of [orphan, held, workspace, heldWorkspace]) put(dir, "a/b.txt", "x");
      const ws = join(tmp(), "mine");
      put(ws, "f.txt", "x");
      const safeFs = join(import.meta.dir, "../../../src/core/lib/temp-dirs.ts");
      const script = `const { removeTreeSoon } = await import(${JSON.stringify(safeFs)});
await removeTreeSoon(${JSON.stringify(ws)});
await Bun.sleep(200);`;
      const child = Bun.spawn([process.execPath, "-e", script], {
        stdout: "ignore",
        stderr: "pipe",
      });
      expect(await child.exited).toBe(0);
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(workspace)).toBe(false);
      expect(existsSync(held)).toBe(true);
      expect(existsSync(heldWorkspace)).toBe(true);
      rmSync(held, { recursive: true, force: true });
      rmSync(heldWorkspace, { recursive: true, force: true });
    } finally {
      alive.kill("SIGKILL");
    }
  });

  test("a missing tree is a no-op", async () => {
    await removeTreeSoon(join(tmp(), "never-made"));
    expect(parkedFor("never-made")).toEqual([]);
  });
});

describe("linkOrWriteSafe", () => {
  test("an immutable source file is shared by hard link; anything else is written", () => {
    const src = tmp();
    const dst = tmp();
    put(src, "a/x.md", "same\n");
    put(src, "b.md", "other size\n");
    symlinkSync(join(src, "a", "x.md"), join(src, "link.md"));
    linkOrWriteSafe(src, dst, "a/x.md", "same\n");
    expect(statSync(join(dst, "a", "x.md")).ino).toBe(statSync(join(src, "a", "x.md")).ino);
    // a source of another size (the caller's text differs) is not linked but written
    linkOrWriteSafe(src, dst, "b.md", "new");
    expect(readFileSync(join(dst, "b.md"), "utf8")).toBe("new");
    expect(statSync(join(dst, "b.md")).ino).not.toBe(statSync(join(src, "b.md")).ino);
    // a symlinked source is never linked to, and a missing one is written
    linkOrWriteSafe(src, dst, "link.md", "same\n");
    expect(statSync(join(dst, "link.md")).nlink).toBe(1);
    linkOrWriteSafe(src, dst, "none.md", "fresh");
    expect(readFileSync(join(dst, "none.md"), "utf8")).toBe("fresh");
    // a symlink at the destination is replaced, never written through
    symlinkSync(join(src, "b.md"), join(dst, "c.md"));
    put(src, "c.md", "same\n");
    linkOrWriteSafe(src, dst, "c.md", "same\n");
    expect(readFileSync(join(src, "b.md"), "utf8")).toBe("other size\n");
    expect(statSync(join(dst, "c.md")).ino).toBe(statSync(join(src, "c.md")).ino);
  });
});

describe("movePlainTree", () => {
  const SKIP = new Set(["__pycache__"]);

  test("moves a tree of plain files and folders in one rename", () => {
    const from = join(tmp(), "work");
    put(from, "a.md", "a");
    put(from, "scripts/x.py", "print(1)\n");
    mkdirSync(join(from, "empty"));
    const to = join(tmp(), "harvest");
    const ino = statSync(join(from, "scripts", "x.py")).ino;
    expect(movePlainTree(from, to, SKIP)).toBe(true);
    expect(existsSync(from)).toBe(false);
    expect(walkFiles(to)).toEqual(["a.md", "scripts/x.py"]);
    expect(statSync(join(to, "scripts", "x.py")).ino).toBe(ino);
    expect(existsSync(join(to, "empty"))).toBe(true);
  });

  test("moves nothing when a copy would differ: a symlink, a skipped folder, a shared file", () => {
    const cases: [string, (dir: string) => void][] = [
      ["symlink", (dir) => symlinkSync("/etc/hostname", join(dir, "sub", "link"))],
      ["skipped dir", (dir) => put(dir, "sub/__pycache__/x.pyc", "b")],
      ["hard link", (dir) => linkSync(join(dir, "a.md"), join(tmp(), "elsewhere.md"))],
    ];
    for (const [what, plant] of cases) {
      const from = join(tmp(), "work");
      put(from, "a.md", "a");
      put(from, "sub/b.md", "b");
      plant(from);
      const to = join(tmp(), "harvest");
      expect([what, movePlainTree(from, to, SKIP)]).toEqual([what, false]);
      expect([what, existsSync(to), existsSync(join(from, "a.md"))]).toEqual([what, false, true]);
    }
  });

  test("a rename that fails (no such parent) moves nothing", () => {
    const from = join(tmp(), "work");
    put(from, "a.md", "a");
    expect(movePlainTree(from, join(tmp(), "missing", "harvest"), SKIP)).toBe(false);
    expect(readFileSync(join(from, "a.md"), "utf8")).toBe("a");
  });
});
