// Each live-view component as a pure function of its props, with ink-testing-library: every state
// of a stage row, ledger counters at 0 and at 4k/3k, tripwire alerts, fallback and k=1 selections.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import chalk from "chalk";
import { render } from "ink-testing-library";
import { Bar, barText } from "../../tui/components/Bar.tsx";
import { line, wrapLines } from "../../tui/components/Lines.tsx";
import { SPINNER_STILL } from "../../tui/components/Spinner.tsx";
import { type Column, Table, tableLines } from "../../tui/components/Table.tsx";
import { EventLog } from "../../tui/live/components/EventLog.tsx";
import { FinishedTaskRow } from "../../tui/live/components/FinishedTaskRow.tsx";
import { Footer } from "../../tui/live/components/Footer.tsx";
import { Header } from "../../tui/live/components/Header.tsx";
import { Lanes } from "../../tui/live/components/Lanes.tsx";
import { LedgerCounters } from "../../tui/live/components/LedgerCounters.tsx";
import { Selections } from "../../tui/live/components/Selections.tsx";
import { StageTable } from "../../tui/live/components/StageTable.tsx";
import { TripwireAlerts } from "../../tui/live/components/TripwireAlerts.tsx";
import { progress } from "../../tui/live/derive.ts";
import { reduceAll } from "../../tui/live/reducer.ts";
import {
  initialState,
  type ModeLive,
  type StageRow,
  type TaskLive,
} from "../../tui/live/view-model.ts";
import { Script, SWEEP } from "./script.ts";

const ESC = "\u001b[";
let savedLevel: typeof chalk.level;
beforeAll(() => {
  // Ink colours through chalk, which sees no terminal under `bun test`; force colour so the
  // colour-on cases can show their escapes and the colour-off cases prove they add none.
  savedLevel = chalk.level;
  chalk.level = 1;
});
afterAll(() => {
  chalk.level = savedLevel;
});

const frame = (el: React.ReactElement) => {
  const r = render(el);
  const out = r.lastFrame() ?? "";
  r.unmount();
  return out;
};

const stage = (over: Partial<StageRow>): StageRow => ({
  label: "inv1",
  dim: "INV",
  state: "ok",
  attempts: 1,
  usd: 0.02,
  cached: false,
  keptBase: false,
  fellBack: false,
  error: "",
  ...over,
});

const mode = (over: Partial<ModeLive>): ModeLive => ({
  mode: "agg",
  status: "running",
  phase: "proposals",
  R: 0,
  P: 0,
  expectedR: 8,
  expectedP: 6,
  stages: [],
  selection: null,
  reflection: null,
  lesson: "",
  usd: 0,
  error: "",
  ...over,
});

const lineOf = (out: string, needle: string) =>
  out.split("\n").find((l) => l.includes(needle)) ?? "";

describe("Table", () => {
  test("a spinner cell marks its first glyph as the spinner's place, unless the cut took it", () => {
    const cols = (max?: number): Column<string>[] => [
      {
        header: "s",
        cell: (r) => ({ text: `${SPINNER_STILL} ${r}`, tone: "running", spinner: true }),
        max,
      },
      { header: "n", cell: () => "1", align: "right" },
    ];
    const row = tableLines(cols(), ["running"])[2] ?? [];
    expect(row.slice(0, 2)).toEqual([
      { text: SPINNER_STILL, tone: "running", spinner: true },
      { text: " running", tone: "running" },
    ]);
    const cut = tableLines(cols(1), ["running"])[2] ?? [];
    expect(cut[0]).toEqual({ text: "…", tone: "running" });
  });

  test("pads columns, rules the header with box drawing, right-aligns and cuts the shrinking column", () => {
    const rows = [
      { a: "x", n: "1", e: "short" },
      { a: "longer", n: "12345", e: "a very long error message that must be cut" },
    ];
    const out = frame(
      <Table
        columns={[
          { header: "name", cell: (r) => r.a },
          { header: "n", cell: (r) => r.n, align: "right" },
          { header: "error", cell: (r) => r.e, shrink: true },
        ]}
        rows={rows}
        color={false}
        width={30}
        rowKey={(r) => r.a}
      />,
    );
    const lines = out.split("\n");
    expect(lines[0]).toBe("name   │     n │ error");
    expect(lines[1]).toBe("───────┼───────┼──────────────");
    expect(lines[2]).toBe("x      │     1 │ short");
    expect(lines[3]).toBe("longer │ 12345 │ a very long …");
    expect(lines[3]).toHaveLength(30);
  });

  test("colours a cell by its tone only when colour is on", () => {
    const el = (color: boolean) => (
      <Table
        columns={[{ header: "state", cell: () => ({ text: "fell back", tone: "warn" as const }) }]}
        rows={[1]}
        color={color}
        rowKey={(r) => String(r)}
      />
    );
    expect(frame(el(true))).toContain(`${ESC}33m`);
    expect(frame(el(false))).not.toContain(ESC);
  });
});

describe("Bar", () => {
  test("fills in proportion, clamped at both ends", () => {
    expect(barText(0, 8, 8)).toBe("░░░░░░░░");
    expect(barText(4, 8, 8)).toBe("████░░░░");
    expect(barText(8, 8, 8)).toBe("████████");
    expect(barText(12, 8, 4)).toBe("████");
    expect(barText(3, 0, 4)).toBe("░░░░");
    expect(frame(<Bar value={1} max={2} width={6} color={false} />)).toBe("███░░░");
  });
});

describe("StageTable", () => {
  const rows = [
    stage({ label: "inv1", state: "running", attempts: null, usd: null }),
    stage({ label: "dom1", dim: "DOM", state: "ok", cached: true, usd: 0 }),
    stage({ label: "inv2", state: "kept base", keptBase: true }),
    stage({
      label: "dom2",
      dim: "DOM",
      state: "fell back",
      fellBack: true,
      attempts: 2,
      error: "no description",
    }),
  ];
  const out = frame(
    <StageTable
      mode={mode({ stages: rows, phase: "proposals" })}
      maxRows={10}
      animate={false}
      color={false}
      width={100}
    />,
  );

  test("a header line names every column the issue lists", () => {
    const header = lineOf(out, "stage");
    for (const col of [
      "dim",
      "state",
      "att",
      "cost",
      "cached",
      "kept base",
      "fell back",
      "error",
    ]) {
      expect(header).toContain(col);
    }
    expect(out).toContain("parallel · phase proposals");
  });

  test("a running stage shows a (still) spinner and no attempts or cost yet", () => {
    const line = lineOf(out, "inv1");
    expect(line).toContain(`${SPINNER_STILL} running`);
    expect(line).not.toContain("$");
  });

  test("ok (cached), kept base and fell back rows show their outcome, attempts, cost and error", () => {
    expect(lineOf(out, "dom1")).toMatch(/✔ ok .*\$0\.0000 .*cached/);
    expect(lineOf(out, "inv2")).toMatch(/= kept base .* 1 .*\$0\.0200 .*│ yes/);
    const fell = lineOf(out, "dom2");
    expect(fell).toMatch(/↩ fell back .* 2 /);
    expect(fell).toContain("yes");
    expect(fell).toMatch(/│ no description$/);
  });

  test("animated, the spinner is ink-spinner's and turns on its own; still, it keeps one glyph", async () => {
    const el = (animate: boolean) => (
      <StageTable
        mode={mode({ stages: [rows[0]!] })}
        maxRows={5}
        animate={animate}
        color={false}
        width={100}
      />
    );
    const glyph = (f: string | undefined) => /inv1\s+│ INV │ (\S) running/.exec(f ?? "")?.[1];
    const moving = render(el(true));
    try {
      const first = glyph(moving.lastFrame());
      expect(first).toBe(SPINNER_STILL);
      const deadline = Date.now() + 5000;
      let next = first;
      while (next === first && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        next = glyph(moving.lastFrame());
      }
      // ink-spinner's next dots frame; the row keeps its width while the glyph turns.
      expect(next).toBe("⠙");
      expect(moving.lastFrame()?.length).toBe(frame(el(false)).length);
    } finally {
      moving.unmount();
    }
    const still = render(el(false));
    try {
      await new Promise((r) => setTimeout(r, 250));
      expect(still.frames.map(glyph)).toEqual([SPINNER_STILL]);
    } finally {
      still.unmount();
    }
  });

  test("rows beyond maxRows fold into one line; maxRows 0 folds the table to a summary", () => {
    const cut = frame(
      <StageTable
        mode={mode({ stages: rows })}
        maxRows={2}
        animate={false}
        color={false}
        width={100}
      />,
    );
    expect(cut).toContain("… 2 earlier stage(s)");
    expect(cut).not.toContain("inv1 ");
    expect(cut).toContain("dom2");
    const folded = frame(
      <StageTable
        mode={mode({ stages: rows })}
        maxRows={0}
        animate={false}
        color={false}
        width={100}
      />,
    );
    expect(folded.split("\n")).toHaveLength(1);
    expect(folded).toContain("4 stage(s): 1 running, 1 ok, 1 kept base, 1 fell back");
  });

  test("fell back is yellow and the error red with colour on", () => {
    const colored = frame(
      <StageTable
        mode={mode({ stages: [rows[3]!] })}
        maxRows={5}
        animate={false}
        color
        width={120}
      />,
    );
    expect(colored).toContain(`${ESC}33m↩ fell back`);
    expect(colored).toContain(`${ESC}31mno description`);
  });
});

describe("LedgerCounters", () => {
  test("at 0: empty bars against 4k and 3k", () => {
    const out = frame(
      <LedgerCounters
        modes={[mode({ R: 0, P: 0 }), mode({ mode: "seq", R: 0, P: 0 })]}
        color={false}
        width={100}
      />,
    );
    expect(lineOf(out, "parallel")).toMatch(/rollouts R ░+ 0\/8\s+sessions P ░+ 0\/6/);
    expect(lineOf(out, "sequential")).toMatch(/R ░+ 0\/8/);
  });

  test("at 4k/3k: full bars, green with colour on", () => {
    const modes = [mode({ R: 8, P: 6, status: "ok" })];
    const out = frame(<LedgerCounters modes={modes} color={false} width={100} />);
    expect(out).toMatch(/rollouts R █+ 8\/8\s+sessions P █+ 6\/6/);
    expect(out).not.toContain("░");
    expect(frame(<LedgerCounters modes={modes} color width={100} />)).toContain(`${ESC}32m8/8`);
  });

  test("narrow terminals shorten labels and bars before a count is cut", () => {
    const modes = [
      mode({ R: 5, P: 4 }),
      mode({ mode: "seq", R: 16, P: 12, expectedR: 16, expectedP: 12 }),
    ];
    for (const width of [60, 48, 40]) {
      const out = frame(<LedgerCounters modes={modes} color={false} width={width} />);
      for (const line of out.split("\n")) expect(line.length).toBeLessThanOrEqual(width);
      expect(lineOf(out, "parallel")).toMatch(/R .*5\/8\s+P .*4\/6$/);
      expect(lineOf(out, "sequential")).toMatch(/16\/16\s+P .*12\/12$/);
    }
    expect(frame(<LedgerCounters modes={modes} color={false} width={40} />)).not.toContain("░");
  });
});

describe("TripwireAlerts", () => {
  const alert = {
    id: 1,
    ts: 0,
    kind: "grader_verdict" as const,
    path: "context/dom1/rollouts/base1.md",
    marker: "PASSED",
    stage: "dom1",
    task: "ledger-1",
    mode: "agg" as const,
    message: "grader verdict marker in evidence",
  };

  test("shows kind, stage, task and mode, path and marker, and how to acknowledge", () => {
    const out = frame(<TripwireAlerts alerts={[alert]} overflow={0} color={false} />);
    expect(out).toContain("TRIPWIRE");
    expect(out).toContain("press a to acknowledge");
    expect(out).toContain(
      'grader_verdict at dom1 (ledger-1 parallel): context/dom1/rollouts/base1.md [marker "P·ASSED"]',
    );
    expect(out).toContain("╭");
  });

  test("is red with colour on, counts what it could not keep, and is absent with no alerts", () => {
    const out = frame(<TripwireAlerts alerts={[alert]} overflow={3} color />);
    expect(out).toContain(`${ESC}31m`);
    expect(out).toContain("×4");
    expect(out).toContain("3 earlier alert(s) not shown");
    expect(frame(<TripwireAlerts alerts={[]} overflow={0} color />)).toBe("");
  });
});

describe("Selections", () => {
  const sel = {
    chosenLabel: "agg2",
    anonId: "B",
    candidates: 2,
    why: "Candidate B reconciles every ledger",
    ok: true,
    fallback: false,
    trivial: false,
    error: "",
  };

  test("a blind choice reads anon id → label with the why's first line", () => {
    const out = frame(<Selections modes={[mode({ selection: sel })]} color={false} />);
    expect(out).toBe("parallel    B → agg2 of 2 “Candidate B reconciles every ledger”");
  });

  test("a fallback is marked and names the selector's failure", () => {
    const out = frame(
      <Selections
        modes={[
          mode({
            mode: "seq",
            selection: {
              ...sel,
              chosenLabel: "c2",
              ok: false,
              fallback: true,
              why: "",
              error: "selector reply had no CHOICE line",
            },
          }),
        ]}
        color={false}
      />,
    );
    expect(out).toBe("sequential  [FALLBACK] c2 — selector: selector reply had no CHOICE line");
    const colored = frame(
      <Selections modes={[mode({ selection: { ...sel, fallback: true, ok: false } })]} color />,
    );
    expect(colored).toContain(`${ESC}33m[FALLBACK]`);
  });

  test("k=1 is marked trivial; a mode not selected yet takes no line", () => {
    const out = frame(
      <Selections
        modes={[
          mode({ selection: { ...sel, chosenLabel: "agg1", anonId: "", trivial: true } }),
          mode({ mode: "seq" }),
        ]}
        color={false}
      />,
    );
    expect(lineOf(out, "parallel")).toContain("agg1 [k=1 trivial: the only final, no selector]");
    expect(out.split("\n")).toHaveLength(1);
    expect(frame(<Selections modes={[mode({})]} color={false} />)).toBe("");
  });
});

describe("Header, Lanes, Footer, EventLog and finished rows from a recorded run", () => {
  const s = new Script().sweepStarted(
    [
      { domain: "acct", tasks: ["ledger-1", "ledger-2"] },
      { domain: "law", tasks: ["brief-1"] },
    ],
    { ks: [2], seed: 7 },
  );
  s.task("acct", "ledger-1", { of: 2, fallbackIn: "seq", fellBack: ["dom1"] });
  const next = new Script().task("acct", "ledger-2", { index: 2, of: 2 });
  const cut = next.events.findIndex((e) => e.type === "phase.started" && e.phase === "probes");
  for (const e of next.events.slice(0, cut + 1)) s.push(e);
  const state = reduceAll(initialState(), s.events);
  const now = state.lastTs;

  test("the header names the sweep and shows counts, bar, ETA and both spends", () => {
    const out = frame(
      <Header
        sweep={state.sweep}
        sweepLabel="demo"
        counts={state.counts}
        spend={state.spend}
        progress={progress(state, now)}
        color={false}
        width={100}
      />,
    );
    expect(out).toContain(
      "harness2 swp_20261130_test · demo/opencode · k=2 · parallel+sequential · seed 7",
    );
    expect(out).toMatch(/tasks 1 ok · 0 failed · 0 skipped of 3 █+░+ 33% {2}ETA \d+m\d\ds/);
    expect(out).toMatch(
      /running · elapsed \d+m\d\ds · spend improver \$0\.\d{4} · executor \$0\.\d{4}/,
    );
  });

  test("with a spending cap the header shows the experiment's spend against it, earlier runs included", () => {
    const started = s.events[0];
    if (started?.type !== "sweep.started") throw new Error("the script starts with sweep.started");
    const capped = reduceAll(initialState(), [
      { ...started, config: { ...started.config, spendCap: { usd: 2, priorUsd: 0.5 } } },
      ...s.events.slice(1),
    ]);
    expect(capped.sweep?.cap).toEqual({ usd: 2, priorUsd: 0.5, priorTokens: 0 });
    const out = frame(
      <Header
        sweep={capped.sweep}
        sweepLabel="demo"
        counts={capped.counts}
        spend={{ improverUsd: 0.7, executorUsd: 0.3 }}
        progress={progress(capped, now)}
        color={false}
        width={140}
      />,
    );
    expect(out).toContain("· cap $1.50/$2.00 (75%)");
    // Without one, nothing is said about a cap.
    expect(state.sweep?.cap).toBeNull();
  });

  test("before sweep.started the header shows the label; without a finished task there is no ETA", () => {
    expect(
      frame(
        <Header
          sweep={null}
          sweepLabel="demo"
          counts={initialState().counts}
          spend={initialState().spend}
          progress={progress(initialState(), 0)}
          color={false}
          width={100}
        />,
      ),
    ).toContain("harness2 demo — starting…");
    const fresh = reduceAll(initialState(), s.events.slice(0, 1));
    const out = frame(
      <Header
        sweep={fresh.sweep}
        sweepLabel="demo"
        counts={fresh.counts}
        spend={fresh.spend}
        progress={progress(fresh, fresh.lastTs + 5000)}
        color={false}
        width={100}
      />,
    );
    expect(out).not.toContain("ETA");
    expect(out).toContain("0%");
  });

  test("lanes show each domain's task, k, position and per-mode phase, and mark the focus", () => {
    const out = frame(
      <Lanes
        lanes={state.lanes}
        tasks={state.tasks}
        focusKey={state.tasks[0]?.key ?? null}
        maxLines={5}
        animate={false}
        color={false}
        width={100}
      />,
    );
    expect(lineOf(out, "acct")).toMatch(
      /^▶ acct\s+1\/2\s+⠋ ledger-2 k=2 \(2\/2\) {2}parallel: probes · sequential: waiting/,
    );
    expect(lineOf(out, "law")).toMatch(/^ {2}law\s+0\/1\s+idle/);
  });

  test("lanes beyond the room are summarised, busy lanes first", () => {
    const many = Array.from({ length: 6 }, (_, i) => ({
      domain: `d${i}`,
      total: 1,
      done: 0,
      active: [] as string[],
    }));
    const out = frame(
      <Lanes
        lanes={[...many, ...state.lanes]}
        tasks={state.tasks}
        focusKey={null}
        maxLines={3}
        animate={false}
        color={false}
        width={100}
      />,
    );
    const lines = out.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain("acct");
    expect(lines[2]).toContain("… 6 more lane(s)");
  });

  test("the footer lists the keys, and explains a pending stop", () => {
    const base = { showLog: false, hasAlerts: true, canFocus: true, finished: false, color: false };
    expect(frame(<Footer stop="none" {...base} />)).toBe(
      "tab/←→ focus task · l show log · a acknowledge tripwires · ? words · q stop",
    );
    expect(frame(<Footer stop="asking" {...base} />)).toBe(
      "stop? running work is cancelled, finished work kept — q again stops, any key goes on",
    );
    expect(frame(<Footer stop="requested" {...base} />)).toBe(
      "stopping: running work is cancelled, finished work kept — q again stops at once",
    );
    expect(frame(<Footer stop="forced" {...base} />)).toBe("stopping now…");
    // The finished frame stays on screen after the process ends: it offers no key (issue 35).
    expect(frame(<Footer stop="none" {...base} finished={true} />)).toBe(
      "finished — the verdict and the next commands follow below",
    );
  });

  test("the event log shows the newest lines with UTC times", () => {
    const out = frame(<EventLog lines={state.log.lines} maxLines={3} color={false} />);
    const lines = out.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe("event log");
    // The same words as the headless printer's line for that event (one description of each).
    expect(lines[3]).toMatch(
      /^\d\d:\d\d:\d\d ledger-2 parallel dom2 \(DOM\): accepted, 1 attempt\(s\) \$0\.0200$/,
    );
  });

  test("a finished task reads as one line with each mode's pick, fallback and fell-back stages", () => {
    const row = state.finished.rows[0]!;
    // The fallback makes it an ok task with a problem: ⚠, never a clean ✔.
    // (ink-testing-library's terminal is 100 columns: the row is cut there, as a terminal would.)
    expect(frame(<FinishedTaskRow row={row} color={false} />)).toBe(
      "⚠ ok acct ledger-1 k=2  parallel B→agg2 ↩1  sequential FALLBACK c2 ↩1  $0.5000 42s ⚠ sequential sel…",
    );
    expect(row.problems).toEqual(["sequential selection fell back"]);
    const clean = { ...row, problems: [] };
    expect(frame(<FinishedTaskRow row={clean} color={false} />)).toStartWith("✔ ok acct ledger-1");
  });
});

describe("the bases phase", () => {
  test("while the base rollouts run, the task's modes are in the bases phase, in the lanes and the stage table", () => {
    const s = new Script()
      .sweepStarted([{ domain: "acct", tasks: ["ledger-1"] }], { ks: [2] })
      .taskStarted("acct", "ledger-1", { k: 2 });
    const at = { sweep: SWEEP, domain: "acct", task: "ledger-1", k: 2 };
    s.push({ type: "rollout.started", ts: 5, ...at, label: "base1", runId: "r1" });
    const during = reduceAll(initialState(), s.events);
    const task = during.tasks[0] as TaskLive;
    expect(task.rollouts.bases).toBe(1);
    const lanes = (st: typeof during) =>
      frame(
        <Lanes
          lanes={st.lanes}
          tasks={st.tasks}
          focusKey={task.key}
          maxLines={3}
          animate={false}
          color={false}
          width={120}
        />,
      );
    expect(lanes(during)).toMatch(/parallel: bases · sequential: bases/);
    const table = frame(
      <StageTable
        mode={task.modes[0] as ModeLive}
        basesRunning
        maxRows={5}
        animate={false}
        color={false}
        width={100}
      />,
    );
    expect(table).toContain("phase bases");
    s.push({
      type: "rollout.finished",
      ts: 6,
      ...at,
      label: "base1",
      runId: "r1",
      runDir: "/runs/base1",
      ok: true,
      delivered: true,
      usd: 0,
      wallS: 1,
      reused: false,
      error: "",
    });
    const after = reduceAll(initialState(), s.events);
    expect(after.tasks[0]?.rollouts.bases).toBe(0);
    expect(lanes(after)).toMatch(/parallel: waiting · sequential: waiting/);
  });
});

describe("wrapLines (the browser's detail views fold long lines)", () => {
  test("a line wider than the screen continues on the next, indented, tones kept; wide characters count 2", () => {
    const long = "x".repeat(30);
    const out = wrapLines(
      [
        line("short"),
        [
          { text: "  error: ", tone: "dim" },
          { text: long, tone: "error" },
        ],
        line("表".repeat(8)),
      ],
      20,
    );
    expect(out[0]).toEqual(line("short"));
    const texts = out.map((l) => l.map((s) => s.text).join(""));
    expect(texts.slice(1, 4)).toEqual([
      `  error: ${"x".repeat(11)}`,
      `  ${"x".repeat(18)}`,
      `  ${"x".repeat(1)}`,
    ]);
    // Nothing of the text is lost, and every piece keeps its segment's tone.
    expect(texts.slice(1, 4).join("").replaceAll(" ", "").replace("error:", "")).toBe(long);
    expect(out[2]?.[1]?.tone).toBe("error");
    // 8 wide characters take 16 columns: they fit in 20; 12 would not.
    expect(wrapLines([line("表".repeat(12))], 20).length).toBe(2);
    expect(texts[4]).toBe("表".repeat(8));
  });
});
