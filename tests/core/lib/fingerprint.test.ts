// Directory fingerprints: the exact byte format and path-segment order, stability, exclusions,
// symlinks hashed as link text (never followed), and streaming of files larger than memory allows.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  hashDirectory,
  hashFile,
  isFingerprintExcluded,
  RUN_MARK_FILE,
  treeFingerprint,
} from "../../../src/core/lib/fingerprint.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "h2-fp-"));
  made.push(d);
  return d;
}

function put(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
}

/** The documented format, computed independently: rel, NUL, bytes, NUL per file, in this order. */
function expected(entries: [string, string][], algorithm: "sha1" | "sha256" = "sha1"): string {
  const h = createHash(algorithm);
  for (const [rel, body] of entries) h.update(`${rel}\0${body}\0`);
  return h.digest("hex");
}

describe("hashDirectory", () => {
  test("feeds rel path, NUL, bytes, NUL per file, ordered by path segments (a/b < a-b < a.b)", async () => {
    const d = tmp();
    put(d, { "a.b": "3", "a-b": "2", "a/b": "1", "z.txt": "zz" });
    const order: [string, string][] = [
      ["a/b", "1"],
      ["a-b", "2"],
      ["a.b", "3"],
      ["z.txt", "zz"],
    ];
    expect(await hashDirectory(d)).toBe(expected(order));
    expect(await hashDirectory(d, { algorithm: "sha256" })).toBe(expected(order, "sha256"));
    // Plain string order (a-b < a.b < a/b) would give another digest.
    expect(await hashDirectory(d)).not.toBe(expected([order[1]!, order[2]!, order[0]!, order[3]!]));
  });

  test("is stable across copies and changes with content or name", async () => {
    const files = { "systemprompt.md": "be careful\n", "skills/x/SKILL.md": "---\nname: x\n---\n" };
    const a = tmp();
    const b = tmp();
    put(a, files);
    put(b, files);
    const fa = await hashDirectory(a);
    expect(await hashDirectory(b)).toBe(fa);
    expect(await hashDirectory(a)).toBe(fa);
    put(b, { "systemprompt.md": "be careful!\n" });
    expect(await hashDirectory(b)).not.toBe(fa);
    const c = tmp();
    put(c, { "systemprompt2.md": "be careful\n", "skills/x/SKILL.md": "---\nname: x\n---\n" });
    expect(await hashDirectory(c)).not.toBe(fa);
  });

  test("ignores the run mark, its temp files, bytecode, __pycache__ and .DS_Store", async () => {
    const d = tmp();
    put(d, { "scripts/x.py": "print(1)\n" });
    const before = await hashDirectory(d);
    put(d, {
      [RUN_MARK_FILE]: "{}",
      [`${RUN_MARK_FILE}.123.abc.tmp`]: "{",
      "scripts/__pycache__/x.cpython-312.pyc": "\x00",
      "scripts/y.pyc": "\x00",
      ".DS_Store": "x",
      "sub/.DS_Store": "x",
    });
    expect(await hashDirectory(d)).toBe(before);
    expect(isFingerprintExcluded("a/__pycache__/b.txt")).toBe(true);
    expect(isFingerprintExcluded("adapt_complete")).toBe(false);
    expect(isFingerprintExcluded("x.pyc.txt")).toBe(false);
  });

  test("an extra exclusion drops the files it names", async () => {
    const d = tmp();
    put(d, { "keep.md": "k", "drop.md": "d" });
    expect(await hashDirectory(d, { exclude: (rel) => rel === "drop.md" })).toBe(
      expected([["keep.md", "k"]]),
    );
  });

  test("hashes a symlink as its link text and never follows it", async () => {
    const outside = tmp();
    put(outside, { "secret.txt": "v1" });
    const d = tmp();
    put(d, { "a.md": "a" });
    symlinkSync(join(outside, "secret.txt"), join(d, "link"));
    symlinkSync(outside, join(d, "dirlink"));
    const first = await hashDirectory(d);
    expect(first).toBe(
      expected([
        ["a.md", "a"],
        ["dirlink", `<symlink> ${outside}`],
        ["link", `<symlink> ${join(outside, "secret.txt")}`],
      ]),
    );
    put(outside, { "secret.txt": "v2", "more.txt": "m" });
    expect(await hashDirectory(d)).toBe(first);
    rmSync(join(d, "link"));
    symlinkSync(join(outside, "more.txt"), join(d, "link"));
    expect(await hashDirectory(d)).not.toBe(first);
  });

  test("a missing directory hashes as empty", async () => {
    expect(await hashDirectory(join(tmp(), "nope"))).toBe(createHash("sha1").digest("hex"));
  });
});

describe("streaming", () => {
  test("files across chunk boundaries hash exactly as their whole bytes", async () => {
    const d = tmp();
    const body = new Uint8Array((5 << 20) / 2 + 7).map((_, i) => (i * 31 + 7) & 0xff);
    put(d, { "big.bin": body, "small.txt": "s" });
    const h = createHash("sha256");
    h.update("big.bin\0").update(body).update("\0").update("small.txt\0s\0");
    expect(await hashDirectory(d, { algorithm: "sha256" })).toBe(h.digest("hex"));
    expect(await hashFile(join(d, "big.bin"))).toBe(
      createHash("sha256").update(body).digest("hex"),
    );
  });

  test("a file larger than the memory it may use is streamed, not loaded", async () => {
    const d = tmp();
    const size = 384 << 20;
    const fd = openSync(join(d, "huge.bin"), "w");
    writeSync(fd, new Uint8Array([1]), 0, 1, size - 1); // sparse: cheap on disk
    closeSync(fd);
    const want = createHash("sha1").update("huge.bin\0");
    const zeros = new Uint8Array(1 << 20);
    for (let left = size - 1; left > 0; left -= Math.min(left, zeros.length)) {
      want.update(zeros.subarray(0, Math.min(left, zeros.length)));
    }
    want.update(new Uint8Array([1])).update("\0");
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 1);
    const got = await hashDirectory(d);
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(got).toBe(want.digest("hex"));
    // Loading the file would add ≥ 384 MiB; streaming adds about one 1 MiB chunk.
    expect(peak - before).toBeLessThan(128 << 20);
  });

  test("hashFile refuses a missing file with the real error", async () => {
    await expect(hashFile(join(tmp(), "missing"))).rejects.toThrow(/ENOENT/);
  });
});

describe("treeFingerprint", () => {
  test("null is 'base', a non-directory is 'absent', a directory is 16 hex of its SHA-1", async () => {
    expect(await treeFingerprint(null)).toBe("base");
    const d = tmp();
    expect(await treeFingerprint(join(d, "nope"))).toBe("absent");
    put(d, { "f.txt": "x" });
    expect(await treeFingerprint(join(d, "f.txt"))).toBe("absent");
    expect(await treeFingerprint(d)).toBe(expected([["f.txt", "x"]]).slice(0, 16));
  });
});
