// Encodes ARCHITECTURE.md §3 (dependency direction) by scanning every import in the tree.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

function sources(dir: string): string[] {
  const out: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(join(ROOT, dir));
  } catch {
    return out;
  }
  for (const name of entries) {
    const rel = join(dir, name);
    const st = statSync(join(ROOT, rel));
    if (st.isDirectory()) out.push(...sources(rel));
    else if (/\.(ts|tsx)$/.test(name)) out.push(rel);
  }
  return out;
}

const IMPORT_RE =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^"'`;]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

type Edge = { from: string; to: string; typeOnly: boolean; spec: string };

function importsOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const edges: Edge[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = (m[2] ?? m[3]) as string;
    const typeOnly = Boolean(m[1]);
    const to = spec.startsWith(".") ? relative(ROOT, resolve(ROOT, dirname(file), spec)) : spec;
    edges.push({ from: file, to, typeOnly, spec });
  }
  return edges;
}

const all = ["src", "store", "tui"].flatMap(sources).flatMap(importsOf);
const under = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);

describe("dependency direction (ARCHITECTURE §3)", () => {
  test("the scan sees the codebase", () => {
    expect(all.length).toBeGreaterThan(0);
  });

  test("src/core imports nothing outside src/core but npm packages and node/bun builtins", () => {
    const bad = all.filter(
      (e) =>
        under(e.from, "src/core") &&
        ((e.spec.startsWith(".") && !under(e.to, "src/core")) ||
          ["ink", "react", "ink-spinner", "ink-testing-library"].includes(e.spec)),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("nothing but cli/ and judge/ itself imports src/judge", () => {
    const bad = all.filter(
      (e) => under(e.to, "src/judge") && !under(e.from, "src/judge") && !under(e.from, "src/cli"),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("channels, substrate and benchmarks never import cli, store, tui or judge", () => {
    const bad = all.filter(
      (e) =>
        ["src/channels", "src/substrate", "src/benchmarks"].some((d) => under(e.from, d)) &&
        ["src/cli", "store", "tui", "src/judge"].some((d) => under(e.to, d)),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("store/ and tui/ see core only through type imports, and never channels/substrate/benchmarks", () => {
    const bad = all.filter(
      (e) =>
        (under(e.from, "store") || under(e.from, "tui")) &&
        ((under(e.to, "src") && !under(e.to, "src/core")) ||
          (under(e.to, "src/core") && !e.typeOnly && !isEventsModule(e.to))),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("store/ never imports tui/, and only cli/ imports tui/", () => {
    const bad = all.filter(
      (e) =>
        (under(e.from, "store") && under(e.to, "tui")) ||
        (under(e.to, "tui") && !under(e.from, "tui") && !under(e.from, "src/cli")),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });
});

/** The event registry is values (zod schemas) that store/tui validate against: allowed as a value import. */
function isEventsModule(p: string): boolean {
  return /^src\/core\/events(\.ts|\/|$)/.test(p);
}
