// `run --dry-run` estimates what the plan will cost from earlier sweeps in the store with the same
// models (issue 34): per role, calls × the middle half of one call's recorded cost.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { estimateSpend } from "../../src/cli/spend/spend-estimate.ts";
import { assumedCallUsd, priceOf } from "../../src/cli/spend/spend-prices.ts";
import { runCli } from "../helpers/cli.ts";

const root = mkdtempSync(join(tmpdir(), "h2-estimate-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const TASKS = resolve(import.meta.dir, "../../fixtures/tasks");
const models = { solver: "s/m", improver: "i/m" };

describe("estimateSpend", () => {
  test("calls × the 25th, 50th and 75th percentile of one call's cost, per role", () => {
    const e = estimateSpend(
      { executor: 10, stages: 4, selection: 0, reflection: 2 },
      { executor: [1, 2, 3, 4, 5], stages: [0.5], selection: [], reflection: [] },
      models,
    );
    expect(e.basis).toBe("store");
    expect(e.roles.executor).toEqual({
      calls: 10,
      samples: 5,
      basis: "store",
      usd: { low: 20, median: 30, high: 40 },
    });
    expect(e.roles.stages.usd).toEqual({ low: 2, median: 2, high: 2 });
    // A role with calls and no earlier call has no estimate, and the total says it is partial.
    expect(e.roles.reflection).toEqual({ calls: 2, samples: 0, basis: null, usd: null });
    expect(e.total).toEqual({ low: 22, median: 32, high: 42, complete: false });
  });

  test("no earlier call at all: no estimate, never a guessed $0", () => {
    const e = estimateSpend(
      { executor: 1, stages: 1, selection: 0, reflection: 1 },
      { executor: [], stages: [], selection: [], reflection: [] },
      models,
    );
    expect(e.basis).toBe("none");
    expect(e.total.complete).toBe(false);
  });

  test("a role without earlier calls falls back on its price × assumed tokens, half to twice", () => {
    const e = estimateSpend(
      { executor: 4, stages: 2, selection: 0, reflection: 1 },
      { executor: [], stages: [0.1], selection: [], reflection: [] },
      models,
      { executor: { usd: 0.5, source: "HARNESS2_CODEX_PRICES" } },
    );
    expect(e.roles.executor).toEqual({
      calls: 4,
      samples: 0,
      basis: "prices",
      priceSource: "HARNESS2_CODEX_PRICES",
      usd: { low: 1, median: 2, high: 4 },
    });
    // Measured beats assumed: the stages keep the store's figure.
    expect(e.roles.stages.basis).toBe("store");
    expect(e.basis).toBe("mixed");
    expect(e.total).toEqual({ low: 1.2, median: 2.2, high: 4.2, complete: false });
  });
});

describe("price tables", () => {
  test("a Codex model from HARNESS2_CODEX_PRICES, an OpenCode model from its provider config", () => {
    const env = {
      HARNESS2_CODEX_PRICES: '{"gpt-x": {"input": 2, "output": 8}}',
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        provider: { p: { models: { m: { cost: { input: 3, output: 15 } } } } },
      }),
    };
    expect(priceOf("cx", "gpt-x", env)).toEqual({
      input: 2,
      output: 8,
      source: "HARNESS2_CODEX_PRICES",
    });
    expect(priceOf("codex", "gpt-y", env)).toBeNull();
    expect(priceOf("opencode", "p/m", env)).toEqual({
      input: 3,
      output: 15,
      source: "OPENCODE_CONFIG_CONTENT",
    });
    expect(priceOf("oc", "p/other", env)).toBeNull();
    expect(priceOf("claude_cli", "claude-x", env)).toBeNull();
    // 200k input at $2 + 10k output at $8 per million.
    expect(assumedCallUsd("executor", { input: 2, output: 8, source: "t" })).toBeCloseTo(0.48, 9);
  });
});

describe("run --dry-run", () => {
  test("learns from an earlier sweep with the same improver model, and the estimate holds that sweep's spend", async () => {
    const runs = join(root, "runs");
    const args = [
      "run",
      "--bench",
      "tasks",
      "--tasks",
      TASKS,
      "--k",
      "2",
      "--dry-run",
      "--runs",
      runs,
    ];
    const both = ["--mode", "parallel,sequential"];
    const env = (improver: string) => ({
      env: { HARNESS2_SOLVER_MODEL: "x/solver", HARNESS2_IMPROVER_MODEL: improver },
    });
    const plan = (improver: string) => runCli([...args, ...both, "--json"], env(improver));
    const before = await plan("local/deterministic");
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout).estimate.basis).toBe("none");

    // The demo's scripted improver (model local/deterministic) at $0.01 a call: 2 tasks, k=2,
    // both modes — the same plan shape as the task folder's 2 tasks.
    const demo = await runCli(["demo", "--no-tui", "--k", "2", "--runs", runs], {
      env: { HARNESS2_DEMO_CALL_USD: "0.01" },
    });
    expect(demo.code).toBe(0);
    const after = JSON.parse((await plan("local/deterministic")).stdout).estimate;
    expect(after.basis).toBe("store");
    expect(after.roles.stages).toMatchObject({ calls: 24, usd: { median: 0.24 } });
    expect(after.roles.selection.calls).toBe(4);
    expect(after.roles.reflection.calls).toBe(4);
    expect(after.roles.executor.usd).toBeNull();
    // The demo spent $0.32 on its improver: inside the estimate's range for the same plan.
    expect(after.total.low).toBeLessThanOrEqual(0.32);
    expect(after.total.high).toBeGreaterThanOrEqual(0.32);
    // Another model learns nothing from it.
    expect(JSON.parse((await plan("other/model")).stdout).estimate.basis).toBe("none");
    const text = await runCli([...args, ...both], env("local/deterministic"));
    expect(text.stdout).toContain(
      "24 improver stage sessions: $0.24–$0.24 (median $0.24) from 24 earlier call(s)",
    );
    expect(text.stdout).toContain("28 executor rollouts: unknown");

    // With a price for the executor's model, its role falls back on the table, and says so.
    const priced = await runCli([...args, ...both], {
      env: {
        ...env("local/deterministic").env,
        OPENCODE_CONFIG_CONTENT: JSON.stringify({
          provider: { x: { models: { solver: { cost: { input: 1, output: 5 } } } } },
        }),
      },
    });
    // 28 × (200k × $1 + 10k × $5) / 1M = 28 × $0.25 = $7.00, half to twice.
    expect(priced.stdout).toContain(
      "28 executor rollouts: $3.50–$14.00 (median $7.00) at OPENCODE_CONFIG_CONTENT's price × 200k input + 10k output tokens each (assumed)",
    );
    expect(priced.stdout).toContain(
      "Estimate, from earlier calls in this store where there are some",
    );
  }, 120_000);
});
