// The pool's unified diff: standard format, minimal edit scripts, and a patch that reproduces the
// candidate exactly (checked against an independent applier and an LCS oracle).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { splitLines, treeDiff, unifiedDiff } from "../../../src/core/harness/diff.ts";

/** Applies a unified diff produced for one file to `before` (independent of the diff's code). */
function applyPatch(before: string, patch: string): string {
  const src = splitLines(before);
  const lines = patch.split("\n");
  const out: string[] = [];
  let at = 0;
  let i = 2; // skip --- / +++
  let lastPushed: "a" | "b" | "both" | null = null;
  while (i < lines.length) {
    const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(lines[i] as string);
    i++;
    if (!h) continue;
    const aStart = Number(h[1]);
    const aLen = h[2] === undefined ? 1 : Number(h[2]);
    const from = aLen === 0 ? aStart : aStart - 1;
    while (at < from) out.push(src[at++] as string);
    while (i < lines.length && !(lines[i] as string).startsWith("@@") && lines[i] !== "") {
      const l = lines[i] as string;
      i++;
      if (l === "\\ No newline at end of file") {
        // the previous emitted line had no newline: undo the one we added
        if (lastPushed !== "a") out[out.length - 1] = (out[out.length - 1] as string).slice(0, -1);
        continue;
      }
      const body = `${l.slice(1)}\n`;
      if (l[0] === " ") {
        out.push(body);
        at++;
        lastPushed = "both";
      } else if (l[0] === "-") {
        at++;
        lastPushed = "a";
      } else {
        out.push(body);
        lastPushed = "b";
      }
    }
  }
  while (at < src.length) out.push(src[at++] as string);
  return out.join("");
}

function lcs(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      dp[i]![j] =
        a[i - 1] === b[j - 1] ? dp[i - 1]![j - 1]! + 1 : Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!);
  return dp[a.length]![b.length]!;
}

describe("unifiedDiff", () => {
  test("standard headers, 3 lines of context and difflib-style ranges", () => {
    const a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
    expect(unifiedDiff(a, b, "current/x.md", "c1/x.md")).toBe(
      "--- current/x.md\n+++ c1/x.md\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    );
  });

  test("identical texts give an empty diff; a new file diffs from -0,0", () => {
    expect(unifiedDiff("a\n", "a\n", "x", "y")).toBe("");
    expect(unifiedDiff("", "a\nb\n", "current/s.py", "c1/s.py")).toBe(
      "--- current/s.py\n+++ c1/s.py\n@@ -0,0 +1,2 @@\n+a\n+b\n",
    );
    expect(unifiedDiff("a\n", "", "x", "y")).toBe("--- x\n+++ y\n@@ -1 +0,0 @@\n-a\n");
  });

  test("a last line without a newline gets the standard marker instead of running on", () => {
    const d = unifiedDiff("a\nb", "a\nc", "x", "y");
    expect(d).toBe(
      "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
    );
  });

  test("changes more than 6 lines apart make two hunks; 6 apart make one", () => {
    const base = Array.from({ length: 30 }, (_, i) => `l${i}\n`);
    const two = [...base];
    two[5] = "X\n";
    two[13] = "Y\n";
    expect(unifiedDiff(base.join(""), two.join(""), "a", "b").match(/^@@/gm)).toHaveLength(2);
    const one = [...base];
    one[5] = "X\n";
    one[12] = "Y\n";
    expect(unifiedDiff(base.join(""), one.join(""), "a", "b").match(/^@@/gm)).toHaveLength(1);
  });

  test("property: the patch reproduces the target and its edits are minimal", () => {
    const text = fc
      .array(fc.constantFrom("a\n", "b\n", "c\n", "d\n", "e"), { maxLength: 25 })
      .map((ls) => ls.join(""));
    fc.assert(
      fc.property(text, text, (a, b) => {
        const d = unifiedDiff(a, b, "x", "y");
        if (a === b) return d === "";
        expect(applyPatch(a, d)).toBe(b);
        const edits = d
          .split("\n")
          .slice(2)
          .filter((l) => (l.startsWith("-") || l.startsWith("+")) && !l.startsWith("@@")).length;
        const la = splitLines(a);
        const lb = splitLines(b);
        expect(edits).toBe(la.length + lb.length - 2 * lcs(la, lb));
        return true;
      }),
      { numRuns: 400 },
    );
  });

  test("a very large rewrite stays bounded and still reproduces the target", () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}\n`).join("");
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}\n`).join("");
    expect(applyPatch(a, unifiedDiff(a, b, "x", "y"))).toBe(b);
  });
});

describe("treeDiff", () => {
  test("sorted union of names, missing side empty, binary files one line", () => {
    const d = treeDiff(
      { "b.md": "same\n", "a.md": "old\n", "img.bin": new Uint8Array([0xff, 0]) },
      { "b.md": "same\n", "c.md": "new\n", "img.bin": new Uint8Array([0xff, 1]) },
      "current",
      "c1",
    );
    expect(d).toBe(
      "--- current/a.md\n+++ c1/a.md\n@@ -1 +0,0 @@\n-old\n" +
        "--- current/c.md\n+++ c1/c.md\n@@ -0,0 +1 @@\n+new\n" +
        "Binary files current/img.bin and c1/img.bin differ\n",
    );
    expect(
      treeDiff({ "x.bin": new Uint8Array([0xff]) }, { "x.bin": new Uint8Array([0xff]) }, "a", "b"),
    ).toBe("");
  });
});
