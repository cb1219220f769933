// The home screen: recent sweeps and their status, which sweep resume offers, and that the
// chosen action runs only after the screen is gone.

import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { openStore } from "../../store/db.ts";
import { listSweeps } from "../../store/sweep-list.ts";
import type { SweepSummary } from "../../store/views.ts";
import { HomeApp, type HomeChoice, resumable } from "../../tui/home/home-app.tsx";
import { runHome } from "../../tui/home/start.ts";
import { fakeTerminal, KEYS, type Rendered, renderInk } from "./ink-harness.ts";
import { Script, T0 } from "./script.ts";
import { browseScenario, type StoreFixture, storeWith, UNFINISHED } from "./store-fixture.ts";

let fixture: StoreFixture;
let db: Database;
let sweeps: SweepSummary[];
beforeAll(() => {
  fixture = storeWith(browseScenario("/r"));
  db = openStore(fixture.dbPath, { create: false });
  sweeps = listSweeps(db);
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

function mount(list: SweepSummary[] | null) {
  const chosen: HomeChoice[] = [];
  const r = renderInk(
    <HomeApp
      version="9.9.9"
      location="/runs/harness2.db"
      sweeps={list}
      color={false}
      onChoose={(c) => chosen.push(c)}
    />,
  );
  mounted.push(r);
  return { r, chosen };
}

describe("HomeApp", () => {
  test("lists recent sweeps with their status and offers to resume the unfinished one", async () => {
    const { r, chosen } = mount(sweeps);
    const f = await r.waitFor((x) => x.includes("recent sweeps"));
    expect(f).toContain("harness2 9.9.9 — recursive agent harnessing");
    // At 100 columns the ids shrink to unique prefixes so the columns stay (issue 35).
    expect(f).toMatch(/swp_20261130_u\w* +│ [^\n]*│ unfinished/);
    expect(f).toMatch(/swp_20261130_j\w*\s+│ [^\n]*│ ok/);
    expect(f).toContain(
      `r resume ${UNFINISHED} — unfinished, 1/2 tasks done, demo/opencode parallel+sequential`,
    );
    // With a sweep to resume, the cursor starts on it (issue 35): enter resumes it.
    expect(f).toContain(`▶ r resume ${UNFINISHED}`);
    r.type(KEYS.enter);
    expect(chosen).toHaveLength(1);
    expect(chosen[0]).toMatchObject({ action: "resume", sweep: { id: UNFINISHED } });
  });

  test("? asks for help, as h does", async () => {
    const { r, chosen } = mount(null);
    await r.waitFor((x) => x.includes("? help"));
    r.type("?");
    expect(chosen).toEqual([{ action: "help" }]);
  });

  test("without a store: says so, resume is off and skipped by the cursor", async () => {
    const { r, chosen } = mount(null);
    const f = await r.waitFor((x) => x.includes("no store here yet"));
    expect(f).toContain("r resume — no unfinished sweep");
    r.type("r");
    expect(chosen).toEqual([]);
    r.type(KEYS.down);
    await r.waitFor((x) => x.includes("▶ b browse runs"));
    r.type(KEYS.enter);
    expect(chosen).toEqual([{ action: "browse" }]);
  });

  test("the newest stopped sweep is the one to resume; a running or finished one is not", () => {
    const base = sweeps[0] as SweepSummary;
    expect(
      resumable([
        { ...base, tag: "other", status: "running" },
        { ...base, id: "b", status: "interrupted" },
      ])?.id,
    ).toBe("b");
    expect(resumable([{ ...base, status: "ok" }])).toBeNull();
    expect(resumable(null)).toBeNull();
  });

  test("a stopped sweep that a later sweep of its namespace finished (or is running) is not offered", () => {
    const base = sweeps[0] as SweepSummary;
    const old = { ...base, id: "old", status: "interrupted" as const, ks: [2] };
    // Newest first: the resume that finished the run, then the interrupted original.
    expect(resumable([{ ...base, id: "resumed", status: "ok", ks: [2] }, old])).toBeNull();
    expect(resumable([{ ...base, id: "now", status: "running", ks: [2] }, old])).toBeNull();
    // A later sweep of another experiment, seed or k leaves it resumable.
    for (const later of [{ tag: "t2" }, { seed: 99 }, { bench: "lab" }, { ks: [1] }]) {
      expect(resumable([{ ...base, id: "later", status: "ok", ...later }, old])?.id).toBe("old");
    }
    // Interrupted again on resume: the newer stop is the one to offer, not the first.
    const again = { ...base, id: "again", status: "interrupted" as const, ks: [2] };
    expect(resumable([again, old])?.id).toBe("again");
    // A sweep over k=1,2 whose k=2 a later sweep finished is still the newest at k=1.
    const both = { ...old, ks: [1, 2] };
    expect(resumable([{ ...base, id: "k2", status: "ok", ks: [2] }, both])?.id).toBe("old");
  });

  test("on a real store: interrupted, then resumed to ok → the home offers nothing to resume", async () => {
    const first = new Script("swp_20261130_a", T0, "/r")
      .sweepStarted([{ domain: "acct", tasks: ["ledger-1", "ledger-2"] }], { ks: [2] })
      .task("acct", "ledger-1", { of: 2 })
      .sweepFinished("interrupted");
    const resumed = new Script("swp_20261130_b", T0 + 3_600_000, "/r")
      .sweepStarted([{ domain: "acct", tasks: ["ledger-1", "ledger-2"] }], { ks: [2] })
      .task("acct", "ledger-2", { index: 2, of: 2 })
      .sweepFinished("ok");
    const only = storeWith(first.events);
    const both = storeWith([...first.events, ...resumed.events]);
    try {
      const list = (f: StoreFixture) => {
        const d = openStore(f.dbPath, { create: false });
        try {
          return listSweeps(d);
        } finally {
          d.close();
        }
      };
      expect(resumable(list(only))?.id).toBe("swp_20261130_a");
      const after = list(both);
      expect(after.map((s) => [s.id, s.status])).toEqual([
        ["swp_20261130_b", "ok"],
        ["swp_20261130_a", "interrupted"],
      ]);
      expect(resumable(after)).toBeNull();
      const { r } = mount(after);
      const f = await r.waitFor((x) => x.includes("recent sweeps"));
      expect(f).toContain("r resume — no unfinished sweep");
    } finally {
      only.cleanup();
      both.cleanup();
    }
  });
});

describe("runHome", () => {
  test("carries out the choice after the screen is gone, and returns its exit code", async () => {
    const calls: string[] = [];
    const term = fakeTerminal();
    const done = runHome({
      version: "9.9.9",
      location: "/runs/harness2.db",
      sweeps,
      color: false,
      ...term.streams,
      actions: {
        demo: async () => {
          calls.push("demo");
          return 0;
        },
        resume: async (s) => {
          calls.push(`resume ${s.id}`);
          return 130;
        },
        browse: async () => {
          calls.push("browse");
          return 0;
        },
        help: () => {
          calls.push("help");
          return 0;
        },
      },
    });
    const deadline = Date.now() + 5000;
    while (!term.written().includes("start the demo") && Date.now() < deadline) {
      await new Promise((r) => setImmediate(r));
    }
    expect(calls).toEqual([]);
    term.stdin.write("r");
    expect(await done).toBe(130);
    expect(calls).toEqual([`resume ${UNFINISHED}`]);
  });

  test("leaving the browser comes back to the home screen; q there quits", async () => {
    const calls: string[] = [];
    const term = fakeTerminal();
    const screens = () => term.written().split("start the demo").length - 1;
    const waitScreens = async (n: number) => {
      const deadline = Date.now() + 5000;
      while (screens() < n && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    };
    const done = runHome({
      version: "9.9.9",
      location: "/runs/harness2.db",
      sweeps,
      color: false,
      ...term.streams,
      actions: {
        demo: async () => 0,
        resume: async () => 0,
        browse: async () => {
          calls.push("browse");
          return 0;
        },
        help: () => 0,
      },
    });
    await waitScreens(1);
    term.stdin.write("b");
    await waitScreens(2);
    expect(calls).toEqual(["browse"]);
    // The home screen was drawn again, and it waits for the next choice.
    expect(screens()).toBe(2);
    let over = false;
    void done.then(() => {
      over = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(over).toBe(false);
    term.stdin.write("q");
    expect(await done).toBe(0);
    expect(calls).toEqual(["browse"]);
  });
});
