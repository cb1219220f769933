// The other four WorkBuddy cells end to end at k=1 (office on OpenCode and code on Codex have
// their own files): web and code on OpenCode, office and web on Codex. Each: setup --from
// installs harness2's agents into a copy of the contract-fake checkout, check is ready, a sweep
// runs its jobs through the checkout's runner with the REAL codex binary as the improver, judge
// --bases and report. The base harness scores below 1 and the adopted one 1: the improver's edit
// reached the executor inside the container.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wbCellSweep } from "../helpers/workbuddy.ts";

const SWEEP_MS = 900_000;
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-wb-cells-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the remaining WorkBuddy cells, each one k=1 sweep", () => {
  for (const [subset, substrate] of [
    ["web", "oc"],
    ["code", "oc"],
    ["office", "cx"],
    ["web", "cx"],
  ] as const) {
    test(
      `${subset} on ${substrate === "oc" ? "OpenCode" : "Codex"}: base below 1, the adopted harness 1, a positive paired delta`,
      async () => {
        const got = await wbCellSweep(root, subset, substrate);
        expect(got.stdout).toMatch(/k=1: ok/);
        expect(got.base).toBeLessThan(1);
        expect(got.pick).toBe(1);
        expect(got.delta ?? 0).toBeGreaterThan(0);
      },
      SWEEP_MS,
    );
  }
});
