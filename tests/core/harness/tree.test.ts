import { afterEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import {
  alwaysOnText,
  autotrigger,
  diffSummary,
  diversity,
  isAllowed,
  isTree,
  mentionsName,
  normalizeRel,
  readTree,
  skillNames,
  subagentNames,
  type Tree,
  TreeKeyError,
  TreeSymlinkError,
  writeTree,
} from "../../../src/core/harness/tree.ts";
import { PathEscapeError, walkFiles } from "../../../src/core/lib/safe-fs.ts";
import { CODEX_SURFACE } from "../../../src/substrate/codex/surface.ts";
import { OPENCODE_SURFACE } from "../../../src/substrate/opencode/surface.ts";

const OC = OPENCODE_SURFACE;
const CX = CODEX_SURFACE;

const made: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "h2-tree-"));
  made.push(d);
  return d;
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function put(root: string, rel: string, data: string | Uint8Array): void {
  const p = join(root, rel);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, data);
}

describe("normalizeRel", () => {
  test("trims, turns backslashes into slashes, strips ./ and collapses // and /./ (docs/differences.md H11)", () => {
    expect(normalizeRel("  ./skills/x/SKILL.md ")).toBe("skills/x/SKILL.md");
    expect(normalizeRel("skills\\x\\SKILL.md")).toBe("skills/x/SKILL.md");
    expect(normalizeRel("skills//x/./SKILL.md/")).toBe("skills/x/SKILL.md");
  });

  test.each(["../guardrails.md", "skills/../../x", "/etc/passwd", "..\\x", "\\abs"])(
    "refuses the escaping path %p",
    (rel) => {
      expect(() => normalizeRel(rel)).toThrow(PathEscapeError);
    },
  );
});

describe("isAllowed", () => {
  const oc: [string, boolean][] = [
    ["systemprompt.md", true],
    ["tool_descriptions/tool_guidance.md", true],
    ["skills/csv-clean/SKILL.md", true],
    ["skills/csv-clean/scripts/Run-It.sh", true],
    ["skills/csv-clean/scripts/deep/x.py", false],
    ["skills/CSV/SKILL.md", false],
    ["sub_agents/reviewer/AGENT.md", true],
    ["scripts/check_totals.py", true],
    ["scripts/Check.py", false],
    ["scripts/check-totals.py", false],
    ["scripts/sub/x.py", false],
    ["plugin/guard.ts", true],
    ["plugin/guard.js", false],
    ["skills/README.md", false],
    ["harness.yaml", false],
    ["AGENTS.md", false],
    [".codex/hooks.json", false],
    ["skills//csv/SKILL.md", true],
    ["../systemprompt.md", false],
  ];
  test.each(oc)("opencode: %p → %p", (rel, ok) => {
    expect(isAllowed(OC, rel)).toBe(ok);
  });

  const cx: [string, boolean][] = [
    ["AGENTS.md", true],
    [".agents/skills/csv/SKILL.md", true],
    [".agents/skills/csv/scripts/a.py", true],
    ["xagents/skills/csv/SKILL.md", false],
    ["skills/csv/SKILL.md", false],
    [".codex/hooks.json", true],
    [".codex/README.md", false],
    ["plugin/guard.ts", false],
    ["systemprompt.md", false],
    ["scripts/a.py", true],
    ["sub_agents/r/AGENT.md", true],
  ];
  test.each(cx)("codex: %p → %p", (rel, ok) => {
    expect(isAllowed(CX, rel)).toBe(ok);
  });
});

describe("names and always-on text", () => {
  const tree: Tree = {
    "skills/b/SKILL.md": "",
    "skills/a/SKILL.md": "",
    "skills/a/scripts/x.py": "",
    "sub_agents/z/AGENT.md": "",
    "sub_agents/y/AGENT.md": "",
    "guardrails.md": "rules",
  };
  test("skill and sub-agent names are sorted and unique", () => {
    expect(skillNames(OC, tree)).toEqual(["a", "b"]);
    expect(subagentNames(OC, tree)).toEqual(["y", "z"]);
  });

  test("always-on text joins in surface order with blank lines; separators count", () => {
    expect(alwaysOnText(OC, {})).toBe("\n\n\n\n\n\n");
    expect(alwaysOnText(OC, tree)).toBe("\n\nrules\n\n\n\n");
    expect(alwaysOnText(CX, { "AGENTS.md": "x" })).toBe("x");
  });

  test("mentionsName matches whole words only (docs/differences.md H2)", () => {
    expect(mentionsName("load the `data` skill", "data")).toBe(true);
    expect(mentionsName("read .agents/skills/data/SKILL.md", "data")).toBe(true);
    expect(mentionsName("use the database", "data")).toBe(false);
    expect(mentionsName("big-data tools", "data")).toBe(false);
    expect(mentionsName("metadata, then data.", "data")).toBe(true);
    expect(mentionsName("a banana", "a")).toBe(true);
    expect(mentionsName("banana", "a")).toBe(false);
  });
});

describe("readTree", () => {
  test("a missing directory is an empty tree", () => {
    expect(readTree(OC, join(tmp(), "absent"))).toEqual({});
  });

  test("keeps on-surface files, skips stubs silently, reports other off-surface files", () => {
    const dir = tmp();
    put(dir, "systemprompt.md", "hello");
    put(dir, "skills/README.md", "stub");
    put(dir, "harness.yaml", "x: 1");
    put(dir, "skills/a/SKILL.md", "---\nname: a\n---\n");
    put(dir, "scripts/__pycache__/x.cpython-311.pyc", new Uint8Array([1, 2]));
    put(dir, "notes/todo.md", "x");
    const rejected: string[] = [];
    const tree = readTree(OC, dir, rejected);
    expect(Object.keys(tree)).toEqual(["skills/a/SKILL.md", "systemprompt.md"]);
    expect(rejected).toEqual(["harness.yaml", "notes/todo.md"]);
  });

  test("reads hidden directories on the codex surface", () => {
    const dir = tmp();
    put(dir, "AGENTS.md", "a");
    put(dir, ".agents/skills/s/SKILL.md", "s");
    put(dir, ".codex/hooks.json", "{}");
    put(dir, ".codex/README.md", "stub");
    expect(Object.keys(readTree(CX, dir))).toEqual([
      ".agents/skills/s/SKILL.md",
      ".codex/hooks.json",
      "AGENTS.md",
    ]);
  });

  test("keeps non-UTF-8 files as exact bytes and text (with a BOM) as strings", () => {
    const dir = tmp();
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);
    put(dir, "skills/a/scripts/logo.png", bytes);
    put(dir, "guardrails.md", "\uFEFFrules ✓");
    const tree = readTree(OC, dir);
    expect(tree["skills/a/scripts/logo.png"]).toEqual(bytes);
    expect(tree["guardrails.md"]).toBe("\uFEFFrules ✓");
  });

  test("refuses a symlink inside the tree, naming it, and never reads through it", () => {
    const dir = tmp();
    const outside = tmp();
    put(outside, "secret.md", "top secret");
    put(dir, "systemprompt.md", "x");
    symlinkSync(join(outside, "secret.md"), join(dir, "guardrails.md"));
    let err: unknown;
    try {
      readTree(OC, dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TreeSymlinkError);
    expect((err as TreeSymlinkError).path).toBe("guardrails.md");
    expect((err as Error).message).toContain("guardrails.md");
    expect((err as Error).message).not.toContain("top secret");
  });

  test("refuses a symlinked directory too", () => {
    const dir = tmp();
    const outside = tmp();
    put(outside, "SKILL.md", "x");
    mkdirSync(join(dir, "skills"));
    symlinkSync(outside, join(dir, "skills", "leak"));
    expect(() => readTree(OC, dir)).toThrow(TreeSymlinkError);
  });
});

describe("isTree", () => {
  test("needs an always-on file as a regular file", () => {
    const dir = tmp();
    expect(isTree(OC, dir)).toBe(false);
    expect(isTree(OC, join(dir, "nope"))).toBe(false);
    put(dir, "skills/a/SKILL.md", "x");
    expect(isTree(OC, dir)).toBe(false);
    put(dir, "LongTermMEMORY.md", "");
    expect(isTree(OC, dir)).toBe(true);
    expect(isTree(CX, dir)).toBe(false);
  });
});

describe("writeTree", () => {
  test("writes the tree, empty always-on files and the stubs", () => {
    const dest = join(tmp(), "h");
    writeTree(OC, { "guardrails.md": "be careful\n", "scripts/a.py": "x = 1\n" }, dest);
    expect(walkFiles(dest)).toEqual([
      "LongTermMEMORY.md",
      "guardrails.md",
      "plugin/README.md",
      "scripts/README.md",
      "scripts/a.py",
      "skills/README.md",
      "sub_agents/README.md",
      "systemprompt.md",
      "tool_descriptions/tool_guidance.md",
    ]);
    expect(readFileSync(join(dest, "systemprompt.md"), "utf8")).toBe("");
    const stub = OC.stubs.find((s) => s.path === "skills/README.md");
    expect(readFileSync(join(dest, "skills/README.md"), "utf8")).toBe(stub?.body ?? "missing");
  });

  test("without stubs writes none", () => {
    const dest = tmp();
    writeTree(CX, { "AGENTS.md": "x" }, dest, { stubs: false });
    expect(walkFiles(dest)).toEqual(["AGENTS.md"]);
  });

  test("removes stale on-surface files and the directories it emptied, keeps off-surface files", () => {
    const dest = tmp();
    writeTree(
      OC,
      {
        "skills/old/SKILL.md": "---\nname: old\n---\n",
        "skills/old/scripts/helper.py": "",
        "sub_agents/r/AGENT.md": "x",
      },
      dest,
      { stubs: false },
    );
    put(dest, "harness.yaml", "keep: me\n");
    put(dest, "skills/old/notes.txt", "off-surface, kept");
    writeTree(OC, { "guardrails.md": "new" }, dest, { stubs: false });
    expect(walkFiles(dest)).toEqual([
      "LongTermMEMORY.md",
      "guardrails.md",
      "harness.yaml",
      "skills/old/notes.txt",
      "systemprompt.md",
      "tool_descriptions/tool_guidance.md",
    ]);
    expect(existsSync(join(dest, "sub_agents"))).toBe(false); // emptied, so removed (docs/differences.md H10)
    expect(existsSync(join(dest, "skills/old/scripts"))).toBe(false);
    expect(readFileSync(join(dest, "harness.yaml"), "utf8")).toBe("keep: me\n");
  });

  test("replaces an edited stub with the surface's own text", () => {
    const dest = tmp();
    put(dest, "scripts/README.md", "stale words");
    writeTree(OC, {}, dest);
    const stub = OC.stubs.find((s) => s.path === "scripts/README.md");
    expect(readFileSync(join(dest, "scripts/README.md"), "utf8")).toBe(stub?.body ?? "missing");
  });

  test("refuses keys off the surface before touching the disk (docs/differences.md H10)", () => {
    const dest = tmp();
    put(dest, "guardrails.md", "untouched");
    expect(() => writeTree(OC, { "harness.yaml": "x", "guardrails.md": "y" }, dest)).toThrow(
      TreeKeyError,
    );
    expect(readFileSync(join(dest, "guardrails.md"), "utf8")).toBe("untouched");
  });

  test.each(["../escape.md", "/tmp/abs.md", "..\\skills\\x\\SKILL.md", "skills/../../x.md"])(
    "refuses the escaping key %p",
    (key) => {
      const dest = join(tmp(), "h");
      expect(() => writeTree(OC, { [key]: "x" }, dest)).toThrow(PathEscapeError);
    },
  );

  test("normalises keys written with backslashes or doubled slashes", () => {
    const dest = tmp();
    writeTree(OC, { "skills\\a\\SKILL.md": "s", "scripts//b.py": "b" }, dest, { stubs: false });
    expect(readTree(OC, dest)["skills/a/SKILL.md"]).toBe("s");
    expect(readTree(OC, dest)["scripts/b.py"]).toBe("b");
  });

  test("two keys naming one file are refused", () => {
    expect(() => writeTree(OC, { "scripts/a.py": "1", "./scripts/a.py": "2" }, tmp())).toThrow(
      TreeKeyError,
    );
  });

  test("never writes through a symlinked directory in the destination", () => {
    const dest = tmp();
    const outside = tmp();
    symlinkSync(outside, join(dest, "skills"));
    expect(() => writeTree(OC, { "skills/a/SKILL.md": "x" }, dest, { stubs: false })).toThrow(
      PathEscapeError,
    );
    expect(walkFiles(outside)).toEqual([]);
  });

  test("replaces an on-surface symlink in the destination without touching its target", () => {
    const dest = tmp();
    const outside = tmp();
    put(outside, "victim.md", "original");
    symlinkSync(join(outside, "victim.md"), join(dest, "guardrails.md"));
    writeTree(OC, { "guardrails.md": "mine" }, dest, { stubs: false });
    expect(readFileSync(join(outside, "victim.md"), "utf8")).toBe("original");
    expect(readTree(OC, dest)["guardrails.md"]).toBe("mine");
  });
});

describe("writeTree/readTree round trip (property)", () => {
  const segName = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,8}$/);
  const scriptName = fc.stringMatching(/^[a-z0-9_][a-z0-9_]{0,8}$/);
  const fileName = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,8}$/);
  const text = fc.string({ unit: "binary", maxLength: 200 });
  const bytes = fc.uint8Array({ maxLength: 200 });
  const value = fc.oneof(text, bytes);

  function keyArb(surfaceName: "opencode" | "codex") {
    const skillDir = surfaceName === "opencode" ? "skills" : ".agents/skills";
    const fixed = surfaceName === "opencode" ? OC.alwaysOn : CX.alwaysOn;
    const options = [
      fc.constantFrom(...fixed),
      segName.map((n) => `${skillDir}/${n}/SKILL.md`),
      fc.tuple(segName, fileName).map(([n, f]) => `${skillDir}/${n}/scripts/${f}`),
      segName.map((n) => `sub_agents/${n}/AGENT.md`),
      scriptName.map((n) => `scripts/${n}.py`),
    ];
    if (surfaceName === "opencode") options.push(segName.map((n) => `plugin/${n}.ts`));
    else options.push(fc.constant(".codex/hooks.json"));
    return fc.oneof(...options);
  }

  function asBytes(v: string | Uint8Array): Uint8Array {
    return typeof v === "string" ? new TextEncoder().encode(v) : v;
  }

  for (const surface of [OC, CX]) {
    test(`${surface.name}: every on-surface tree comes back byte for byte`, () => {
      const name = surface.name as "opencode" | "codex";
      fc.assert(
        fc.property(
          fc.dictionary(keyArb(name), value, { maxKeys: 8 }),
          fc.boolean(),
          (tree, stubs) => {
            const dest = tmp();
            writeTree(surface, tree, dest, { stubs });
            const rejected: string[] = [];
            const back = readTree(surface, dest, rejected);
            expect(rejected).toEqual([]);
            const expected: Record<string, Uint8Array> = {};
            for (const p of surface.alwaysOn) expected[p] = new Uint8Array();
            for (const [k, v] of Object.entries(tree)) expected[k] = asBytes(v);
            expect(Object.keys(back).sort()).toEqual(Object.keys(expected).sort());
            for (const [k, v] of Object.entries(back)) {
              expect(asBytes(v)).toEqual(expected[k] as Uint8Array);
              // Text stays text; only non-UTF-8 content comes back as bytes.
              if (typeof tree[k] === "string") expect(typeof v).toBe("string");
            }
            // Writing what was read back changes nothing on disk.
            const again = tmp();
            writeTree(surface, back, again, { stubs });
            expect(walkFiles(again)).toEqual(walkFiles(dest));
            rmSync(dest, { recursive: true, force: true });
            rmSync(again, { recursive: true, force: true });
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  test("a second write with a subset leaves exactly the subset", () => {
    fc.assert(
      fc.property(
        fc.dictionary(keyArb("opencode"), text, { minKeys: 1, maxKeys: 8 }),
        fc.nat(),
        (tree, seed) => {
          const dest = tmp();
          writeTree(OC, tree, dest, { stubs: false });
          const keys = Object.keys(tree);
          const keep = keys.filter((_, i) => (seed >> i) & 1);
          const subset: Tree = Object.fromEntries(keep.map((k) => [k, tree[k] as string]));
          writeTree(OC, subset, dest, { stubs: false });
          const back = readTree(OC, dest);
          const extra = Object.keys(back).filter((k) => !(k in subset) && !OC.alwaysOn.includes(k));
          expect(extra).toEqual([]);
          for (const k of keep) expect(back[k]).toBe(subset[k] as string);
          rmSync(dest, { recursive: true, force: true });
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("autotrigger", () => {
  test("adds a trigger line per unnamed skill to the autotrigger file and returns the names", () => {
    const tree: Tree = {
      "guardrails.md": "Rules.\n\n",
      "skills/csv-clean/SKILL.md":
        "---\nname: csv-clean\ndescription: >\n  a CSV needs tidying\n  first...\n---\n",
      "skills/plots/SKILL.md": "---\nname: plots\ndescription: a chart is due.\n---\n",
      "skills/named/SKILL.md": "---\nname: named\ndescription: x\n---\n",
      "systemprompt.md": "Use the `named` skill.",
    };
    expect(autotrigger(OC, tree)).toEqual(["csv-clean", "plots"]);
    expect(tree["guardrails.md"]).toBe(
      "Rules.\n- When a CSV needs tidying first, load the `csv-clean` skill.\n" +
        "- When a chart is due, load the `plots` skill.\n",
    );
    expect(autotrigger(OC, tree)).toEqual([]); // now every skill is named
  });

  test("uses a fallback description and the codex line shape", () => {
    const tree: Tree = { "AGENTS.md": "   ", ".agents/skills/fmt/SKILL.md": "no frontmatter" };
    expect(autotrigger(CX, tree)).toEqual(["fmt"]);
    expect(tree["AGENTS.md"]).toBe(
      "- When the fmt workflow applies, read .agents/skills/fmt/SKILL.md and follow it.\n",
    );
  });

  test("a description containing {name} is not substituted again", () => {
    const tree: Tree = { "skills/x/SKILL.md": "---\ndescription: '{name} appears'\n---\n" };
    autotrigger(OC, tree);
    expect(tree["guardrails.md"]).toBe("- When {name} appears, load the `x` skill.\n");
  });

  test("stays within the cap: fills up to it and skips what would go over", () => {
    const tree: Tree = {
      "skills/aa/SKILL.md": "---\ndescription: d\n---\n",
      "skills/bb/SKILL.md": "---\ndescription: d\n---\n",
    };
    const line = "- When d, load the `aa` skill.\n";
    const base = alwaysOnText(OC, {}).length;
    // Exactly room for one line.
    const cap = base + line.length;
    const copy = structuredClone(tree);
    expect(autotrigger(OC, copy, cap)).toEqual(["aa"]);
    expect(alwaysOnText(OC, copy).length).toBe(cap);
    // One character short: nothing fits, nothing changes.
    const short = structuredClone(tree);
    expect(autotrigger(OC, short, cap - 1)).toEqual([]);
    expect(short["guardrails.md"]).toBeUndefined();
  });
});

describe("diffSummary", () => {
  test("lists added, removed and modified paths (segment order) and the always-on delta", () => {
    const before: Tree = {
      "guardrails.md": "abc",
      "scripts/a.py": "1",
      "skills/x/scripts/b.bin": new Uint8Array([1, 2]),
      "skills/x/SKILL.md": "s",
    };
    const after: Tree = {
      "guardrails.md": "abcdef",
      "skills/x/scripts/b.bin": new Uint8Array([1, 3]),
      "skills/x/SKILL.md": "s",
      "skills/x-y/SKILL.md": "n",
      "skills/x.z/SKILL.md": "n",
      "skills/x/scripts/c.py": "n",
    };
    expect(diffSummary(OC, before, after)).toEqual({
      added: ["skills/x/scripts/c.py", "skills/x-y/SKILL.md", "skills/x.z/SKILL.md"],
      removed: ["scripts/a.py"],
      modified: ["guardrails.md", "skills/x/scripts/b.bin"],
      alwaysOnCharDelta: 3,
    });
  });

  test("identical trees differ in nothing (the kept-base signal)", () => {
    const t: Tree = { "guardrails.md": "x", "skills/a/scripts/p.png": new Uint8Array([9]) };
    const d = diffSummary(OC, t, structuredClone(t));
    expect(d).toEqual({ added: [], removed: [], modified: [], alwaysOnCharDelta: 0 });
  });
});

describe("diversity", () => {
  test("fewer than two trees", () => {
    expect(diversity({})).toEqual({ n: 0, nDistinct: 0, meanLineJaccard: 1 });
    expect(diversity({ a: { x: "1" } })).toEqual({ n: 1, nDistinct: 1, meanLineJaccard: 1 });
  });

  test("mean pairwise line Jaccard over non-blank <rel>:<line> entries, rounded to 4 places", () => {
    const a: Tree = { "guardrails.md": "one\ntwo\n\n  \n" };
    const b: Tree = { "guardrails.md": "one\nthree" };
    const c: Tree = { "guardrails.md": "one\ntwo" };
    // a~b: {one,two} vs {one,three} = 1/3; a~c = 1; b~c = 1/3 → mean 5/9
    expect(diversity({ a, b, c })).toEqual({ n: 3, nDistinct: 3, meanLineJaccard: 0.5556 });
  });

  test("identical content counts once; empty trees are fully similar", () => {
    const t: Tree = { "x.md": "a", "p.png": new Uint8Array([1, 2]) };
    expect(diversity({ a: t, b: structuredClone(t) })).toEqual({
      n: 2,
      nDistinct: 1,
      meanLineJaccard: 1,
    });
    expect(diversity({ a: {}, b: {} }).meanLineJaccard).toBe(1);
    const bin2: Tree = { "x.md": "a", "p.png": new Uint8Array([1, 3]) };
    expect(diversity({ a: t, b: bin2 })).toEqual({ n: 2, nDistinct: 2, meanLineJaccard: 0.3333 });
  });

  test("lines are split like Python's splitlines and not trimmed", () => {
    const a: Tree = { f: "x\r\ny" };
    const b: Tree = { f: "x\ny " };
    expect(diversity({ a, b }).meanLineJaccard).toBe(0.3333);
  });
});
