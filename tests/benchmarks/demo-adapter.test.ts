import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DemoAdapter, ledgerTotal } from "../../src/benchmarks/demo/demo-adapter.ts";
import { DemoChannel } from "../../src/benchmarks/demo/demo-channel.ts";
import { DemoScorer } from "../../src/benchmarks/demo/demo-scorer.ts";
import { which } from "../../src/core/lib/process.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";

/** The demo runs on the OpenCode surface, as `harness2 demo` hands it. */
const OC = new OpencodeSubstrate();

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "h2-demo-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const fixedScript = (base: string) =>
  readFileSync(join(base, "scripts", "summarize.py"), "utf8").replace(
    /\n([ \t]*)if amount > 0:\n[ \t]*total \+= amount\n/,
    "\n$1total += amount\n",
  );

describe("demo adapter", () => {
  test("the ledger totals are the signed sums", () => {
    expect(ledgerTotal("amount\n100.25\n-20.10\n5.00\n")).toBe("85.15");
    expect(ledgerTotal("amount\n35.50\n-10.25\n-5.00\n")).toBe("20.25");
    expect(ledgerTotal("amount\n-1.05\n")).toBe("-1.05");
  });

  test("the base harness really runs python3 and gets the buggy total", async () => {
    const adapter = new DemoAdapter({ substrate: OC, root });
    const runDir = await adapter.execute("ledger-1", null, "demo-oc-agg1/ledger-1/base1");
    expect(await adapter.delivered(runDir)).toBe(true);
    expect((await adapter.deliverableText(runDir)).trim()).toBe("Total: 105.25");
    const traj = await adapter.trajectory(runDir, { obsTrunc: 50_000 });
    expect(traj).toContain("[ACTION] bash(");
    expect(traj).toContain("[OBSERVATION] Total: 105.25");
    expect(adapter.executions).toBe(1);
    // idempotent by run id: the finished, marked run is reused without executing
    await adapter.execute("ledger-1", null, "demo-oc-agg1/ledger-1/base1");
    expect(adapter.executions).toBe(1);
  });

  test("preflight refuses a PATH without python3, and does not wait for a slow interpreter lookup", async () => {
    const empty = join(root, "empty");
    mkdirSync(empty);
    const bare = new DemoAdapter({ substrate: OC, root: join(root, "a"), env: { PATH: empty } });
    await expect(bare.preflight()).rejects.toThrow("python3 is not on PATH");

    // A python3 that holds every start at a gate, like a slow version-manager shim.
    const real = which("python3", process.env);
    expect(real).not.toBeNull();
    const bin = join(root, "bin");
    const gate = join(bin, "open");
    mkdirSync(bin);
    writeFileSync(
      join(bin, "python3"),
      `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\nexec '${real}' "$@"\n`,
    );
    chmodSync(join(bin, "python3"), 0o755);
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    const adapter = new DemoAdapter({ substrate: OC, root: join(root, "b"), env });
    await adapter.preflight(); // answers while the lookup still waits at the gate
    writeFileSync(gate, "");
    const runDir = await adapter.execute("ledger-1", null, "demo-oc-agg1/ledger-1/base1");
    expect((await adapter.deliverableText(runDir)).trim()).toBe("Total: 105.25");
  });

  test("a fixed harness gets the signed total; the scorer grades 1 vs 0", async () => {
    const adapter = new DemoAdapter({ substrate: OC, root });
    const fixed = join(root, "fixed");
    cpSync(await adapter.baseHarness(), fixed, { recursive: true });
    writeFileSync(join(fixed, "scripts", "summarize.py"), fixedScript(fixed));
    const good = await adapter.execute("ledger-2", fixed, "demo-oc-agg1/ledger-2/agg1");
    const bad = await adapter.execute("ledger-2", null, "demo-oc-agg1/ledger-2/base1");
    expect((await adapter.deliverableText(good)).trim()).toBe("Total: 20.25");
    const scorer = new DemoScorer();
    expect(await scorer.score(good, "ledger-2")).toMatchObject({ score: 1 });
    expect(await scorer.score(bad, "ledger-2")).toMatchObject({ score: 0 });
    expect(await scorer.score(good, "ledger-9")).toBeNull();
  });

  test("a harness whose script is broken gives a dead, undelivered rollout with the error as evidence", async () => {
    const adapter = new DemoAdapter({ substrate: OC, root });
    const broken = join(root, "broken");
    cpSync(await adapter.baseHarness(), broken, { recursive: true });
    writeFileSync(
      join(broken, "scripts", "summarize.py"),
      "raise SystemExit('no ledger for you')\n",
    );
    const runDir = await adapter.execute("ledger-1", broken, "x/ledger-1/inv1");
    expect(await adapter.delivered(runDir)).toBe(false);
    expect(await adapter.trajectory(runDir, { obsTrunc: 50_000 })).toContain("[OBSERVATION ERROR]");
  });

  test("validateTree requires the script the executor runs", async () => {
    const adapter = new DemoAdapter({ substrate: OC, root });
    expect(await adapter.validateTree({ "scripts/summarize.py": "print(1)\n" })).toEqual([]);
    expect((await adapter.validateTree({ "systemprompt.md": "x" }))[0]).toContain("summarize.py");
  });
});

describe("demo channel", () => {
  const session = (files: Record<string, string>) => {
    const ws = join(root, "ws");
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(ws, "context", rel, ".."), { recursive: true });
      writeFileSync(join(ws, "context", rel), text);
    }
    return {
      workspace: ws,
      context: join(ws, "context"),
      sessionDir: join(root, "s"),
      mission: "m",
      system: "",
      model: "local/deterministic",
      effort: "",
      steps: 1,
      timeoutS: 10,
    };
  };

  test("a stage edits context/harness/scripts/summarize.py to keep signed amounts", async () => {
    const adapter = new DemoAdapter({ substrate: OC, root });
    const base = readFileSync(join(await adapter.baseHarness(), "scripts", "summarize.py"), "utf8");
    const req = session({ "harness/scripts/summarize.py": base });
    const r = await new DemoChannel().run(req);
    expect(r.text).toContain("<notes>");
    const edited = readFileSync(
      join(req.workspace, "context/harness/scripts/summarize.py"),
      "utf8",
    );
    expect(edited).not.toContain("if amount > 0");
    expect(edited).toContain("total += amount");
  });

  test("selection picks the candidate whose total matches the source ledger", async () => {
    const req = session({
      "source/ledger.csv": "amount\n100.25\n-20.10\n5.00\n",
      "candidates/A.md": "<!-- A -->\nTotal: 105.25\n",
      "candidates/B.md": "<!-- B -->\nTotal: 85.15\n",
    });
    const r = await new DemoChannel().run(req);
    expect(r.text).toMatch(/```choice\nB\n```/);
  });

  test("reflection writes a lesson only when the adopted harness differs from the base", async () => {
    const changed = session({
      "harness/scripts/summarize.py": "new",
      "base_harness/scripts/summarize.py": "old",
    });
    expect((await new DemoChannel().run(changed)).text).toContain("<experience>");
    rmSync(join(root, "ws"), { recursive: true });
    const same = session({
      "harness/scripts/summarize.py": "old",
      "base_harness/scripts/summarize.py": "old",
    });
    expect((await new DemoChannel().run(same)).text).toContain("NO_ENTRY");
  });
});
