// Experiment identity: a growing stream continues, a changed model/seed/endpoint is refused exactly.
import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openStore } from "../../store/db.ts";
import {
  assertContinuesExperiment,
  compareIdentity,
  type ExperimentIdentity,
  IdentityMismatchError,
} from "../../store/identity.ts";
import { StoreWriter } from "../../store/writer.ts";
import { SAMPLES, tempDir } from "./samples.ts";

const base: ExperimentIdentity = {
  bench: "tasks",
  substrate: "oc",
  tag: "",
  seed: 7,
  identity: {
    executorModel: "a/exec",
    improverModel: "a/improve",
    endpoints: { judge: "http://127.0.0.1:9000", codex: null },
  },
  domains: [
    { domain: "finance", tasks: ["f1", "f2"] },
    { domain: "legal", tasks: ["l1"] },
  ],
};

describe("compareIdentity", () => {
  test("the same experiment has no differences", () => {
    const c = compareIdentity(base, structuredClone(base));
    expect(c).toEqual({ differences: [], addedDomains: [], addedTasks: [], omittedTasks: [] });
  });

  test("more tasks and more domains extend the stream", () => {
    const c = compareIdentity(base, {
      ...base,
      domains: [
        { domain: "finance", tasks: ["f1", "f2", "f3"] },
        { domain: "legal", tasks: ["l1"] },
        { domain: "medical", tasks: ["m1"] },
      ],
    });
    expect(c.differences).toEqual([]);
    expect(c.addedTasks).toEqual(["f3", "m1"]);
    expect(c.addedDomains).toEqual(["medical"]);
  });

  test("running part of the stream is allowed and reported as omitted", () => {
    const c = compareIdentity(base, { ...base, domains: [{ domain: "legal", tasks: ["l1"] }] });
    expect(c.differences).toEqual([]);
    expect(c.omittedTasks).toEqual(["f1", "f2"]);
  });

  test("a changed model, endpoint or seed is listed exactly", () => {
    const c = compareIdentity(base, {
      ...base,
      seed: 8,
      identity: {
        ...base.identity,
        executorModel: "b/exec",
        endpoints: { judge: "http://127.0.0.1:9001", codex: null },
      },
    });
    expect(c.differences).toEqual([
      { field: "seed", before: 7, after: 8 },
      {
        field: "identity.endpoints.judge",
        before: "http://127.0.0.1:9000",
        after: "http://127.0.0.1:9001",
      },
      { field: "identity.executorModel", before: "a/exec", after: "b/exec" },
    ]);
  });

  test("a key that appears or disappears is a difference", () => {
    const c = compareIdentity(base, { ...base, identity: { ...base.identity, judgeModel: "j" } });
    expect(c.differences).toEqual([
      { field: "identity.judgeModel", before: undefined, after: "j" },
    ]);
  });

  test("a task that moved to another domain is a difference", () => {
    const c = compareIdentity(base, {
      ...base,
      domains: [
        { domain: "finance", tasks: ["f1"] },
        { domain: "legal", tasks: ["l1", "f2"] },
      ],
    });
    expect(c.differences).toEqual([
      { field: "stream.f2.domain", before: "finance", after: "legal" },
    ]);
  });
});

describe("assertContinuesExperiment", () => {
  let dir: string;
  let cleanup: () => void;
  let db: Database;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    db = openStore(join(dir, "harness2.db"));
  });
  afterEach(() => {
    db.close();
    cleanup();
  });

  const record = (sweep: string, id: ExperimentIdentity, ts: number) => {
    const w = new StoreWriter(db);
    w.emit({
      ...SAMPLES["sweep.started"],
      ...id,
      domains: id.domains.map((d) => ({ domain: d.domain, tasks: [...d.tasks] })),
      sweep,
      ts,
    });
    w.close();
  };

  test("the first sweep starts the experiment", () => {
    const c = assertContinuesExperiment(db, base);
    expect(c.previousSweep).toBeNull();
    expect(c.addedTasks).toEqual(["f1", "f2", "l1"]);
  });

  test("an extended stream continues after the newest sweep", () => {
    record("swp_a", base, 1);
    record("swp_b", { ...base, domains: [{ domain: "legal", tasks: ["l1", "l2"] }] }, 2);
    const c = assertContinuesExperiment(db, {
      ...base,
      domains: [...base.domains, { domain: "medical", tasks: ["m1"] }],
    });
    expect(c.previousSweep).toBe("swp_b");
    expect(c.addedTasks).toEqual(["m1"]);
    expect(c.omittedTasks).toEqual(["l2"]);
  });

  test("a changed model is refused naming the previous sweep and the exact change", () => {
    record("swp_a", base, 1);
    let err: unknown;
    try {
      assertContinuesExperiment(db, {
        ...base,
        identity: { ...base.identity, improverModel: "z/improve" },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IdentityMismatchError);
    const m = err as IdentityMismatchError;
    expect(m.previousSweep).toBe("swp_a");
    expect(m.message).toContain('identity.improverModel: was "a/improve", now "z/improve"');
    expect(m.message).toContain("new runs directory");
  });

  test("a changed seed is refused", () => {
    record("swp_a", base, 1);
    expect(() => assertContinuesExperiment(db, { ...base, seed: null })).toThrow(
      /seed: was 7, now null/,
    );
  });

  test("another bench or substrate in the same store is another experiment", () => {
    record("swp_a", base, 1);
    const c = assertContinuesExperiment(db, {
      ...base,
      substrate: "cx",
      identity: { executorModel: "other" },
    });
    expect(c.previousSweep).toBeNull();
  });
});
