// The browser's rollout screen, `/` search and the pager and editor keys, over a real store: a
// task lists its rollouts, one opens to its output files and trajectory (read through the
// source), `/` moves the cursor to the next match and `n` to the one after, `p` hands the screen's
// text to the pager and `e` the screen's folder to the editor, each with the terminal released.

import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { openStore } from "../../store/db.ts";
import { BrowseApp } from "../../tui/browse/browse-app.tsx";
import { type BrowseSource, storeSource } from "../../tui/browse/source.ts";
import { highlight } from "../../tui/browse/views.ts";
import { line } from "../../tui/components/Lines.tsx";
import { KEYS, type Rendered, renderInk } from "./ink-harness.ts";
import { browseScenario, type StoreFixture, storeWith } from "./store-fixture.ts";

let fixture: StoreFixture;
let db: Database;
beforeAll(() => {
  fixture = storeWith(browseScenario("/r"));
  db = openStore(fixture.dbPath, { create: false });
});
afterAll(() => {
  db.close();
  fixture.cleanup();
});
let mounted: Rendered[] = [];
afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
});

function mount(extra: Partial<BrowseSource> = {}) {
  const opened: ({ pager: string } | { editor: string })[] = [];
  const reads: string[] = [];
  const source: BrowseSource = {
    ...storeSource(db, fixture.dbPath, {
      harnessDiff: () => "",
      rolloutText: async (runDir) => {
        reads.push(runDir);
        return {
          files: { "summary.md": "Total: 85.15\nmeals: 60.50" },
          trajectory: "[ACTION] bash(python3 scripts/summarize.py)\n[OBSERVATION] Total: 85.15",
        };
      },
      openExternal: (what) => {
        opened.push(what);
        return null;
      },
    }),
    ...extra,
  };
  const r = renderInk(<BrowseApp source={source} color={false} onQuit={() => {}} />, {
    columns: 120,
    rows: 40,
  });
  mounted.push(r);
  return { r, opened, reads };
}

async function toTask(r: Rendered): Promise<string> {
  await r.waitFor((x) => x.includes("sweeps (2)"));
  r.type(KEYS.enter);
  await r.waitFor((x) => x.includes("▶ ledger-1"));
  r.type(KEYS.enter);
  return r.waitFor((x) => x.includes("task ledger-1 k=2 in acct"));
}

describe("browse: rollouts, search, pager and editor", () => {
  test("a task lists its rollouts; / finds one, n the next; enter shows output and trajectory", async () => {
    const { r, reads } = mount();
    let f = await toTask(r);
    expect(f).toMatch(/rollouts \d+: .*\(enter: output and trajectory\)/);
    expect(f).toContain("/ search");
    r.type("/");
    f = await r.waitFor((x) => x.includes("/▏ (enter search · esc cancel)"));
    for (const ch of "base2") r.type(ch);
    await r.waitFor((x) => x.includes("/base2▏"));
    r.type(KEYS.enter);
    f = await r.waitFor((x) => /▶ {3}ledger-1\s+│ base2/.test(x));
    r.type("n");
    // the next match wraps around: there is only one base2 row
    f = await r.waitFor((x) => /▶ {3}ledger-1\s+│ base2/.test(x));
    r.type(KEYS.enter);
    f = await r.waitFor((x) => x.includes("rollout base2") && x.includes("trajectory"));
    expect(f).toContain("status ok · delivered yes");
    expect(f).toContain("── output/summary.md");
    expect(f).toContain("Total: 85.15");
    expect(f).toContain("[ACTION] bash(python3 scripts/summarize.py)");
    expect(reads).toEqual(["/exec/base2"]);
    expect(f).toContain("e editor");
  });

  test("a search typed faster than renders, in one chunk with its Enter, still searches", async () => {
    const { r } = mount();
    await toTask(r);
    r.type("/inv2\r");
    const f = await r.waitFor((x) => /▶ {3}ledger-1\s+│ inv2/.test(x) || /▶ {3}inv2 /.test(x));
    // The footer counts the matches and says which one the cursor is on (issue 35).
    expect(f).toMatch(/'inv2': match 1 of \d+ · n next/);
  });

  test("what a search found stands out on the screen", () => {
    const lines = highlight([line("stage inv2 ok"), line("nothing here")], "INV2");
    expect(lines[0]).toEqual([
      { text: "stage " },
      { text: "inv2", tone: "accent" },
      { text: " ok" },
    ]);
    expect(lines[1]).toEqual(line("nothing here"));
  });

  test("a search that matches nothing says so; esc cancels typing", async () => {
    const { r } = mount();
    await toTask(r);
    r.type("/");
    for (const ch of "zzz-nothing") r.type(ch);
    r.type(KEYS.enter);
    await r.waitFor((x) => x.includes("no match for 'zzz-nothing'"));
    r.type("/");
    r.type("x");
    r.type(KEYS.escape);
    await r.waitFor((x) => x.includes("task ledger-1") && !x.includes("/x▏"));
  });

  test("p hands the screen's text to the pager, e the rollout's folder to the editor", async () => {
    const { r, opened } = mount();
    await toTask(r);
    r.type("p");
    await r.waitFor(() => opened.length === 1);
    expect("pager" in (opened[0] ?? {})).toBe(true);
    expect((opened[0] as { pager: string }).pager).toContain("task ledger-1 k=2 in acct");
    r.type("e");
    await r.waitFor((x) => x.includes("this screen has no folder to open"));
    r.type("/");
    for (const ch of "base1") r.type(ch);
    r.type(KEYS.enter);
    await r.waitFor((x) => /▶ {3}ledger-1\s+│ base1/.test(x));
    r.type(KEYS.enter);
    await r.waitFor((x) => x.includes("rollout base1"));
    r.type("e");
    await r.waitFor(() => opened.length === 2);
    expect(opened[1]).toEqual({ editor: "/exec/base1" });
  });

  test("an opener's problem is shown in one line", async () => {
    const { r } = mount({
      openExternal: () => "the pager 'nope' could not start: set PAGER to one you have",
    });
    await r.waitFor((x) => x.includes("sweeps (2)"));
    r.type("p");
    await r.waitFor((x) => x.includes("the pager 'nope' could not start"));
  });
});
