// The live view's header: which sweep (id, benchmark, substrate, k, modes, seed), how long it has
// run, what it has spent, and how far it is (tasks ok/failed/skipped of total, a bar, an ETA).

import { Box, Text } from "ink";
import { capShare, type SpendCap } from "../../../src/core/events/spend-cap.ts";
import { formatUsd as usdText } from "../../../src/core/lib/format.ts";
import { Bar } from "../../components/Bar.tsx";
import { toneProps } from "../../components/theme.ts";
import type { Progress } from "../derive.ts";
import { formatDuration, formatUsd } from "../derive.ts";
import { MODE_NAME } from "../log-line.ts";
import type { LiveState, SweepHeader } from "../view-model.ts";

export type HeaderProps = {
  sweep: SweepHeader | null;
  /** Shown until sweep.started arrives (e.g. "demo"). */
  sweepLabel: string;
  counts: LiveState["counts"];
  spend: LiveState["spend"];
  progress: Progress;
  color: boolean;
  width: number;
};

/** Plain below 80 % of the cap, warn from 80 %, error once reached. */
function capTone(cap: SpendCap, spend: LiveState["spend"]): "warn" | "error" | undefined {
  const pct = capShare(cap, spend.improverUsd + spend.executorUsd)?.pct ?? 0;
  return pct >= 100 ? "error" : pct >= 80 ? "warn" : undefined;
}

/** "cap $1.50/$2.00 (75%)": the experiment's spend, earlier runs included, against its cap. */
function capText(cap: SpendCap, spend: LiveState["spend"]): string {
  const share = capShare(cap, spend.improverUsd + spend.executorUsd);
  const tokens = cap.tokens === undefined ? "" : `token cap ${cap.tokens.toLocaleString("en-US")}`;
  if (share === null) return tokens;
  const usd = `cap ${usdText(share.spent)}/${usdText(cap.usd ?? 0)} (${share.pct}%)`;
  return tokens === "" ? usd : `${usd} · ${tokens}`;
}

export function Header({ sweep, sweepLabel, counts, spend, progress, color, width }: HeaderProps) {
  if (!sweep) {
    return (
      <Box flexDirection="column">
        <Text wrap="truncate">
          <Text {...toneProps(color, "strong")}>harness2</Text> {sweepLabel} — starting…
        </Text>
      </Box>
    );
  }
  const modes = sweep.modes.map((m) => MODE_NAME[m]).join("+");
  const state = sweep.finished
    ? { text: sweep.finished.status, tone: sweep.finished.status === "ok" ? "ok" : "error" }
    : { text: "running", tone: "running" };
  const pct = `${Math.floor(progress.fraction * 100)}%`;
  const eta =
    sweep.finished || progress.etaS === null ? "" : `  ETA ${formatDuration(progress.etaS)}`;
  const barWidth = Math.max(10, Math.min(30, width - 70));
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text {...toneProps(color, "strong")}>harness2</Text> {sweep.id} · {sweep.bench}/
        {sweep.substrate} · k={sweep.ks.join(",")} · {modes} · seed {sweep.seed ?? "none"}
        {sweep.tag ? ` · tag ${sweep.tag}` : ""}
      </Text>
      <Text wrap="truncate">
        tasks <Text {...toneProps(color, "ok")}>{counts.ok} ok</Text>
        {" · "}
        <Text {...toneProps(color, counts.failed > 0 ? "error" : undefined)}>
          {counts.failed} failed
        </Text>
        {" · "}
        {counts.skipped} skipped of {counts.total}{" "}
        <Bar
          value={progress.done}
          max={progress.total}
          width={barWidth}
          color={color}
          tone="accent"
        />{" "}
        {pct}
        {eta}
      </Text>
      <Text wrap="truncate">
        <Text {...toneProps(color, state.tone as "ok" | "error" | "running")}>{state.text}</Text>
        {" · "}elapsed {formatDuration(progress.elapsedS)} · spend improver{" "}
        {formatUsd(spend.improverUsd)} · executor {formatUsd(spend.executorUsd)}
        {sweep.cap === null ? null : (
          <Text {...toneProps(color, capTone(sweep.cap, spend))}>
            {" · "}
            {capText(sweep.cap, spend)}
          </Text>
        )}
      </Text>
    </Box>
  );
}
