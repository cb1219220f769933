// The README's "Try it" recipe, run as printed (tests/helpers/readme.ts): the demo, its judge and
// report (+1.000), show's lineage, the export into a new project, and the spending cap stopping a
// priced demo (exit 3) and a higher cap resuming it. A line whose exit or output differs from what
// the README promises fails here, so the README cannot drift from the program.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launcherDir, recipeLines, runLine } from "../helpers/readme.ts";

const root = mkdtempSync(join(tmpdir(), "h2-readme-try-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("README: Try it", () => {
  test("every line exits as the README says, and says what the README says", async () => {
    const lines = recipeLines("Try it");
    expect(lines.map((l) => l.command.split(" ").slice(0, 2).join(" "))).toContain("harness2 demo");
    const bin = launcherDir(root);
    const out: string[] = [];
    for (const line of lines) {
      const r = await runLine(line.command, { cwd: root, bin });
      if (r.code !== line.exit) console.error(line.command, r.stdout, r.stderr);
      expect({ command: line.command, code: r.code }).toEqual({
        command: line.command,
        code: line.exit,
      });
      out.push(r.stdout + r.stderr);
    }
    const all = out.join("\n");
    expect(all).toMatch(/base harness k=2: .* mean 0\.000/);
    expect(all).toContain("+1.000");
    expect(all).toMatch(/lineage {2}base/);
    expect(all).toContain("spending cap $0.05 reached");
    expect(readFileSync(join(root, "my-project", "AGENTS.md"), "utf8")).toContain("harness2");
    expect(existsSync(join(root, "my-project", ".harness2", "lessons.md"))).toBe(true);
  }, 180_000);
});
