// writeFileAtomic: the file is replaced whole in one rename, keeps its mode when asked, and a
// failure leaves the old file and no temporary file behind.
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../../../src/core/lib/atomic-write.ts";

const root = mkdtempSync(join(tmpdir(), "h2-atomic-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("writeFileAtomic", () => {
  test("replaces the file, keeps its mode when asked, makes the folder when asked", () => {
    const file = join(root, "run.sh");
    writeFileSync(file, "old\n");
    chmodSync(file, 0o755);
    writeFileAtomic(file, "new\n", { keepMode: true });
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(statSync(file).mode & 0o777).toBe(0o755);
    writeFileAtomic(file, "plain\n");
    expect(statSync(file).mode & 0o777).not.toBe(0o755);
    const deep = join(root, "a", "b", "c.json");
    expect(() => writeFileAtomic(deep, "{}\n")).toThrow();
    writeFileAtomic(deep, "{}\n", { mkdir: true });
    expect(readFileSync(deep, "utf8")).toBe("{}\n");
  });

  test("a rename that fails leaves the old file and no temporary file", () => {
    const dir = join(root, "fails");
    const target = join(dir, "target");
    // A folder in the target's place: the rename cannot replace it.
    writeFileAtomic(join(target, "inside"), "x", { mkdir: true });
    expect(() => writeFileAtomic(target, "new")).toThrow();
    expect(readdirSync(dir)).toEqual(["target"]);
    expect(readFileSync(join(target, "inside"), "utf8")).toBe("x");
  });
});
