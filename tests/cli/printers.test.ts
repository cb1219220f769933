import { describe, expect, test } from "bun:test";
import { jsonPrinter, linePrinter } from "../../src/cli/runs/printers.ts";
import { HarnessEvent } from "../../src/core/events/registry.ts";
import { Script } from "../tui/script.ts";

const base = { ts: 1, sweep: "swp_1", domain: "accounting", task: "ledger-1" };
const events: HarnessEvent[] = [
  {
    type: "stage.finished",
    ...base,
    mode: "agg",
    k: 2,
    label: "inv1",
    dim: "INV",
    fellBack: true,
    keptBase: false,
    attempts: 2,
    usd: 0.5,
    cached: false,
    error: "skills/x/SKILL.md needs a description:\nmore",
    notes: "",
    harnessDir: "/h",
  },
  {
    type: "tripwire.fired",
    ts: 1,
    sweep: "swp_1",
    task: "ledger-1",
    kind: "grader_verdict",
    path: "context/source/x.txt",
    marker: "PASSED",
    stage: "inv1",
    message: "verdict marker found",
  },
  {
    type: "selection.made",
    ...base,
    mode: "seq",
    k: 2,
    chosenLabel: "c1",
    anonId: "A",
    idMap: { A: "c1", B: "c2" },
    why: "matches the ledger\nsecond line",
    ok: false,
    fallback: true,
    trivial: false,
    dropped: [],
    usd: 0,
    error: "no choice",
  },
  {
    type: "ledger.recorded",
    ...base,
    mode: "agg",
    k: 1,
    kind: "rollout",
    label: "base1",
    usd: 0,
    cached: false,
    attempts: 1,
    R: 1,
    P: 0,
  },
].map((e) => HarnessEvent.parse(e));

describe("headless printers", () => {
  test("--json writes every event as exactly one parseable line of the schema", () => {
    const out: string[] = [];
    const sink = jsonPrinter((t) => out.push(t));
    for (const e of events) sink.emit(e);
    expect(out).toHaveLength(events.length);
    for (const [i, line] of out.entries()) {
      expect(line.endsWith("\n")).toBe(true);
      expect(HarnessEvent.parse(JSON.parse(line))).toEqual(events[i] as HarnessEvent);
    }
  });

  test("--no-tui prints one line per meaningful event, no ANSI without colour", () => {
    const out: string[] = [];
    const sink = linePrinter((t) => out.push(t), { color: false });
    for (const e of events) sink.emit(e);
    // the ledger entry is quiet unless verbose
    expect(out).toHaveLength(3);
    expect(out.join("")).not.toContain("\x1b[");
    expect(out[0]).toContain("inv1 (INV): fell back, 2 attempt(s)");
    expect(out[0]).not.toContain("more");
    expect(out[1]).toContain("TRIPWIRE grader_verdict at inv1");
    // The marker is named, never repeated (a line may be pasted anywhere), and it was blocked.
    expect(out[1]).toContain('["P·ASSED"] — blocked before any model saw it');
    expect(out[1]).not.toContain("PASSED");
    expect(out[2]).toContain("selection c1 [A] FALLBACK — matches the ledger");
    // The selector's whole reason, on one line: it was cut at its first line break (issue 35).
    expect(out[2]).toContain("— matches the ledger second line\n");
  });

  test("colour marks a tripwire red when enabled", () => {
    const out: string[] = [];
    linePrinter((t) => out.push(t), { color: true }).emit(events[1] as HarnessEvent);
    expect(out[0]).toContain("\x1b[31m");
  });

  test("a new lesson is news; an entry put back for a resumed task shows only with verbose", () => {
    const added = {
      type: "library.added",
      ...base,
      mode: "agg",
      k: 1,
      entry: "ledger-1",
      cue: "totals must reconcile",
      lesson: "recompute",
      confidence: "",
      path: "/lib/ledger-1",
    };
    const fresh = HarnessEvent.parse(added);
    const restored = HarnessEvent.parse({ ...added, restored: true });
    const out: string[] = [];
    const quiet = linePrinter((t) => out.push(t), { color: false });
    quiet.emit(fresh);
    quiet.emit(restored);
    expect(out).toEqual(["  ledger-1 parallel: library + totals must reconcile\n"]);
    const loud: string[] = [];
    linePrinter((t) => loud.push(t), { color: false, verbose: true }).emit(restored);
    expect(loud).toEqual(["  ledger-1 parallel: library kept (resumed)\n"]);
  });
});

describe("a finished task's problems in the headless lines", () => {
  test("an ok task whose reflection failed and whose selection fell back says so on its line", () => {
    const s = new Script()
      .sweepStarted([{ domain: "acct", tasks: ["ledger-1"] }], { ks: [2] })
      .task("acct", "ledger-1", { reflectionFailsIn: "agg", fallbackIn: "seq" })
      .sweepFinished("ok");
    const out: string[] = [];
    const sink = linePrinter((t) => out.push(t), { color: false });
    for (const e of s.events) sink.emit(e);
    const finished = out.find((l) => l.startsWith("[acct] ledger-1 k=2: ok"));
    expect(finished).toContain(
      " ⚠ parallel reflection failed (no lesson stored), sequential selection fell back\n",
    );
    // The closing line says it too.
    expect(out.at(-1)).toMatch(
      /^sweep .* ⚠ 1 task\(s\) with problems \(the show command names them\)\n$/,
    );
  });

  test("a clean task's line carries no warning", () => {
    const s = new Script()
      .sweepStarted([{ domain: "acct", tasks: ["ledger-1"] }], { ks: [2] })
      .task("acct", "ledger-1");
    const out: string[] = [];
    const sink = linePrinter((t) => out.push(t), { color: false });
    for (const e of s.events) sink.emit(e);
    expect(out.find((l) => l.startsWith("[acct] ledger-1 k=2: ok"))).not.toContain("⚠");
  });
});
