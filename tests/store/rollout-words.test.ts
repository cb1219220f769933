// How a rollout reads everywhere it is listed (issue 35): an unpriced one costs "unknown", never
// $0, and one that ended normally but delivered nothing is never plain "ok".
import { describe, expect, test } from "bun:test";
import { type RolloutView, rolloutCostText, rolloutStatusText } from "../../store/views.ts";
import { ROLLOUT_COLUMNS } from "../../tui/browse/screens.ts";

const rollout = (over: Partial<RolloutView>): RolloutView => ({
  label: "inv1",
  runId: "x-oc-agg1/t/inv1",
  runDir: "/r",
  status: "ok",
  delivered: true,
  usd: 0.5,
  wallS: 3,
  reused: false,
  error: "",
  ...over,
});

describe("rollout words", () => {
  test("cost: unknown when unpriced, the amount otherwise (an old row without the flag is priced)", () => {
    expect(rolloutCostText(rollout({ priced: false, usd: 0 }))).toBe("unknown");
    expect(rolloutCostText(rollout({ priced: true }))).toBe("$0.50");
    expect(rolloutCostText(rollout({}))).toBe("$0.50");
  });

  test("status: delivered nothing is said, dead and the rest are as they are", () => {
    expect(rolloutStatusText(rollout({ delivered: false }))).toBe("ok, delivered nothing");
    expect(rolloutStatusText(rollout({}))).toBe("ok");
    expect(rolloutStatusText(rollout({ status: "dead", delivered: false }))).toBe("dead");
  });

  test("the browser's rollout table uses them", () => {
    const cells = (r: RolloutView) =>
      ROLLOUT_COLUMNS.map((c) => {
        const v = c.cell(r);
        return typeof v === "string" ? v : v.text;
      });
    const row = cells(rollout({ delivered: false, priced: false, usd: 0 }));
    expect(row).toContain("ok, delivered nothing");
    expect(row).toContain("unknown");
    expect(row).not.toContain("$0.00");
  });
});
