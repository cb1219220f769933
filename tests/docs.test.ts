// The documents stay true (issue 32): the README fits about a screen's worth of sections, every
// relative link in it and in docs/ resolves (to a file, and to a heading when it names one), the
// command reference is what the registry generates, the configuration reference names every
// setting, and the README's command table names every command.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { EXIT, EXIT_FOR_KIND } from "../src/cli/exit-codes.ts";
import { commandReference } from "../src/cli/help/reference.ts";
import { COMMANDS } from "../src/cli/registry.ts";
import { SETTINGS } from "../src/core/run/config-file.ts";

const ROOT = resolve(import.meta.dir, "..");
const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");

function markdownFiles(): string[] {
  const out = ["README.md", "bench/README.md", "fixtures/tasks/README.md"];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".md")) out.push(join(dir, e.name));
    }
  };
  walk("docs");
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

describe("the documents", () => {
  test("the README is under 15 KB", () => {
    expect(Buffer.byteLength(read("README.md"))).toBeLessThan(15 * 1024);
  });

  test("every relative link resolves, to a heading when it names one", () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = read(file);
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] as string;
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const abs = path === "" ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), path);
        if (!existsSync(abs)) {
          broken.push(`${file}: ${target}`);
          continue;
        }
        if (anchor !== undefined && abs.endsWith(".md")) {
          const headings = readFileSync(abs, "utf8")
            .split("\n")
            .filter((l) => /^#{1,6} /.test(l))
            .map((l) => slug(l.replace(/^#+ /, "")));
          if (!headings.includes(anchor)) broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test("the command reference is what the registry generates (bun run docs writes it)", async () => {
    expect(read("docs/guide/commands.md")).toBe(await commandReference());
  });

  test("the configuration reference names every setting, and only settings", () => {
    const text = read("docs/guide/configuration.md");
    const missing = SETTINGS.filter((v) => !text.includes(`\`${v}\``));
    expect(missing).toEqual([]);
    const named = [...new Set(text.match(/`HARNESS2_[A-Z0-9_]+`/g) ?? [])].map((v) =>
      v.slice(1, -1),
    );
    expect(named.filter((v) => !SETTINGS.includes(v))).toEqual([]);
  });

  test("the README's command table names every command", () => {
    const table = read("README.md").split("## Commands")[1]?.split("## Exit codes")[0] ?? "";
    const missing = COMMANDS.map((c) => c.name).filter(
      (n) =>
        !table.includes(`\`${n}`) && !table.includes(` \`${n}\``) && !table.includes(`· \`${n}`),
    );
    expect(missing).toEqual([]);
  });

  test("the README's exit codes are the CLI's, each once, and every error kind has one", () => {
    const table = read("README.md").split("## Exit codes")[1]?.split("\n## ")[0] ?? "";
    const rows = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
    for (const code of Object.values(EXIT_FOR_KIND)) expect(rows).toContain(code);
  });
});
