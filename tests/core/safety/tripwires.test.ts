// Tripwires: fnmatch-style leak globs (dot globs kept), verdict markers by name and by streamed
// content, authored trees, symlinks — each trip throws a TripwireError and emits one event.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import {
  assertNoLeakPaths,
  assertTreeHasNoLeakPaths,
  InvalidLeakGlobError,
  leakFilter,
  leakMatcher,
  normalizeLeakGlob,
} from "../../../src/core/safety/leak-globs.ts";
import { type TripwireContext, TripwireError } from "../../../src/core/safety/tripwire.ts";
import {
  assertContextClean,
  assertMissionClean,
  assertNoGraderVerdicts,
  assertTreeHasNoGraderVerdicts,
  scanSuffix,
} from "../../../src/core/safety/tripwires.ts";

let dir: string;
let sink: RecordingSink;
let ctx: TripwireContext;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "h2-trip-"));
  sink = new RecordingSink();
  ctx = {
    sink,
    sweep: "sw1",
    task: "t1",
    domain: "acct",
    mode: "seq",
    stage: "inv2",
    clock: { now: () => 42 },
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(rel: string, body: string | Uint8Array): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), body);
}

function caught(fn: () => unknown): TripwireError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TripwireError) return err;
    throw err;
  }
  throw new Error("expected a TripwireError, nothing was thrown");
}

describe("leak globs", () => {
  test("`*` crosses `/` and a glob matches at the top level and at any depth", () => {
    const m = leakMatcher(["tests/**", "RUBRICS.json", "*.key"]);
    expect(m("tests/a/b.py")).toBe("tests/**");
    expect(m("deep/er/tests/x.py")).toBe("tests/**");
    expect(m("RUBRICS.json")).toBe("RUBRICS.json");
    expect(m("x/RUBRICS.json")).toBe("RUBRICS.json");
    expect(m("XRUBRICS.json")).toBeNull();
    expect(m("a/b/c.key")).toBe("*.key");
    expect(m("tests")).toBeNull();
    expect(m("contests/x.py")).toBeNull();
  });

  test("a leading dot is kept: `.env` protects `.env` at any depth and not `env`", () => {
    expect(normalizeLeakGlob(".env")).toBe(".env");
    expect(normalizeLeakGlob("./task.json")).toBe("task.json");
    expect(normalizeLeakGlob("/.secrets/**")).toBe(".secrets/**");
    expect(normalizeLeakGlob(".\\a\\b")).toBe("a/b");
    const keep = leakFilter([".env", ".secrets/**"]);
    expect(keep(".env")).toBe(false);
    expect(keep("cfg/.env")).toBe(false);
    expect(keep(".secrets/token")).toBe(false);
    expect(keep("env")).toBe(true);
    expect(keep("secrets/token")).toBe(true);
  });

  test("`?`, classes and negated classes follow fnmatch; regex characters are literal", () => {
    const m = leakMatcher(["a?c", "[!x]y.txt", "[]]z", "v(1)+.md"]);
    expect(m("abc")).toBe("a?c");
    expect(m("ac")).toBeNull();
    expect(m("qy.txt")).toBe("[!x]y.txt");
    expect(m("xy.txt")).toBeNull();
    expect(m("]z")).toBe("[]]z");
    expect(m("v(1)+.md")).toBe("v(1)+.md");
    expect(m("v11.md")).toBeNull();
  });

  test("an empty glob list matches nothing; an impossible glob is refused by name", () => {
    expect(leakMatcher([])("anything")).toBeNull();
    expect(() => leakMatcher(["[z-a]"])).toThrow(InvalidLeakGlobError);
  });

  test("assertNoLeakPaths throws a typed error and emits tripwire.fired", () => {
    put("ok.csv", "1,2\n");
    put("sub/reference_answer.txt", "42");
    const err = caught(() => assertNoLeakPaths(dir, ["reference_answer.txt"], ctx));
    expect(err.kind).toBe("leak_path");
    expect(err.path).toBe("sub/reference_answer.txt");
    expect(err.marker).toBe("reference_answer.txt");
    expect(err.stage).toBe("inv2");
    const [ev] = sink.ofType("tripwire.fired");
    expect(sink.events).toHaveLength(1);
    expect(ev).toMatchObject({
      kind: "leak_path",
      path: "sub/reference_answer.txt",
      stage: "inv2",
      task: "t1",
      mode: "seq",
      ts: 42,
      sweep: "sw1",
    });
    expect(ev?.message).toContain("sub/reference_answer.txt");
  });

  test("a clean tree passes and emits nothing", () => {
    put("a.md", "fine");
    assertNoLeakPaths(dir, ["tests/**"], ctx);
    assertNoLeakPaths(join(dir, "missing"), ["tests/**"], ctx);
    expect(sink.events).toHaveLength(0);
  });

  test("authored-tree paths are checked too", () => {
    const err = caught(() =>
      assertTreeHasNoLeakPaths({ "scripts/x.py": "", "tests/t.py": "" }, ["tests/**"], ctx),
    );
    expect(err.path).toBe("tests/t.py");
  });
});

describe("grader-verdict tripwire", () => {
  test("a marker in a file NAME trips, whatever the suffix", () => {
    put("out/deterministic_eval_result.png", new Uint8Array([1, 2, 3]));
    const err = caught(() => assertNoGraderVerdicts(dir, ctx));
    expect(err.kind).toBe("grader_verdict");
    expect(err.path).toBe("out/deterministic_eval_result.png");
    expect(err.marker).toBe("deterministic_eval_result");
    expect(err.offset).toBeUndefined();
    expect(sink.ofType("tripwire.fired")[0]?.kind).toBe("grader_verdict");
  });

  test("content of a .ts plugin is scanned, with byte offset and context", () => {
    const body = `${"é".repeat(10)}export const x = {"pass_rate": 1};\n`;
    put("plugin/p.ts", body);
    const err = caught(() => assertNoGraderVerdicts(dir, ctx));
    expect(err.path).toBe("plugin/p.ts");
    expect(err.marker).toBe('"pass_rate"');
    expect(err.offset).toBe(Buffer.from(body).indexOf('"pass_rate"'));
    expect(err.offset).toBe(20 + "export const x = {".length);
    expect(JSON.parse(err.context as string)).toBe(body);
    expect(err.message).toContain("plugin/p.ts");
  });

  test("no message quotes the marker or the text around it, so a copied message never trips again", () => {
    put("notes/a.md", `before ${'"passed_count"'} after\n`);
    put("out/deterministic_eval_summary.txt", "x");
    const byContent = caught(() => assertNoGraderVerdicts(join(dir, "notes"), ctx));
    const byName = caught(() => assertNoGraderVerdicts(join(dir, "out"), ctx));
    const authored = caught(() =>
      assertTreeHasNoGraderVerdicts({ "skills/s/SKILL.md": `x "pass_rate" y` }, ctx),
    );
    for (const err of [byContent, byName, authored]) {
      for (const m of ['"passed_count"', "deterministic_eval_summary", '"pass_rate"']) {
        expect(err.message).not.toContain(m);
      }
      // The message itself, written into a stage error or the next stage's decisions, is clean.
      expect(() =>
        assertTreeHasNoGraderVerdicts({ "decisions.md": err.message }, ctx),
      ).not.toThrow();
    }
    expect(byContent.message).toContain("a.md");
    expect(byContent.message).toContain('the JSON key "p·assed_count"');
    expect(byContent.message).toContain(`at byte ${"before ".length}`);
    expect(byContent.message).not.toContain("after");
    expect(byName.message).toContain('"d·eterministic_eval_summary" in its NAME');
    expect(authored.message).toContain("skills/s/SKILL.md");
    expect(authored.message).toContain("at character 2");
    // What the store keeps still names the marker exactly (the store is no model context).
    expect(sink.ofType("tripwire.fired").map((e) => e.marker)).toContain('"passed_count"');
  });

  test("every file whose first bytes read as text is scanned, whatever its name; binary files are not", () => {
    const names = ["a.tsx", "b.jsx", "c.css", ".env", "Makefile", "results.jsonl", "log.ndjson"];
    names.push("doc.rst", "paper.tex", "q.sql", "setup.cfg", "nb.ipynb", "chart.png");
    for (const rel of names) {
      const d = mkdtempSync(join(dir, "s-"));
      writeFileSync(join(d, rel), `{"task": 1, "passed_count": 3}\n`);
      const err = caught(() => assertNoGraderVerdicts(d, ctx));
      expect([rel, err.marker]).toEqual([rel, '"passed_count"']);
    }
    // A real binary (a NUL in its first bytes) is not read as text, wherever the string sits in it.
    const d = mkdtempSync(join(dir, "b-"));
    writeFileSync(
      join(d, "chart.png"),
      Buffer.concat([Buffer.from([0x89, 0x50, 0, 0]), Buffer.from('"pass_rate"')]),
    );
    writeFileSync(join(d, "blob.bin"), Buffer.from([0xff, 0xfe, 0xfd, 0x80, 0x81]));
    assertNoGraderVerdicts(d, ctx);
    expect(scanSuffix("x/.env")).toBe("");
    expect(scanSuffix("A.TS")).toBe(".ts");
  });

  test("prose without the JSON quotes does not trip", () => {
    put("notes.md", "the pass_rate was low and passed_count went up");
    assertNoGraderVerdicts(dir, ctx);
    expect(sink.events).toHaveLength(0);
  });

  test("a marker straddling a 4 MiB chunk boundary is found at its exact offset", () => {
    const at = (1 << 22) - 5;
    const buf = Buffer.alloc(at + 100, "a");
    buf.write('"test_pass_rate"', at);
    put("big.log", buf);
    const err = caught(() => assertNoGraderVerdicts(dir, ctx));
    expect(err.offset).toBe(at);
    expect(err.marker).toBe('"test_pass_rate"');
  });

  test("the earliest marker in a chunk is the one reported", () => {
    put("r.json", '{"passed_count": 3, "pass_rate": 1}');
    expect(caught(() => assertNoGraderVerdicts(dir, ctx)).marker).toBe('"passed_count"');
  });

  test("authored trees trip with kind authored_tree and an author-facing message", () => {
    const err = caught(() =>
      assertTreeHasNoGraderVerdicts({ "EXPERIENCE.md": '"pass_rate": 1', "a.md": "" }, ctx),
    );
    expect(err.kind).toBe("authored_tree");
    expect(err.path).toBe("EXPERIENCE.md");
    expect(err.offset).toBe(0);
    expect(err.message).toContain("remove or rename");
    expect(err.message.toLowerCase()).not.toContain("grader");
    const named = caught(() =>
      assertTreeHasNoGraderVerdicts({ "judge_scope_and_deterministic_status.md": "" }, ctx),
    );
    expect(named.message).toContain("rename it");
    expect(named.message).not.toContain("judge_scope_and_deterministic_status");
    const bytes = caught(() =>
      assertTreeHasNoGraderVerdicts(
        { "plugin/x.ts": new TextEncoder().encode("// Judge findings on the rendered result") },
        ctx,
      ),
    );
    expect(bytes.marker).toBe("Judge findings on the rendered result");
    expect(sink.ofType("tripwire.fired").map((e) => e.kind)).toEqual([
      "authored_tree",
      "authored_tree",
      "authored_tree",
    ]);
    // Text is scanned whatever the name; a real binary (a NUL in its first bytes) is not.
    expect(() => assertTreeHasNoGraderVerdicts({ "notes.png": '"pass_rate"' }, ctx)).toThrow(
      TripwireError,
    );
    const png = new Uint8Array([0x89, 0x50, 0, 0, ...new TextEncoder().encode('"pass_rate"')]);
    assertTreeHasNoGraderVerdicts({ "systemprompt.md": "be careful", "img.png": png }, ctx);
  });
});

describe("missions", () => {
  test("a mission carrying a marker is refused before it is sent, naming where it came from", () => {
    assertMissionClean("Reconcile the ledger. Read context/ first.", ctx);
    const err = caught(() =>
      assertMissionClean('# WORK\nReport each "test_pass_rate" you compute.\n', ctx),
    );
    expect([err.kind, err.path, err.offset]).toEqual(["grader_verdict", "MISSION.md", 19]);
    expect(err.message).toContain("the inv2 mission holds the verdict marker");
    expect(err.message).toContain("prompts.toml");
    expect(err.message).not.toContain('"test_pass_rate"');
    expect(sink.ofType("tripwire.fired")[0]).toMatchObject({
      kind: "grader_verdict",
      stage: "inv2",
    });
  });
});

describe("symlinks and the whole-tree check", () => {
  test("a symlink inside model context trips with kind symlink", () => {
    const outside = mkdtempSync(join(tmpdir(), "h2-out-"));
    try {
      writeFileSync(join(outside, "secret.txt"), "x");
      put("a.md", "fine");
      symlinkSync(outside, join(dir, "escape"));
      const err = caught(() => assertContextClean(dir, [], ctx));
      expect(err.kind).toBe("symlink");
      expect(err.path).toBe("escape");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test("assertContextClean runs leak globs before verdicts and returns the files", () => {
    put("b/RUBRICS.json", '{"pass_rate": 1}');
    expect(caught(() => assertContextClean(dir, ["RUBRICS.json"], ctx)).kind).toBe("leak_path");
    rmSync(join(dir, "b"), { recursive: true });
    put("a.md", "ok");
    expect(assertContextClean(dir, ["RUBRICS.json"], ctx)).toEqual(["a.md"]);
  });
});
