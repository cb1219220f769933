// Completion marks: round trip, atomic write, invalidation when the harness changes, version
// mismatch, extras that cannot override identity, and the "adopted output intact" check.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { treeFingerprint } from "../../../src/core/lib/fingerprint.ts";
import {
  clearRunMark,
  isOutputIntact,
  isRunComplete,
  RUN_MARK_FILE,
  RUN_MARK_VERSION,
  readRunMark,
  runMarkStatus,
  writeRunMark,
} from "../../../src/core/rollout/runmark.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "h2-mark-"));
  made.push(d);
  return d;
}

const clock = { now: () => 1_700_000_000_000 };

describe("writeRunMark / readRunMark", () => {
  test("round-trips run id, time, harness fingerprint and extras, atomically", async () => {
    const where = join(tmp(), "traj");
    const path = await writeRunMark(where, {
      runId: "jb-oc-agg1/t/base1",
      harnessFingerprint: "base",
      extras: { executor: "opencode 1.18" },
      clock,
    });
    expect(path).toBe(join(where, RUN_MARK_FILE));
    expect(readdirSync(where)).toEqual([RUN_MARK_FILE]); // no temp file left behind
    expect(await readRunMark(where)).toEqual({
      version: RUN_MARK_VERSION,
      runId: "jb-oc-agg1/t/base1",
      at: 1_700_000_000_000,
      harness: "base",
      outputFingerprint: null,
      extras: { executor: "opencode 1.18" },
    });
  });

  test("extras can never override what identifies the run", async () => {
    const where = tmp();
    await writeRunMark(where, {
      runId: "r",
      harnessFingerprint: "abc",
      extras: { version: 1, harness: "forged", runId: "other" },
      clock,
    });
    const mark = await readRunMark(where);
    expect(mark?.version).toBe(RUN_MARK_VERSION);
    expect(mark?.harness).toBe("abc");
    expect(mark?.runId).toBe("r");
    expect(await isRunComplete(where, "forged")).toBe(false);
  });

  test("a missing, unparsable or malformed marker reads as null", async () => {
    const where = tmp();
    expect(await readRunMark(where)).toBeNull();
    writeFileSync(join(where, RUN_MARK_FILE), "{not json");
    expect(await readRunMark(where)).toBeNull();
    writeFileSync(join(where, RUN_MARK_FILE), JSON.stringify({ version: 2, harness: "x" }));
    expect(await readRunMark(where)).toBeNull();
  });

  test("clearRunMark removes it (and tolerates its absence)", async () => {
    const where = tmp();
    await writeRunMark(where, { runId: "r", harnessFingerprint: "base", clock });
    await clearRunMark(where);
    expect(await readRunMark(where)).toBeNull();
    await clearRunMark(where);
  });
});

describe("isRunComplete", () => {
  test("holds for the same harness, and stops holding once the harness changes", async () => {
    const root = tmp();
    const harness = join(root, "harness");
    mkdirSync(harness);
    writeFileSync(join(harness, "systemprompt.md"), "v1");
    const where = join(root, "run");
    const fp1 = await treeFingerprint(harness);
    await writeRunMark(where, { runId: "r", harnessFingerprint: fp1, clock });
    expect(await isRunComplete(where, fp1)).toBe(true);

    writeFileSync(join(harness, "systemprompt.md"), "v2");
    const fp2 = await treeFingerprint(harness);
    expect(fp2).not.toBe(fp1);
    expect(await isRunComplete(where, fp2)).toBe(false);
    const status = await runMarkStatus(where, fp2);
    expect(status.reusable).toBe(false);
    if (!status.reusable) {
      expect(status.reason).toBe("harness");
      expect(status.message).toContain(fp1);
      expect(status.message).toContain("different configuration");
    }
  });

  test("says why not: no mark, or a mark of another version", async () => {
    const where = tmp();
    const none = await runMarkStatus(where, "base");
    expect(none.reusable ? "reusable" : none.reason).toBe("missing");
    writeFileSync(
      join(where, RUN_MARK_FILE),
      JSON.stringify({
        version: 1,
        runId: "r",
        at: 1,
        harness: "base",
        outputFingerprint: null,
        extras: {},
      }),
    );
    const old = await runMarkStatus(where, "base");
    expect(old.reusable ? "reusable" : old.reason).toBe("version");
    expect(await isRunComplete(where, "base")).toBe(false);
  });
});

describe("isOutputIntact", () => {
  test("holds while the delivered output is unchanged, even with the mark inside it", async () => {
    const out = tmp();
    writeFileSync(join(out, "answer.txt"), "42");
    await writeRunMark(out, { runId: "r", harnessFingerprint: "base", outputDir: out, clock });
    expect((await readRunMark(out))?.outputFingerprint).toBe(await treeFingerprint(out));
    expect(await isOutputIntact(out, out)).toBe(true);
    writeFileSync(join(out, "answer.txt"), "41");
    expect(await isOutputIntact(out, out)).toBe(false);
  });

  test("a run that delivered nothing (no output dir, or a missing one) is never intact", async () => {
    const root = tmp();
    const markDir = join(root, "mark");
    await writeRunMark(markDir, { runId: "r", harnessFingerprint: "base", clock });
    expect(await isOutputIntact(markDir, join(root, "out"))).toBe(false);
    await writeRunMark(markDir, {
      runId: "r",
      harnessFingerprint: "base",
      outputDir: join(root, "out"),
      clock,
    });
    expect((await readRunMark(markDir))?.outputFingerprint).toBeNull();
    expect(await isOutputIntact(markDir, join(root, "out"))).toBe(false);
  });
});
