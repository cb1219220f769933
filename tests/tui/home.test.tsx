// The home screen: recent sweeps and their status, which sweep resume offers, and that the
// chosen action runs only after the screen is gone.

import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { openStore } from "../../store/db.ts";
import { listSweeps } from "../../store/queries.ts";
import type { SweepSummary } from "../../store/views.ts";
import { HomeApp, type HomeChoice, resumable } from "../../tui/home/home-app.tsx";
import { runHome } from "../../tui/home/start.ts";
import { fakeTerminal, KEYS, type Rendered, renderInk } from "./ink-harness.ts";
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
    expect(f).toMatch(/swp_20261130_unfinished │ [^\n]*│ unfinished/);
    expect(f).toMatch(/swp_20261130_judged\s+│ [^\n]*│ ok/);
    expect(f).toContain(
      `r resume ${UNFINISHED} — unfinished, 1/2 tasks done, demo/opencode parallel+sequential`,
    );
    expect(f).toContain("▶ d start the demo");
    r.type("r");
    expect(chosen).toHaveLength(1);
    expect(chosen[0]).toMatchObject({ action: "resume", sweep: { id: UNFINISHED } });
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
        { ...base, status: "running" },
        { ...base, id: "b", status: "interrupted" },
      ])?.id,
    ).toBe("b");
    expect(resumable([{ ...base, status: "ok" }])).toBeNull();
    expect(resumable(null)).toBeNull();
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
});
