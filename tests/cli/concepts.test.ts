// `harness2 help concepts` prints the glossary of docs/method.md (the one place the method's words
// are defined), every row of it, wrapped; the words the interface shows are all defined there.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { formatConcepts, GLOSSARY_FILE, parseGlossary } from "../../src/cli/help/concepts.ts";
import { runCli } from "../helpers/cli.ts";

const concepts = parseGlossary(readFileSync(GLOSSARY_FILE, "utf8"));

describe("harness2 help concepts", () => {
  test("prints every glossary row, each meaning wrapped under its word", async () => {
    const r = await runCli(["help", "concepts"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(formatConcepts(concepts, 100));
    const lines = r.stdout.split("\n");
    for (const c of concepts) expect(lines).toContain(c.word);
    expect(lines.every((l) => l.length <= 100)).toBe(true);
  });

  test("defines the words the live view, runs and show print", () => {
    const words = concepts.map((c) => c.word).join(", ");
    for (const w of [
      "INV",
      "DOM",
      "AGG",
      "COMPOSE",
      "probe",
      "kept base",
      "fallback",
      "bases",
      "phase",
      "R, P",
      "degraded",
      "partial",
      "skipped",
      "interrupted",
      "mode",
    ]) {
      expect(words).toContain(w);
    }
  });

  test("a table cell's escaped pipe stays inside the cell", () => {
    const md = "x\n## Glossary\n\n| word | meaning |\n|---|---|\n| ns | `<a\\|b>` here |\n";
    expect(parseGlossary(md)).toEqual([{ word: "ns", meaning: "<a|b> here" }]);
  });
});
