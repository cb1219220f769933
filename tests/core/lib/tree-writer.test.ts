// TreeWriter (src/core/lib/tree-writer.ts): the fast way of writing many files into one root keeps
// every rule of safe-fs — nothing written through a symlink or a shared file, no escape through a
// symlinked folder or `..` — and links only what it may.

import { describe, expect, test } from "bun:test";
import { linkSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PathEscapeError } from "../../../src/core/lib/safe-fs.ts";
import { TreeWriter } from "../../../src/core/lib/tree-writer.ts";
import { testTempDir } from "../../helpers/temp.ts";

const base = testTempDir("h2-tree-writer-");
let n = 0;
function fresh(): { root: string; outside: string } {
  n++;
  const root = join(base, `root${n}`);
  const outside = join(base, `outside${n}`);
  mkdirSync(root, { recursive: true });
  mkdirSync(outside, { recursive: true });
  return { root, outside };
}

describe("TreeWriter", () => {
  test("writes nested files, making their folders, and the bytes are what was given", () => {
    const { root } = fresh();
    const w = new TreeWriter(root);
    w.write("a/b/c.md", "one\n");
    w.write("a/b/d.md", new TextEncoder().encode("two\n"));
    w.write("top.md", "");
    expect(readFileSync(join(root, "a/b/c.md"), "utf8")).toBe("one\n");
    expect(readFileSync(join(root, "a/b/d.md"), "utf8")).toBe("two\n");
    expect(readFileSync(join(root, "top.md"), "utf8")).toBe("");
  });

  test("a path with `..`, an absolute path or the root itself is refused", () => {
    const { root } = fresh();
    const w = new TreeWriter(root);
    for (const rel of ["../x", "a/../../x", "/etc/x", "", "."]) {
      expect(() => w.write(rel, "x")).toThrow(PathEscapeError);
    }
  });

  test("a folder that is a symlink leading outside is refused; nothing lands outside", () => {
    const { root, outside } = fresh();
    symlinkSync(outside, join(root, "sub"));
    const w = new TreeWriter(root);
    expect(() => w.write("sub/x.md", "leak")).toThrow(PathEscapeError);
    expect(() => w.link(root, "sub/y.md", "leak")).toThrow(PathEscapeError);
    expect(() => readFileSync(join(outside, "x.md"))).toThrow();
  });

  test("a symlink or a shared file at the path is replaced, never written through", () => {
    const { root, outside } = fresh();
    const target = join(outside, "target.md");
    writeFileSync(target, "outside\n");
    symlinkSync(target, join(root, "a.md"));
    const shared = join(outside, "shared.md");
    writeFileSync(shared, "shared\n");
    linkSync(shared, join(root, "b.md"));
    const w = new TreeWriter(root);
    w.write("a.md", "inside\n");
    w.write("b.md", "inside too\n");
    expect(lstatSync(join(root, "a.md")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(root, "a.md"), "utf8")).toBe("inside\n");
    expect(readFileSync(target, "utf8")).toBe("outside\n");
    expect(readFileSync(join(root, "b.md"), "utf8")).toBe("inside too\n");
    expect(readFileSync(shared, "utf8")).toBe("shared\n");
  });

  test("link: a same-size regular file is linked, another is written, a file in the way is replaced", () => {
    const { root, outside } = fresh();
    mkdirSync(join(outside, "s"), { recursive: true });
    writeFileSync(join(outside, "s/same.md"), "same\n");
    writeFileSync(join(outside, "s/changed.md"), "longer than given\n");
    mkdirSync(join(root, "s"));
    writeFileSync(join(root, "s/same.md"), "in the way\n");
    const w = new TreeWriter(root);
    w.link(outside, "s/same.md", "same\n");
    w.link(outside, "s/changed.md", "given\n");
    w.link(outside, "s/missing.md", "made\n");
    expect(lstatSync(join(root, "s/same.md")).ino).toBe(lstatSync(join(outside, "s/same.md")).ino);
    expect(readFileSync(join(root, "s/changed.md"), "utf8")).toBe("given\n");
    expect(lstatSync(join(root, "s/changed.md")).nlink).toBe(1);
    expect(readFileSync(join(outside, "s/changed.md"), "utf8")).toBe("longer than given\n");
    expect(readFileSync(join(root, "s/missing.md"), "utf8")).toBe("made\n");
  });
});
