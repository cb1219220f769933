import { describe, expect, test } from "bun:test";
import { parseFrontmatter, scalarField } from "../../../src/core/harness/frontmatter.ts";

describe("parseFrontmatter", () => {
  test("reads plain, quoted and block-scalar values", () => {
    const fm = parseFrontmatter(
      '---\nname: "csv-clean"\ndescription: >\n  tidy a CSV\n  before analysis\nmode: subagent\n---\nbody\n',
    );
    expect(fm.kind).toBe("ok");
    expect(scalarField(fm, "name")).toBe("csv-clean");
    expect(scalarField(fm, "description")).toBe("tidy a CSV before analysis");
    expect(scalarField(fm, "mode")).toBe("subagent");
  });

  test("an empty description followed by the closing line stays empty (docs/differences.md H1)", () => {
    const fm = parseFrontmatter("---\nname: x\ndescription:\n---\n# body\n");
    expect(fm.kind).toBe("ok");
    expect(scalarField(fm, "description")).toBeUndefined();
    expect(scalarField(fm, "name")).toBe("x");
  });

  test("only a block at the very top counts (a leading BOM and CRLF are fine)", () => {
    expect(parseFrontmatter("# title\n---\ndescription: late\n---\n").kind).toBe("none");
    const fm = parseFrontmatter("\uFEFF---\r\ndescription: ok\r\n---\r\n");
    expect(scalarField(fm, "description")).toBe("ok");
  });

  test("an unclosed block, bad YAML or a non-mapping is invalid", () => {
    expect(parseFrontmatter("---\ndescription: x\n").kind).toBe("invalid");
    const colon = parseFrontmatter("---\ndescription: use when: a thing\n---\n");
    expect(colon.kind).toBe("invalid");
    if (colon.kind === "invalid") expect(colon.error).toContain("quote");
    expect(parseFrontmatter("---\n- a\n- b\n---\n").kind).toBe("invalid");
  });

  test('a YAML error names the line and a hint that matches it; the ": " hint only for that case', () => {
    const error = (block: string) => {
      const fm = parseFrontmatter(`---\n${block}---\nbody\n`);
      return fm.kind === "invalid" ? fm.error : `not invalid: ${fm.kind}`;
    };
    const unclosed = error("name: [unclosed\ndescription: x\n");
    expect(unclosed).toEndWith(
      ' at line 2 `name: [unclosed`: a value starting with [ or { must be closed, or quoted, e.g. `name: "[unclosed"`',
    );
    expect(unclosed).not.toContain('": "');
    expect(error("name: x\ndescription: {a: 1\n")).toEndWith(
      ' at line 3 `description: {a: 1`: a value starting with [ or { must be closed, or quoted, e.g. `description: "{a: 1"`',
    );
    expect(error("name: x\ndescription: use when: a thing\n")).toEndWith(
      ' at line 3 `description: use when: a thing`: quote values that contain ": "',
    );
    expect(error('name: "never closed\n')).toEndWith(
      'a value starting with " must end with a matching ", with nothing after it',
    );
    expect(error("name: @x\n")).toEndWith(
      'a value cannot start with @ in YAML: quote it, e.g. `name: "@x"`',
    );
    expect(error("name: x\n  extra: y\n")).toContain(" at line 3 `extra: y`: is indented under");
    expect(error("name: x\n\tdescription: y\n")).toEndWith(": indent with spaces, not tabs");
    // A block value's text may hold anything; the bad line after it is the one named.
    expect(error("description: >\n  use when: x [\nname: [a\n")).toContain(" at line 4 `name: [a`");
    for (const e of [unclosed, error("name: x\n  extra: y\n"), error("name: @x\n")]) {
      expect(e).not.toContain('": "');
    }
  });

  test("non-scalar values are not text fields; numbers keep their spelling", () => {
    const fm = parseFrontmatter("---\ndescription:\n  - a\nname: 42\n---\n");
    expect(scalarField(fm, "description")).toBeUndefined();
    expect(scalarField(fm, "name")).toBe("42");
  });

  test("an empty block is an empty mapping", () => {
    const fm = parseFrontmatter("---\n---\n");
    expect(fm).toEqual({ kind: "ok", data: {} });
  });
});
