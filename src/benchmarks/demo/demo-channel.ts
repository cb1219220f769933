// The demo's scripted improver: a real Channel (not a fake Proposer), so the demo runs the whole
// proposer loop — workspace, harvest, cache, audit. It reads only what a model would read (the
// evidence under `context/`) and answers deterministically; it never sees a score.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Harness2Error } from "../../core/lib/errors.ts";
import type { Channel, ChannelRequest, ChannelResult } from "../../core/seams/channel.ts";
import { ledgerTotal } from "./demo-adapter.ts";

const SCRIPT = "harness/scripts/summarize.py";
/** The base script's bug: the filter that drops refunds and fees. */
const BUGGY = /\n([ \t]*)if amount > 0:\n[ \t]*total \+= amount\n/;

/**
 * `HARNESS2_DEMO_CALL_USD`: what each scripted improver session reports it cost (default 0), so
 * the spending cap and the spend columns can be tried offline. Refused unless a finite amount ≥ 0.
 */
export const DEMO_CALL_USD = "HARNESS2_DEMO_CALL_USD";

export function demoCallUsd(env: Record<string, string | undefined>): number {
  const raw = env[DEMO_CALL_USD]?.trim();
  if (raw === undefined || raw === "") return 0;
  const usd = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || !Number.isFinite(usd)) {
    throw new DemoSettingError(
      `${DEMO_CALL_USD}=${raw} is not an amount of dollars: set a number ≥ 0 (e.g. 0.01) or unset it`,
    );
  }
  return usd;
}

/** A demo setting that cannot be used; the CLI prints its message (exit 1). */
export class DemoSettingError extends Harness2Error {}

export class DemoChannel implements Channel {
  readonly kind = "demo";
  readonly #callUsd: number;

  constructor(opts: { callUsd?: number } = {}) {
    this.#callUsd = opts.callUsd ?? 0;
  }

  /** In-process: it reads the evidence where it is and edits its own copy of the harness. */
  readonly workspace = "in-place" as const;
  /** Sessions this channel actually ran (cache hits never reach a channel). */
  sessions = 0;

  async run(req: ChannelRequest): Promise<ChannelResult> {
    this.sessions++;
    const result = await this.#answer(req);
    return { ...result, usd: this.#callUsd };
  }

  async #answer(req: ChannelRequest): Promise<ChannelResult> {
    const context = req.context;
    if (context === null) return reply("", "no evidence was given");
    if (existsSync(join(context, "candidates"))) return this.#select(context);
    if (existsSync(join(context, "base_harness"))) return this.#reflect(context);
    // The edit goes to the session's own copy of the harness, never to the evidence.
    return this.#propose(join(req.workspace, "context"));
  }

  /** An improvement stage: keep signed amounts in the harness script (the workspace's copy). */
  #propose(editable: string): ChannelResult {
    const path = join(editable, SCRIPT);
    if (!existsSync(path)) {
      return reply("", "context/harness/scripts/summarize.py is not in the evidence");
    }
    const before = readFileSync(path, "utf8");
    const after = before.replace(BUGGY, "\n$1total += amount\n");
    if (after !== before) {
      writeFileSync(path, after);
      return reply(
        [
          "<notes>",
          "- revised scripts/summarize.py: the rollouts printed a total that ignored the negative",
          "  amounts (refunds and fees) in ledger.csv; the script now sums signed amounts.",
          "</notes>",
        ].join("\n"),
      );
    }
    return reply(
      "<notes>\n- kept scripts/summarize.py: it already sums signed amounts.\n</notes>\nKEEP_BASE",
    );
  }

  /** Blind selection: the candidate whose total matches the source ledger's signed sum. */
  #select(context: string): ChannelResult {
    const ledger = join(context, "source", "ledger.csv");
    if (!existsSync(ledger)) return reply("", "context/source/ledger.csv is not in the evidence");
    const want = `Total: ${ledgerTotal(readFileSync(ledger, "utf8"))}`;
    const dir = join(context, "candidates");
    const ids = readdirSync(dir)
      .filter((name) => name.endsWith(".md") && statSync(join(dir, name)).isFile())
      .map((name) => name.slice(0, -3))
      .sort();
    const match = ids.find((id) => readFileSync(join(dir, `${id}.md`), "utf8").includes(want));
    if (match === undefined) {
      return reply(
        `<why>No candidate reports ${want}, the signed sum of the source ledger.</why>\nNo choice.`,
      );
    }
    return reply(
      [
        `<why>Candidate ${match} reports ${want}, which equals the signed sum of every amount in`,
        "context/source/ledger.csv; the others leave out refunds or fees.</why>",
        "",
        "```choice",
        match,
        "```",
      ].join("\n"),
    );
  }

  /** Reflection: a lesson when the adopted harness differs from the base, else NO_ENTRY. */
  #reflect(context: string): ChannelResult {
    const adopted = join(context, SCRIPT);
    const base = join(context, "base_harness", "scripts", "summarize.py");
    const changed =
      existsSync(adopted) &&
      existsSync(base) &&
      readFileSync(adopted, "utf8") !== readFileSync(base, "utf8");
    if (!changed) return reply("Nothing was adopted beyond the base harness. NO_ENTRY");
    return reply(
      [
        "<edits>",
        "component: scripts/summarize.py",
        "candidates: every final candidate",
        "change: removed the filter that skipped amounts below zero",
        "observed: the printed total matched the signed sum of the ledger",
        "verdict: helped",
        "</edits>",
        "",
        "<experience>",
        "cue: a ledger holds refunds or fees as negative amounts",
        "lesson: total every amount with its sign; a helper that keeps only positive amounts overstates the total",
        "evidence: the base rollouts printed a larger total than the signed sum of context/source/ledger.csv; the adopted script's rollouts printed the signed sum",
        "confidence: high — every rollout of the edited script agreed with the source",
        "</experience>",
      ].join("\n"),
    );
  }
}

function reply(text: string, error = ""): ChannelResult {
  return { text, usd: 0, error, timedOut: false };
}
