// The architecture as a test (docs/architecture.md, "Dependency rules"): every import in the tree
// is scanned, and each rule below fails with the offending import named.
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

describe("dependency direction", () => {
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

  test("src/core/lib imports no other folder of core", () => {
    const bad = all.filter(
      (e) =>
        under(e.from, "src/core/lib") &&
        e.spec.startsWith(".") &&
        under(e.to, "src/core") &&
        !under(e.to, "src/core/lib"),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("src/core/events imports no other folder of core but lib", () => {
    const bad = all.filter(
      (e) =>
        under(e.from, "src/core/events") &&
        e.spec.startsWith(".") &&
        under(e.to, "src/core") &&
        !under(e.to, "src/core/events") &&
        !under(e.to, "src/core/lib"),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("nothing in core below the scheduler imports src/core/schedule", () => {
    const bad = all.filter(
      (e) =>
        under(e.from, "src/core") &&
        !under(e.from, "src/core/schedule") &&
        under(e.to, "src/core/schedule"),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("bridge/ is wire translation only: it imports no project code but the error family", () => {
    const bad = all.filter(
      (e) =>
        under(e.from, "src/bridge") &&
        e.spec.startsWith(".") &&
        !under(e.to, "src/bridge") &&
        e.to !== "src/core/lib/errors.ts",
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
    expect(all.some((e) => under(e.from, "src/bridge"))).toBe(true);
  });

  test("agent-cli/ drives agent CLIs on top of core alone", () => {
    const bad = all.filter(
      (e) =>
        under(e.from, "src/agent-cli") &&
        e.spec.startsWith(".") &&
        !under(e.to, "src/agent-cli") &&
        !under(e.to, "src/core"),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("the substrate never imports an improver channel, and channels never import a substrate", () => {
    const bad = all.filter(
      (e) =>
        (under(e.from, "src/substrate") && under(e.to, "src/channels")) ||
        (under(e.from, "src/channels") && under(e.to, "src/substrate")),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("benchmarks never import a concrete substrate or channel (the CLI hands them over)", () => {
    // A CLI's stream decoder (agent-cli/*-stream.ts) only reads text: a benchmark reading a recorded
    // stream uses it, so its counts agree with the executor's and the trajectory's (issue 32).
    const decoder = (p: string) => /^src\/agent-cli\/[\w-]+-stream\.ts$/.test(p);
    const bad = all.filter(
      (e) =>
        under(e.from, "src/benchmarks") &&
        (under(e.to, "src/substrate") ||
          under(e.to, "src/channels") ||
          (under(e.to, "src/agent-cli") && !decoder(e.to))),
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("a CLI's stream decoder reads text only: it imports no process, channel or substrate", () => {
    const bad = all.filter(
      (e) =>
        /^src\/agent-cli\/[\w-]+-stream\.ts$/.test(e.from) &&
        !e.typeOnly &&
        !under(e.to, "src/core/lib") &&
        !e.spec.startsWith("node:fs") &&
        e.spec !== "zod",
    );
    expect(bad.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  test("a CLI's event names are spelled only in its stream decoder (one reading of each stream)", () => {
    // Every other reader consumes the decoder's typed events, so the trajectory, the watchdog, the
    // executor and LAB's metrics cannot disagree about what a tool call or a step is (issue 32).
    const owners: [string, RegExp][] = [
      [
        "src/agent-cli/opencode-stream.ts",
        /["'`](step_finish|step-finish|step_start|step-start|tool_use)["'`]/,
      ],
      [
        "src/agent-cli/codex-stream.ts",
        /["'`](turn\.(completed|failed|started)|item\.(completed|started|updated)|thread\.started)["'`]/,
      ],
    ];
    const files = ["src", "store", "tui"].flatMap(sources);
    const bad: string[] = [];
    for (const [owner, names] of owners) {
      expect(files).toContain(owner);
      for (const file of files) {
        if (file === owner) continue;
        const hit = readFileSync(join(ROOT, file), "utf8").match(names);
        if (hit) bad.push(`${file}: ${hit[0]} (read it through ${owner})`);
      }
    }
    expect(bad).toEqual([]);
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

/** Every module `entries` reach through relative imports, static or dynamic (type imports too). */
function closure(entries: readonly string[]): Map<string, string> {
  const byFile = new Map<string, Edge[]>();
  for (const e of all) byFile.set(e.from, [...(byFile.get(e.from) ?? []), e]);
  const reachedFrom = new Map<string, string>(entries.map((f) => [f, f]));
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const e of byFile.get(file) ?? []) {
      if (!e.spec.startsWith(".") || reachedFrom.has(e.to)) continue;
      reachedFrom.set(e.to, file);
      queue.push(e.to);
    }
  }
  return reachedFrom;
}

describe("the method cannot read a score", () => {
  // The commands that run the method, and the session they share: nothing they reach, however
  // indirectly, may be the judge (cli/ as a whole may import it, for `judge` and `report`).
  const RUN_PATH = [
    "src/cli/commands/run.ts",
    "src/cli/commands/demo.ts",
    "src/cli/sweep/sweep-session.ts",
    "src/core/schedule/index.ts",
  ];

  test("the run path's entry points exist", () => {
    for (const f of RUN_PATH) expect(all.some((e) => e.from === f)).toBe(true);
  });

  test("nothing reachable from run, demo or the sweep session is the judge or a scorer", () => {
    const reached = closure(RUN_PATH);
    expect(reached.size).toBeGreaterThan(RUN_PATH.length);
    const bad = [...reached].filter(
      ([f]) =>
        under(f, "src/judge") || /-scorer\.tsx?$/.test(f) || f === "src/cli/bench/bench-judges.ts",
    );
    expect(bad.map(([f, via]) => `${via} -> ${f}`)).toEqual([]);
  });

  test("the closure walk finds a judge import when there is one", () => {
    const reached = closure(["src/cli/commands/judge.ts"]);
    expect([...reached.keys()].some((f) => under(f, "src/judge"))).toBe(true);
  });
});

/**
 * Values store/ and tui/ may import from core: the event registry, sinks and lines (the schemas
 * they validate against and the one description of each event), and lib/, the bottom layer that
 * imports nothing else of core (money, formatting, pids), so it never pulls the method in.
 */
function isEventsModule(p: string): boolean {
  return /^src\/core\/(events|lib)\//.test(p);
}

describe("files stay readable in one sitting", () => {
  const MAX_LINES = 420;
  test(`no source file in src/, store/ or tui/ is over ${MAX_LINES} lines`, () => {
    const long = ["src", "store", "tui"]
      .flatMap(sources)
      .map((f) => ({ f, n: readFileSync(join(ROOT, f), "utf8").split("\n").length }))
      .filter((x) => x.n > MAX_LINES)
      .map((x) => `${x.f}: ${x.n}`);
    expect(long).toEqual([]);
  });
});

describe("one painter", () => {
  test("only core/lib/paint.ts writes an ANSI colour sequence", () => {
    const own = ["src", "store", "tui"]
      .flatMap(sources)
      .filter((f) => f !== "src/core/lib/paint.ts")
      .filter((f) => /(\\x1b|\\u001b)\[\$\{/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(own).toEqual([]);
  });
});

describe("one way to replace a file whole", () => {
  test("only core/lib/atomic-write.ts writes a temporary file and renames it into place", () => {
    const own = ["src", "store", "tui"]
      .flatMap(sources)
      .filter((f) => f !== "src/core/lib/atomic-write.ts")
      .filter((f) => /renameSync\(tmp\b/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(own).toEqual([]);
  });
});

describe("options come from one schema per command", () => {
  test("no option is looked up by name as a string; every command is defined with its schema", () => {
    const files = sources("src/cli");
    const lookups = files.filter((f) =>
      /\b(stringOpt|intOpt|boolOpt)\(|args\.values\[/.test(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(lookups).toEqual([]);
    const untyped = files
      .filter((f) => f.startsWith("src/cli/commands/"))
      .filter((f) => /: Command = \{/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(untyped).toEqual([]);
  });
});

describe("src/cli by job", () => {
  test("at most six files at its root: the entry, the command schema and registry, errors, exit codes, version", () => {
    const root = readdirSync(join(ROOT, "src/cli")).filter((n) =>
      statSync(join(ROOT, "src/cli", n)).isFile(),
    );
    expect(root.length).toBeLessThanOrEqual(6);
  });
});

describe("no file import cycle", () => {
  test("the value imports of src/, store/ and tui/ (static and dynamic) form no cycle", () => {
    const graph = new Map<string, string[]>();
    for (const e of all) {
      if (e.typeOnly || !e.spec.startsWith(".")) continue;
      const list = graph.get(e.from) ?? [];
      list.push(e.to);
      graph.set(e.from, list);
    }
    // Tarjan's strongly connected components: any component of two or more files is a cycle.
    let next = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      index.set(v, next);
      low.set(v, next);
      next++;
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
      if (low.get(v) !== index.get(v)) return;
      const component: string[] = [];
      for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) cycles.push(component.sort());
    };
    for (const v of graph.keys()) if (!index.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });
});

describe("functions stay readable in one sitting", () => {
  const MAX_BODY_LINES = 150;
  /** The few longer ones, each at most its length today: they may shrink, never grow. */
  const ALLOWED: Record<string, number> = {
    "tui/browse/browse-app.tsx BrowseApp": 250,
    "src/cli/sweep/sweep-session.ts runSweepSession": 199,
    "src/core/events/describe.ts describeEvent": 201,
    "tui/live/reducer.ts applyEvent": 181,
    "tui/browse/views.ts buildView": 167,
    "src/core/proposer/proposer.ts call": 160,
  };
  test(`no function body in src/, store/ or tui/ is over ${MAX_BODY_LINES} lines but the allowed few`, async () => {
    const ts = (await import("typescript")).default;
    const over: string[] = [];
    for (const file of ["src", "store", "tui"].flatMap(sources)) {
      const text = readFileSync(join(ROOT, file), "utf8");
      const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
      const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
      const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
      const nameOf = (n: import("typescript").Node): string => {
        const named = (n as { name?: import("typescript").Node }).name;
        if (named !== undefined) return named.getText(sf);
        const p = n.parent;
        if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) return p.name.getText(sf);
        return "(anonymous)";
      };
      const walk = (n: import("typescript").Node): void => {
        const fn =
          ts.isFunctionDeclaration(n) ||
          ts.isMethodDeclaration(n) ||
          ts.isArrowFunction(n) ||
          ts.isFunctionExpression(n) ||
          ts.isConstructorDeclaration(n);
        const body = fn ? (n as { body?: import("typescript").Node }).body : undefined;
        if (body !== undefined) {
          const lines = line(body.getEnd()) - line(body.getStart(sf)) + 1;
          const key = `${file} ${nameOf(n)}`;
          if (lines > (ALLOWED[key] ?? MAX_BODY_LINES)) over.push(`${key}: ${lines} lines`);
        }
        ts.forEachChild(n, walk);
      };
      walk(sf);
    }
    expect(over).toEqual([]);
  });
});

describe("one error family", () => {
  test("every error class derives from Harness2Error, whose base alone names it", () => {
    const own = ["src", "store", "tui"]
      .flatMap(sources)
      .filter((f) => f !== "src/core/lib/errors.ts")
      .flatMap((f) => {
        const text = readFileSync(join(ROOT, f), "utf8");
        const bad: string[] = [];
        if (/\bextends Error\b/.test(text)) bad.push(`${f}: extends Error`);
        if (/\bthis\.name = |\boverride name = /.test(text)) bad.push(`${f}: sets its own name`);
        return bad;
      });
    expect(own).toEqual([]);
  });
});

describe("benches report the machine they measured on", () => {
  // Issue 36: a bench prints its inputs' hashes, the load average and the machine's cores; the
  // machine line (bench/stats.ts `machine()`) carries cores, CPU, memory, Bun and the load.
  test("every bench script prints the machine line", () => {
    const benches = sources("bench").filter((f) => f !== join("bench", "stats.ts"));
    expect(benches.length).toBeGreaterThan(5);
    const silent = benches.filter(
      (f) => !/console\.log\(machine\(\)\)/.test(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(silent).toEqual([]);
  });
});
