// The stage table of one mode of the focused task: each improvement stage's label, dimension,
// state (a spinner while it runs), proposer attempts, cost, cache use, kept base, fell back and
// the first line of its error. Pure function of its props.

import { Box, Text } from "ink";
import { SPINNER_STILL } from "../../components/Spinner.tsx";
import { type Cell, type Column, Table } from "../../components/Table.tsx";
import { toneProps } from "../../components/theme.ts";
import { formatUsd } from "../derive.ts";
import { MODE_NAME } from "../log-line.ts";
import type { ModeLive, StageRow } from "../view-model.ts";

export type StageTableProps = {
  mode: ModeLive;
  /** Stage rows that fit (older rows are summarised in one line); 0 folds the table away. */
  maxRows: number;
  /** Spinners turn (false: tests and final frames draw a still one). */
  animate: boolean;
  color: boolean;
  width: number;
  /** The task's base rollouts are running (a waiting mode is then in its "bases" phase). */
  basesRunning?: boolean;
};

export function stateCell(row: StageRow): Cell {
  switch (row.state) {
    case "running":
      return { text: `${SPINNER_STILL} running`, tone: "running", spinner: true };
    case "ok":
      return { text: "✔ ok", tone: "ok" };
    case "kept base":
      return { text: "= kept base", tone: "accent" };
    case "fell back":
      return { text: "↩ fell back", tone: "warn" };
  }
}

function columns(): Column<StageRow>[] {
  return [
    { header: "stage", cell: (r) => r.label, max: 12 },
    { header: "dim", cell: (r) => r.dim },
    { header: "state", cell: (r) => stateCell(r) },
    { header: "att", cell: (r) => (r.attempts === null ? "" : String(r.attempts)), align: "right" },
    { header: "cost", cell: (r) => (r.usd === null ? "" : formatUsd(r.usd)), align: "right" },
    { header: "cached", cell: (r) => (r.cached ? "cached" : "") },
    { header: "kept base", cell: (r) => (r.keptBase ? "yes" : "") },
    {
      header: "fell back",
      cell: (r) => (r.fellBack ? { text: "yes", tone: "warn" } : ""),
    },
    { header: "error", cell: (r) => ({ text: r.error, tone: "error" }), shrink: true, max: 80 },
  ];
}

const COLUMNS = columns();

/** "6 stages: 4 ok, 1 fell back, 1 running" for a folded table. */
export function stageSummary(stages: StageRow[]): string {
  const counts = new Map<string, number>();
  for (const r of stages) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  const parts = [...counts].map(([state, n]) => `${n} ${state}`);
  return `${stages.length} stage(s): ${parts.join(", ")}`;
}

export function StageTable({
  mode,
  maxRows,
  animate,
  color,
  width,
  basesRunning = false,
}: StageTableProps) {
  const folded = maxRows <= 0 || mode.stages.length === 0;
  const hidden = folded ? mode.stages.length : Math.max(0, mode.stages.length - maxRows);
  const rows = mode.stages.slice(hidden);
  // A mode waits for the task's shared base rollouts first: that phase is called "bases".
  const status =
    mode.status === "running"
      ? `phase ${mode.phase ?? "starting"}`
      : mode.status === "waiting"
        ? basesRunning
          ? "phase bases"
          : "waiting"
        : mode.status;
  const tone =
    mode.status === "ok"
      ? "ok"
      : mode.status === "degraded"
        ? "warn"
        : mode.status === "failed"
          ? "error"
          : "accent";
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text {...toneProps(color, "strong")}>{MODE_NAME[mode.mode]}</Text>
        {" · "}
        <Text {...toneProps(color, tone)}>{status}</Text>
        {mode.usd > 0 ? ` · ${formatUsd(mode.usd)}` : ""}
        {folded && mode.stages.length > 0 ? (
          <Text {...toneProps(color, "dim")}> · {stageSummary(mode.stages)}</Text>
        ) : null}
        {mode.error ? <Text {...toneProps(color, "error")}> — {mode.error}</Text> : null}
      </Text>
      {folded ? null : (
        <>
          {hidden > 0 ? (
            <Text {...toneProps(color, "dim")}> … {hidden} earlier stage(s)</Text>
          ) : null}
          <Table
            columns={COLUMNS}
            animate={animate}
            rows={rows}
            color={color}
            width={width}
            rowKey={(r) => r.label}
          />
        </>
      )}
    </Box>
  );
}
