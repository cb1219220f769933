import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import { InterruptedError, SoftStop } from "../../../src/core/lib/interrupt.ts";
import { Limiter } from "../../../src/core/lib/limiter.ts";
import { auditStem, Proposer } from "../../../src/core/proposer/proposer.ts";
import {
  type Channel,
  type ChannelRequest,
  type ChannelResult,
  ChannelSetupError,
  ProposerError,
} from "../../../src/core/seams/channel.ts";
import { ChannelSpec } from "../../../src/core/seams/channel-spec.ts";

/** A scripted channel: each run pops the next step; a step may edit the workspace. */
class ScriptedChannel implements Channel {
  readonly kind = "scripted";
  readonly requests: ChannelRequest[] = [];
  constructor(
    private steps: Array<(req: ChannelRequest) => ChannelResult | Promise<ChannelResult>>,
  ) {}
  async run(req: ChannelRequest): Promise<ChannelResult> {
    this.requests.push(req);
    const step = this.steps.shift();
    if (!step) throw new Error("script exhausted");
    return step(req);
  }
}

const ok = (text: string, usd = 0.01): ChannelResult => ({ text, usd, error: "", timedOut: false });

let root: string;
let runs: string;
let evidence: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "h2-prop-test-"));
  runs = join(root, "runs");
  evidence = join(runs, "ns", "task", "context", "inv1");
  mkdirSync(join(evidence, "harness"), { recursive: true });
  writeFileSync(join(evidence, "harness", "systemprompt.md"), "be careful\n");
  writeFileSync(join(evidence, "task.md"), "sum the ledger\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function proposer(
  channel: Channel,
  extra: Partial<ConstructorParameters<typeof Proposer>[0]> = {},
) {
  return new Proposer({
    channel,
    spec: ChannelSpec.parse({ kind: "opencode", model: "local/mock" }),
    auditDir: join(runs, "audit"),
    runsRoot: runs,
    backoffS: 0,
    tmpRoot: root,
    ...extra,
  });
}

/** A promise and the function that resolves it: a point one side waits for and the other opens. */
function latch(): [Promise<void>, () => void] {
  let open: () => void = () => {};
  const reached = new Promise<void>((r) => {
    open = r;
  });
  return [reached, open];
}

describe("Proposer.call", () => {
  test("an in-place channel reads the evidence where it is and edits only its own harness copy", async () => {
    const channel = new ScriptedChannel([
      (req) => {
        // The evidence folder itself, and in the workspace only the harvested part.
        expect(req.context).toBe(evidence);
        expect(readdirSync(join(req.workspace, "context"))).toEqual(["harness"]);
        expect(readFileSync(join(req.context as string, "task.md"), "utf8")).toBe(
          "sum the ledger\n",
        );
        const edited = join(req.workspace, "context", "harness", "systemprompt.md");
        writeFileSync(edited, "signed\n");
        editedIno = statSync(edited).ino;
        return ok("<notes>signed</notes>");
      },
      (req) => {
        // Without a harvest (selection, reflection) nothing at all is copied.
        expect(req.context).toBe(evidence);
        expect(existsSync(join(req.workspace, "context"))).toBe(false);
        return ok("picked");
      },
    ]);
    let editedIno = -1;
    Object.assign(channel, { workspace: "in-place" });
    const p = proposer(channel);
    const reply = await p.call("do it", evidence, "inv1.a1", { harvest: "context/harness" });
    const harvested = join(reply.workspace as string, "systemprompt.md");
    expect(readFileSync(harvested, "utf8")).toBe("signed\n");
    // The in-process session is over, so its folder was moved into the audit, not copied.
    expect(statSync(harvested).ino).toBe(editedIno);
    expect(readFileSync(join(evidence, "harness", "systemprompt.md"), "utf8")).toBe("be careful\n");
    expect((await p.call("choose", evidence, "selection")).text).toBe("picked");
  });

  test("a fresh call sees the evidence as context/, harvests the edit and writes the audit", async () => {
    const channel = new ScriptedChannel([
      (req) => {
        const sp = join(req.workspace, "context", "harness", "systemprompt.md");
        expect(readFileSync(sp, "utf8")).toBe("be careful\n");
        writeFileSync(sp, "be careful and sign amounts\n");
        editedIno = statSync(sp).ino;
        return ok("<notes>signed</notes>", 0.25);
      },
    ]);
    let editedIno = -1;
    const sink = new RecordingSink();
    const p = proposer(channel, { sink, sweep: "swp_x" });
    const reply = await p.call("do it", evidence, "inv1.a1", {
      system: "SYS",
      harvest: "context/harness",
      where: { task: "ledger-1", mode: "agg" },
    });
    // A CLI session's folder is copied out: a process it left behind cannot write the harvest.
    expect(statSync(join(reply.workspace as string, "systemprompt.md")).ino).not.toBe(editedIno);
    expect(reply.cached).toBe(false);
    expect(reply.attempts).toBe(1);
    expect(reply.usd).toBe(0.25);
    expect(reply.workspace).not.toBeNull();
    expect(readFileSync(join(reply.workspace as string, "systemprompt.md"), "utf8")).toContain(
      "sign amounts",
    );
    // the evidence itself is untouched: the session edited a copy
    expect(readFileSync(join(evidence, "harness", "systemprompt.md"), "utf8")).toBe("be careful\n");
    expect(readFileSync(reply.audit, "utf8")).toBe("<notes>signed</notes>");
    const stem = reply.audit.replace(/\.response\.md$/, "");
    expect(readFileSync(`${stem}.mission.md`, "utf8")).toBe("do it");
    expect(readFileSync(`${stem}.system.md`, "utf8")).toBe("SYS");
    const meta = JSON.parse(readFileSync(`${stem}.meta.json`, "utf8"));
    expect(meta).toMatchObject({ ok: true, model: "local/mock", attempts: 1, cost_usd: 0.25 });
    const events = sink.ofType("proposer.call");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      label: "inv1.a1",
      cached: false,
      usd: 0.25,
      task: "ledger-1",
    });
    // the session workspace is gone
    expect(channel.requests[0] && existsSync(channel.requests[0].workspace)).toBe(false);
  });

  test("a cache hit starts no session and costs nothing; a different model misses", async () => {
    const channel = new ScriptedChannel([() => ok("first"), () => ok("other model")]);
    const p = proposer(channel);
    await p.call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    const again = await p.call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    expect(again).toMatchObject({ cached: true, usd: 0, attempts: 0, text: "first" });
    expect(channel.requests).toHaveLength(1);

    const other = new Proposer({
      channel,
      spec: ChannelSpec.parse({ kind: "opencode", model: "local/other" }),
      auditDir: join(runs, "audit"),
      runsRoot: runs,
      backoffS: 0,
      tmpRoot: root,
    });
    const r = await other.call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    expect(r.text).toBe("other model");
    expect(channel.requests).toHaveLength(2);
  });

  test("a change to any evidence byte misses the cache", async () => {
    const channel = new ScriptedChannel([() => ok("a"), () => ok("b")]);
    const p = proposer(channel);
    await p.call("m", evidence, "l");
    writeFileSync(join(evidence, "task.md"), "sum the ledger!\n");
    expect((await p.call("m", evidence, "l")).text).toBe("b");
  });

  test("empty replies are retried and their spend accumulates", async () => {
    const channel = new ScriptedChannel([
      () => ({ text: "  ", usd: 0.1, error: "no answer", timedOut: false }),
      () => ok("second", 0.2),
    ]);
    const r = await proposer(channel).call("m", evidence, "l");
    expect(r.attempts).toBe(2);
    expect(r.usd).toBeCloseTo(0.3, 6);
  });

  test("every failure ends in ProposerError with attempts and spend; it is never cached", async () => {
    const channel = new ScriptedChannel([
      () => ({ text: "", usd: 0.05, error: "rc=1: boom", timedOut: false }),
      () => ({ text: "partial", usd: 0.07, error: "", timedOut: true }),
      () => ok("recovered"),
    ]);
    const sink = new RecordingSink();
    const p = proposer(channel, { sink });
    let caught: unknown;
    try {
      await p.call("m", evidence, "inv2.a1");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProposerError);
    const e = caught as ProposerError;
    expect(e.attempts).toBe(2);
    expect(e.usd).toBeCloseTo(0.12, 6);
    expect(e.message).toContain("timeout after 3600s");
    expect(sink.ofType("proposer.call")[0]?.error).toContain("timeout");
    // the failed call left no response file that could be served later
    const r = await p.call("m", evidence, "inv2.a1");
    expect(r).toMatchObject({ cached: false, text: "recovered" });
  });

  test("a timeout keeps the cause the channel knew, in the error and the recorded call", async () => {
    const cause = "timeout after 3600s; the CLI's last error: HTTP 500: upstream exploded";
    const channel = new ScriptedChannel([
      () => ({ text: "", usd: 0, error: cause, timedOut: true }),
      () => ({ text: "", usd: 0, error: cause, timedOut: true }),
    ]);
    const sink = new RecordingSink();
    const p = proposer(channel, { sink });
    const caught = await p.call("m", evidence, "inv2.a1").catch((err: unknown) => err);
    expect(caught).toBeInstanceOf(ProposerError);
    expect((caught as ProposerError).message).toContain("upstream exploded");
    for (const call of sink.ofType("proposer.call"))
      expect(call.error).toContain("upstream exploded");
  });

  test("a channel that cannot run is not retried", async () => {
    const channel = new ScriptedChannel([
      () => {
        throw new ChannelSetupError("opencode binary not found", "opencode");
      },
      () => ok("never"),
    ]);
    await expect(proposer(channel).call("m", evidence, "l")).rejects.toMatchObject({
      attempts: 1,
      message: expect.stringContaining("opencode binary not found"),
    });
    expect(channel.requests).toHaveLength(1);
  });

  test("a reply without the harvested folder removes a stale workspace and is not a cache hit for harvest", async () => {
    const channel = new ScriptedChannel([
      (req) => {
        rmSync(join(req.workspace, "context", "harness"), { recursive: true, force: true });
        return ok("deleted it");
      },
      () => ok("again"),
    ]);
    const p = proposer(channel);
    const r = await p.call("m", evidence, "l", { harvest: "context/harness" });
    expect(r.workspace).toBeNull();
    const r2 = await p.call("m", evidence, "l", { harvest: "context/harness" });
    expect(r2.cached).toBe(false);
    expect(r2.text).toBe("again");
  });

  test("a symlink left by a session is never followed out of the workspace by the harvest", async () => {
    const secret = join(root, "secret.txt");
    writeFileSync(secret, "outside");
    const channel = new ScriptedChannel([
      (req) => {
        symlinkSync(secret, join(req.workspace, "context", "harness", "leak.md"));
        return ok("linked");
      },
    ]);
    const p = proposer(channel);
    const r = await p.call("m", evidence, "l", { harvest: "context/harness" });
    expect(existsSync(join(r.workspace as string, "leak.md"))).toBe(false);
    expect(existsSync(join(r.workspace as string, "systemprompt.md"))).toBe(true);
    // Reported, so the stage refuses the edit instead of reading leak.md as deleted…
    expect(r.skippedLinks).toEqual(["leak.md"]);
    // …and a cache hit reports it the same way.
    const again = await p.call("m", evidence, "l", { harvest: "context/harness" });
    expect(again.cached).toBe(true);
    expect(again.skippedLinks).toEqual(["leak.md"]);
  });

  test("sessions respect the shared limiter", async () => {
    const limiter = new Limiter(2);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const started: number[] = [];
    const steps = Array.from({ length: 5 }, (_, i) => async () => {
      started.push(i);
      if (started.length === 2) release();
      await gate;
      return ok(`r${i}`);
    });
    const channel = new ScriptedChannel(steps);
    const p = proposer(channel, { limiter, auditDir: null });
    const all = Promise.all([0, 1, 2, 3, 4].map((i) => p.call(`m${i}`, evidence, `l${i}`)));
    await gate;
    expect(limiter.active).toBeLessThanOrEqual(2);
    await all;
    expect(limiter.peak).toBe(2);
  });

  test("an empty model is refused when the proposer is built", () => {
    expect(
      () =>
        new Proposer({
          channel: new ScriptedChannel([]),
          spec: { kind: "opencode", model: "", effort: "high", steps: 120, timeout: 3600 },
          auditDir: null,
          runsRoot: runs,
        }),
    ).toThrow(/HARNESS2_IMPROVER_MODEL/);
  });
});

/** Resolves once `signal` is aborted (at once when it already is). */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return Promise.reject(new Error("the session got no abort signal"));
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true }),
  );
}

/** Every file name under `dir`, recursively (symlinks are listed, not followed). */
function namesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).map(
    (p) => p.split("/").pop() ?? p,
  );
}

describe("Proposer.call interrupted", () => {
  test("a running session gets the abort; the call is not retried, not cached, and its spend counts", async () => {
    const controller = new AbortController();
    const [inSession, entered] = latch();
    const channel = new ScriptedChannel([
      async (req) => {
        entered();
        await aborted(req.signal);
        // a killed session may still leave text behind: it must not become a reply
        return { text: "half a reply", usd: 0.3, error: "signal=SIGTERM", timedOut: false };
      },
      () => ok("fresh"),
    ]);
    const sink = new RecordingSink();
    const p = proposer(channel, { sink });
    const call = p.call("m", evidence, "inv1.a1", {
      harvest: "context/harness",
      maxAttempts: 2,
      signal: controller.signal,
    });
    await inSession;
    controller.abort();
    const err = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InterruptedError);
    expect(err).not.toBeInstanceOf(ProposerError);
    expect((err as InterruptedError).usd).toBeCloseTo(0.3, 6);
    expect(channel.requests).toHaveLength(1); // no retry
    // The session got a signal that follows the sweep's: the user's stop reached it.
    expect(channel.requests[0]?.signal?.aborted).toBe(true);
    const ev = sink.ofType("proposer.call");
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ error: "interrupted", usd: 0.3, cached: false, attempts: 1 });
    const meta = readdirSync(join(runs, "audit")).filter((f) => f.endsWith(".meta.json"));
    expect(meta).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(runs, "audit", meta[0] as string), "utf8")).ok).toBe(false);
    expect(readdirSync(join(runs, "audit")).some((f) => f.endsWith(".response.md"))).toBe(false);
    // the next run of the same call is a fresh session, not the half reply from a cache
    const again = await p.call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    expect(again).toMatchObject({ cached: false, text: "fresh" });
    expect(channel.requests).toHaveLength(2);
  });

  test("a soft stop (the spending cap) lets a running session finish: its reply is recorded and cached", async () => {
    const user = new AbortController();
    const cap = new AbortController();
    const sweep = AbortSignal.any([user.signal, cap.signal]);
    const [inSession, entered] = latch();
    const [finish, release] = latch();
    const channel = new ScriptedChannel([
      async (req) => {
        entered();
        await finish;
        expect(req.signal?.aborted).toBe(false);
        return { text: "a whole reply", usd: 0.2, error: "", timedOut: false };
      },
    ]);
    const sink = new RecordingSink();
    const p = proposer(channel, { sink });
    const call = p.call("m", evidence, "inv1.a1", { signal: sweep });
    await inSession;
    cap.abort(new SoftStop("budget", user.signal));
    release();
    const reply = await call;
    expect(reply).toMatchObject({ text: "a whole reply", cached: false, usd: 0.2 });
    expect(sink.ofType("proposer.call")[0]).toMatchObject({ error: "", usd: 0.2 });
    // Nothing new starts once stopped softly; what was answered is served from the cache.
    const next = await p.call("m", evidence, "inv1.a1", {});
    expect(next.cached).toBe(true);
    await expect(p.call("other", evidence, "dom1.a1", { signal: sweep })).rejects.toBeInstanceOf(
      InterruptedError,
    );
    expect(channel.requests).toHaveLength(1);
  });

  test("a call waiting for a session slot when the cap stops the sweep starts no session", async () => {
    const user = new AbortController();
    const cap = new AbortController();
    const sweep = AbortSignal.any([user.signal, cap.signal]);
    const [inSession, entered] = latch();
    const [finish, release] = latch();
    const channel = new ScriptedChannel([
      async () => {
        entered();
        await finish;
        return { text: "first", usd: 0.1, error: "", timedOut: false };
      },
      () => ok("never"),
    ]);
    const limiter = new Limiter(1);
    const p = proposer(channel, { limiter });
    const first = p.call("m", evidence, "inv1.a1", { signal: sweep });
    await inSession;
    const queued = p.call("m", evidence, "dom1.a1", { signal: sweep });
    // The second call is past its own checks and waits for the one slot when the cap comes.
    while (limiter.waiting === 0) await Bun.sleep(1);
    cap.abort(new SoftStop("budget", user.signal));
    release();
    expect((await first).text).toBe("first");
    await expect(queued).rejects.toBeInstanceOf(InterruptedError);
    expect(channel.requests).toHaveLength(1);
  });

  test("an abort during the back-off ends the call at once, without a second session", async () => {
    const controller = new AbortController();
    const channel = new ScriptedChannel([
      () => ({ text: "", usd: 0.05, error: "rc=1: boom", timedOut: false }),
      () => ok("never"),
    ]);
    const p = proposer(channel, {
      backoffS: 1000,
      // the user presses q while the proposer waits to retry; this sleep never ends by itself
      sleep: () => {
        controller.abort();
        return new Promise<void>(() => {});
      },
    });
    const err = await p
      .call("m", evidence, "l", { maxAttempts: 2, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).usd).toBeCloseTo(0.05, 6);
    expect(channel.requests).toHaveLength(1);
  });

  test("an aborted signal starts no session and serves no cache; one waiting for a slot never starts", async () => {
    const channel = new ScriptedChannel([() => ok("cached"), () => ok("never")]);
    const p = proposer(channel);
    await p.call("m", evidence, "l");
    const done = new AbortController();
    done.abort();
    await expect(p.call("m", evidence, "l", { signal: done.signal })).rejects.toBeInstanceOf(
      InterruptedError,
    );

    const limiter = new Limiter(1);
    const controller = new AbortController();
    const [inSession, entered] = latch();
    const held = new ScriptedChannel([
      async (req) => {
        entered();
        await aborted(req.signal);
        return { text: "", usd: 0, error: "killed", timedOut: false };
      },
      () => ok("never"),
    ]);
    const q = proposer(held, { limiter, auditDir: null });
    const first = q.call("a", evidence, "a", { signal: controller.signal }).catch((e) => e);
    await inSession;
    const second = q.call("b", evidence, "b", { signal: controller.signal }).catch((e) => e);
    // readiness: the second call reaches the limiter and waits for the busy slot
    while (limiter.waiting === 0) await Bun.sleep(1);
    controller.abort();
    expect(await first).toBeInstanceOf(InterruptedError);
    expect(await second).toBeInstanceOf(InterruptedError);
    expect(held.requests).toHaveLength(1);
  });
});

describe("Proposer harvest and symlinks", () => {
  for (const replaced of ["context/harness", "context"]) {
    test(`a session that replaces ${replaced} with a symlink out gets nothing copied: the harness did not come back`, async () => {
      const outside = mkdtempSync(join(root, "outside-"));
      mkdirSync(join(outside, "harness"), { recursive: true });
      writeFileSync(join(outside, "id_rsa"), "PRIVATE KEY");
      writeFileSync(join(outside, "harness", "id_rsa"), "PRIVATE KEY");
      const channel = new ScriptedChannel([
        (req) => {
          const target = join(req.workspace, replaced);
          rmSync(target, { recursive: true, force: true });
          symlinkSync(outside, target);
          return ok("linked the folder");
        },
      ]);
      const r = await proposer(channel).call("m", evidence, "inv1.a1", {
        harvest: "context/harness",
      });
      expect(r.workspace).toBeNull();
      expect(namesUnder(runs)).not.toContain("id_rsa");
      expect(namesUnder(root).filter((n) => n === "id_rsa")).toHaveLength(2); // only the originals
    });
  }
});

describe("Proposer cache key (docs/differences.md E25, E27)", () => {
  const withSpec = (channel: Channel, spec: Record<string, unknown>) =>
    proposer(channel, {
      spec: ChannelSpec.parse({ kind: "opencode", model: "local/mock", ...spec }),
    });

  test("a different effort or a different steps misses the cache; the same settings hit", async () => {
    const channel = new ScriptedChannel([() => ok("high"), () => ok("low"), () => ok("few steps")]);
    const call = (spec: Record<string, unknown>) =>
      withSpec(channel, spec).call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    expect((await call({ effort: "high", steps: 120 })).text).toBe("high");
    expect(await call({ effort: "high", steps: 120 })).toMatchObject({
      cached: true,
      text: "high",
    });
    expect(await call({ effort: "low", steps: 120 })).toMatchObject({ cached: false, text: "low" });
    expect(await call({ effort: "high", steps: 30 })).toMatchObject({
      cached: false,
      text: "few steps",
    });
    expect(channel.requests).toHaveLength(3);
    expect(channel.requests.map((r) => [r.effort, r.steps])).toEqual([
      ["high", 120],
      ["low", 120],
      ["high", 30],
    ]);
  });

  test("moving the whole runs folder elsewhere keeps the cache hits", async () => {
    const channel = new ScriptedChannel([
      (req) => {
        writeFileSync(join(req.workspace, "context", "harness", "systemprompt.md"), "edited\n");
        return ok("first");
      },
      () => ok("paid again"),
    ]);
    await proposer(channel).call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    const moved = join(root, "elsewhere", "runs");
    mkdirSync(join(root, "elsewhere"));
    renameSync(runs, moved);
    const p = proposer(channel, { auditDir: join(moved, "audit"), runsRoot: moved });
    const again = await p.call("m", join(moved, "ns", "task", "context", "inv1"), "inv1.a1", {
      harvest: "context/harness",
    });
    expect(again).toMatchObject({ cached: true, text: "first", usd: 0 });
    expect(again.workspace?.startsWith(moved)).toBe(true);
    expect(readFileSync(join(again.workspace as string, "systemprompt.md"), "utf8")).toBe(
      "edited\n",
    );
    expect(channel.requests).toHaveLength(1);
  });

  test("a failed call leaves an earlier good response.md of the same key untouched", async () => {
    const channel = new ScriptedChannel([
      (req) => {
        // A good reply that lost its harness: kept in the audit, not a cache hit for a harvest.
        rmSync(join(req.workspace, "context", "harness"), { recursive: true, force: true });
        return ok("the good reply");
      },
      () => ({ text: "", usd: 0.01, error: "rc=1: boom", timedOut: false }),
      () => ({ text: "", usd: 0.01, error: "rc=1: boom", timedOut: false }),
    ]);
    const p = proposer(channel);
    const first = await p.call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    expect(first.workspace).toBeNull();
    await expect(
      p.call("m", evidence, "inv1.a1", { harvest: "context/harness" }),
    ).rejects.toBeInstanceOf(ProposerError);
    expect(channel.requests).toHaveLength(3); // the second call was not served from the cache
    expect(readFileSync(first.audit, "utf8")).toBe("the good reply");
    const meta = JSON.parse(
      readFileSync(first.audit.replace(/response\.md$/, "meta.json"), "utf8"),
    );
    expect(meta).toMatchObject({ ok: false, error: "rc=1: boom" });
  });
});

describe("Proposer after a good reply (docs/differences.md E31): local failures start no second session", () => {
  test("a harvest that fails ends in ProposerError at once, its spend counted once", async () => {
    const auditPath = join(runs, "audit");
    const channel = new ScriptedChannel([
      () => {
        // The audit folder is unusable once the session answers (a stand-in for a full disk):
        // the harvest and the audit both fail.
        writeFileSync(auditPath, "not a folder");
        return ok("answered", 0.25);
      },
      () => {
        rmSync(auditPath, { force: true });
        return ok("paid again", 0.25);
      },
    ]);
    const sink = new RecordingSink();
    let caught: unknown;
    try {
      await proposer(channel, { sink }).call("m", evidence, "inv1.a1", {
        harvest: "context/harness",
      });
    } catch (err) {
      caught = err;
    }
    expect(channel.requests).toHaveLength(1);
    expect(caught).toBeInstanceOf(ProposerError);
    const e = caught as ProposerError;
    expect(e.attempts).toBe(1);
    expect(e.usd).toBe(0.25);
    expect(e.message).toContain("could not be copied out");
    expect(e.message).toContain("no new session was started");
    const events = sink.ofType("proposer.call");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ usd: 0.25, attempts: 1, cached: false, auditPath: "" });
    expect(events[0]?.error).toContain("audit not written");
  });

  test("an audit write that fails still returns the reply with its harvest, and caches nothing", async () => {
    const p0 = proposer(new ScriptedChannel([]));
    const stem = auditStem("inv1.a1", await p0.cacheKey("inv1.a1", "m", "", evidence));
    const blocker = join(runs, "audit", `${stem}.mission.md`);
    const channel = new ScriptedChannel([
      (req) => {
        mkdirSync(blocker, { recursive: true }); // writing the mission file fails
        writeFileSync(join(req.workspace, "context", "harness", "systemprompt.md"), "edited\n");
        return ok("answered", 0.3);
      },
      () => {
        rmSync(blocker, { recursive: true, force: true });
        return ok("paid again", 0.3);
      },
    ]);
    const sink = new RecordingSink();
    const p = proposer(channel, { sink });
    const reply = await p.call("m", evidence, "inv1.a1", { harvest: "context/harness" });
    expect(channel.requests).toHaveLength(1);
    expect(reply).toMatchObject({ text: "answered", usd: 0.3, attempts: 1, audit: "" });
    expect(readFileSync(join(reply.workspace as string, "systemprompt.md"), "utf8")).toBe(
      "edited\n",
    );
    expect(sink.ofType("proposer.call")[0]?.error).toMatch(/^audit not written: .*EISDIR/);
    expect(existsSync(join(runs, "audit", `${stem}.meta.json`))).toBe(false);
  });
});
