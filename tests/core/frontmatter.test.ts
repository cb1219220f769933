import { describe, expect, test } from "bun:test";
import { parseFrontmatter, scalarField } from "../../src/core/frontmatter.ts";

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

  test("an empty description followed by the closing line stays empty (spec/01 §10.1)", () => {
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
