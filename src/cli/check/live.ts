// `harness2 check --live`: one tiny request to the improver model and to the solver model through
// their real channels, so a bad model id or missing quota shows before a sweep spends anything.

import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { Channel } from "../../core/seams/channel.ts";
import type { Report } from "./report.ts";

export const LIVE_TIMEOUT_S = 120;
export const LIVE_PROMPT =
  "This is a connectivity check. Reply with the single word OK and nothing else.";
// ── live ─────────────────────────────────────────────────────────────────────────────────────

export function usdText(usd: number): string {
  return `$${usd.toFixed(6)}`;
}

export async function liveImprover(
  report: Report,
  env: Record<string, string | undefined>,
  config: RunConfig,
  scratch: string,
): Promise<void> {
  const model = config.improverModel;
  const kind = config.improverChannel;
  const subject = `improver ${model} (${kind})`;
  let channel: Channel;
  try {
    const { makeChannel } = await import("../../channels/make-channel.ts");
    channel = await makeChannel(kind, env, model);
  } catch (err) {
    const e = err as { reason?: string; hint?: string; message: string };
    report.line("FAIL", subject, e.reason ?? e.message, e.hint ?? "see the message");
    return;
  }
  const root = mkdtempSync(join(scratch, "improver-"));
  const started = performance.now();
  const result = await channel.run({
    workspace: join(root, "work"),
    context: null,
    sessionDir: join(root, "session"),
    mission: LIVE_PROMPT,
    system: "",
    model,
    effort: config.proposerEffort,
    steps: 3,
    timeoutS: LIVE_TIMEOUT_S,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.text.trim() === "") {
    report.line(
      "FAIL",
      subject,
      `no answer after ${seconds} s: ${result.error || "empty reply"}`,
      fixFor(result.error),
    );
    return;
  }
  report.line("live", subject, `answered in ${seconds} s, cost ${usdText(result.usd)}`);
}

export async function liveSolver(
  report: Report,
  env: Record<string, string | undefined>,
  config: RunConfig,
  scratch: string,
): Promise<void> {
  const model = config.solverModel;
  const subject = `solver ${model} (opencode executor)`;
  const { OpencodeSolver, isolateWorkspace } = await import("../../substrate/opencode/execute.ts");
  const { materialise } = await import("../../substrate/opencode/materialise.ts");
  const { OPENCODE_BASELINE_TREE, OPENCODE_SURFACE } = await import(
    "../../substrate/opencode/surface.ts"
  );
  const { writeTree } = await import("../../core/harness/tree.ts");
  const root = mkdtempSync(join(scratch, "solver-"));
  const harness = writeTree(OPENCODE_SURFACE, { ...OPENCODE_BASELINE_TREE }, join(root, "harness"));
  const workspace = join(root, "workspace");
  await materialise(harness, workspace, { model, steps: 3 });
  await isolateWorkspace(workspace, env);
  const solver = new OpencodeSolver({ env });
  const started = performance.now();
  const outcome = await solver.runSession({
    workspace,
    sessionDir: join(root, "session"),
    model,
    prompt: LIVE_PROMPT,
    timeoutS: LIVE_TIMEOUT_S,
    streamFile: join(root, "opencode.jsonl"),
    stderrFile: join(root, "opencode.stderr.log"),
    title: "harness2 check",
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const { exit } = outcome;
  const answered = exit.code === 0 && outcome.texts.some((t) => t.trim() !== "");
  if (!answered) {
    const why = exit.timedOut
      ? `no answer within ${LIVE_TIMEOUT_S} s (OpenCode retries a failing provider until stopped)`
      : outcome.errors.join("; ") ||
        exit.stderrTail.trim().slice(-300) ||
        `exit ${exit.code ?? exit.signal}`;
    report.line("FAIL", subject, `no answer: ${why}`, fixFor(exit.timedOut ? "" : why));
    return;
  }
  report.line("live", subject, `answered in ${seconds} s, cost ${usdText(outcome.usd)}`);
}

/**
 * The fix a failed live request points at, read from what came back: a refused credential, an
 * unknown model, an endpoint that never answered, or an endpoint that answered and refused this
 * request for a reason of its own (its message is the line's text), which is neither of the
 * first three — `run` would meet the same refusal.
 */
export function fixFor(error: string): string {
  const e = error.toLowerCase();
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden|api[ _-]?key|credential|authenticat/.test(e)) {
    return "check the provider's credentials (its API key variable) for this model";
  }
  if (/\b404\b|model[^.]*not (found|exist)|unknown model|no such model|model_not_found/.test(e)) {
    return "check the model id (provider/model) against the provider's list";
  }
  if (
    /econnrefused|enotfound|fetch failed|connect|timed? ?out|unreachable|socket/.test(e) ||
    e === ""
  ) {
    return "check the endpoint: nothing answered there in time (its URL, and that it is running)";
  }
  return "the endpoint answered and refused the request: its message above says why (run would meet the same)";
}
