// Limiter and mapLimited: the bound holds, order is the caller's, failures wait for siblings.
import { describe, expect, test } from "bun:test";
import { LimitError, Limiter, mapLimited } from "../../../src/core/lib/limiter.ts";

/** A promise the test resolves by hand: readiness is signalled, never slept for. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((r) => {
    open = r;
  });
  return { wait, open };
}

describe("Limiter", () => {
  test("never runs more than its limit at once and serves waiters in order", async () => {
    const lim = new Limiter(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      lim.run(async () => {
        started.push(i);
        await g.wait;
        return i;
      }),
    );
    await Promise.resolve();
    expect(lim.active).toBe(2);
    expect(lim.waiting).toBe(2);
    expect(started).toEqual([0, 1]);
    gates[1]?.open();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(lim.peak).toBe(2);
    expect(lim.active).toBe(0);
  });

  test("a limit ≤ 0 is unlimited", async () => {
    const lim = new Limiter(0);
    const g = gate();
    const runs = [1, 2, 3, 4, 5].map(() => lim.run(() => g.wait));
    expect(lim.active).toBe(5);
    g.open();
    await Promise.all(runs);
    expect(lim.peak).toBe(5);
  });

  test("a throwing task releases its slot", async () => {
    const lim = new Limiter(1);
    await expect(
      lim.run(() => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await lim.run(async () => "next")).toBe("next");
    expect(lim.active).toBe(0);
  });

  test("a fractional limit is refused", () => {
    expect(() => new Limiter(1.5)).toThrow(LimitError);
  });
});

describe("mapLimited", () => {
  test("keeps the caller's order whatever the completion order", async () => {
    const gates = [gate(), gate(), gate()];
    const out = mapLimited([0, 1, 2], 3, async (i) => {
      await gates[i]?.wait;
      return `r${i}`;
    });
    gates[2]?.open();
    gates[0]?.open();
    gates[1]?.open();
    expect(await out).toEqual(["r0", "r1", "r2"]);
  });

  test("bounds concurrency by width", async () => {
    let active = 0;
    let peak = 0;
    await mapLimited([1, 2, 3, 4, 5, 6, 7], 2, async () => {
      active++;
      peak = Math.max(peak, active);
      await Promise.resolve();
      await Promise.resolve();
      active--;
    });
    expect(peak).toBe(2);
  });

  test("width below 1 still runs one at a time", async () => {
    let active = 0;
    let peak = 0;
    const out = await mapLimited([1, 2, 3], 0, async (x) => {
      active++;
      peak = Math.max(peak, active);
      await Promise.resolve();
      active--;
      return x * 2;
    });
    expect(out).toEqual([2, 4, 6]);
    expect(peak).toBe(1);
  });

  test("rethrows the first failure in item order only after every sibling settled", async () => {
    const finished: number[] = [];
    const g = gate();
    const run = mapLimited([0, 1, 2, 3], 2, async (i) => {
      if (i === 3) {
        await g.wait;
        finished.push(i);
        throw new Error("late failure");
      }
      if (i === 1) throw new Error("first failure");
      finished.push(i);
      return i;
    });
    let settled = false;
    run
      .catch(() => {})
      .finally(() => {
        settled = true;
      });
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    g.open();
    await expect(run).rejects.toThrow("first failure");
    expect(finished.sort()).toEqual([0, 2, 3]);
  });

  test("no items, no calls", async () => {
    let calls = 0;
    expect(await mapLimited([], 2, async () => ++calls)).toEqual([]);
    expect(calls).toBe(0);
  });
});
