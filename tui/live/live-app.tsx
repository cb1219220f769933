// The live run view's one container: it owns the view state (through the frame batcher's reducer),
// the clock, the keys and the terminal size, and lays the pure components out to fit the screen.
// It never talks to the method except through onStopRequest / onForceStop.

import { Box, Static, Text, useInput, useStdin, useWindowSize } from "ink";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { ModeToken } from "../../src/core/events/registry.ts";
import { toneProps } from "../components/theme.ts";
import type { FrameBatcher } from "./batcher.ts";
import { EventLog } from "./components/EventLog.tsx";
import { FinishedTaskRow } from "./components/FinishedTaskRow.tsx";
import { Footer } from "./components/Footer.tsx";
import { Header } from "./components/Header.tsx";
import { Lanes } from "./components/Lanes.tsx";
import { LedgerCounters } from "./components/LedgerCounters.tsx";
import { LiveHelp } from "./components/LiveHelp.tsx";
import { Selections } from "./components/Selections.tsx";
import { StageTable } from "./components/StageTable.tsx";
import { TripwireAlerts } from "./components/TripwireAlerts.tsx";
import { focusedTask, progress } from "./derive.ts";
import type { FinishedRow, LiveState, TaskLive } from "./view-model.ts";

export type LiveAppProps = {
  batcher: FrameBatcher;
  /** What to call the run before sweep.started arrives ("demo", "run"). */
  sweepLabel: string;
  color: boolean;
  /** First `q`: finish nothing new; the caller leaves in-flight work to resume. */
  onStopRequest: () => void;
  /** Second `q` or Ctrl-C: stop at once. */
  onForceStop: () => void;
  /** Milliseconds since the epoch (tests pass a fixed clock). */
  clock?: () => number;
  /** The clock's tick (elapsed time, ETA); 0 turns the clock and the spinners off (tests). */
  tickMs?: number;
};

/** Finished rows handed to one <Static>; then it is replaced, so no list grows without end. */
const STATIC_EPOCH = 64;
/**
 * The clock only moves elapsed time and the ETA, shown in seconds. Spinners are ink-spinner's,
 * each on its own timer; Ink's maxFps (30, set in start.ts) caps the frames they cause.
 */
const CLOCK_MS = 1000;

export type Layout = {
  alerts: number;
  lanes: number;
  /** Stage rows per mode of the focused task; 0 = the table is folded to its title line. */
  stageRows: Partial<Record<ModeToken, number>>;
  logLines: number;
};

/**
 * How many lines each part may take on a screen of `rows` lines, so the live area never scrolls.
 * Lanes and the log get a share first; stage tables take the rest, and fold to one line each
 * when even one row would not fit.
 */
export function layout(state: LiveState, rows: number, focus: TaskLive | null): Layout {
  // Header 3, footer 1, one spare line, and the margins above the lanes and the focused task.
  let left = Math.max(12, rows) - 7;
  const nAlerts = state.tripwires.alerts.length;
  const alerts = nAlerts > 0 ? Math.min(nAlerts, Math.max(1, Math.floor(left / 6))) : 0;
  if (alerts > 0) left -= alerts + 3 + (nAlerts > alerts || state.tripwires.overflow > 0 ? 1 : 0);
  const lanes = Math.min(state.lanes.length, Math.max(1, Math.floor(left / 5)));
  left -= lanes;
  const modes = focus?.modes ?? [];
  // Focus title; per mode its table title and ledger line; a line per selection made.
  const focusMin =
    modes.length > 0 ? 1 + modes.length * 2 + modes.filter((m) => m.selection).length : 0;
  left -= focusMin;
  const logLines = state.showLog ? Math.max(1, Math.floor((left - 2) / 3)) : 0;
  if (state.showLog) left -= logLines + 2; // its margin and title
  const stageRows: Layout["stageRows"] = {};
  if (modes.length === 0) return { alerts, lanes, stageRows, logLines };
  // An open table costs its header, its rule, and a line saying how many rows were cut.
  let open = modes.filter((m) => m.stages.length > 0);
  let per = open.length > 0 ? Math.floor(left / open.length) - 3 : 0;
  if (per < 1 && open.length > 1) {
    const pick = open.find((m) => m.status === "running") ?? open[open.length - 1];
    open = pick ? [pick] : [];
    per = left - 3;
  }
  if (per < 1) open = [];
  for (const m of modes) stageRows[m.mode] = open.includes(m) ? per : 0;
  return { alerts, lanes, stageRows, logLines };
}

export function LiveApp({
  batcher,
  sweepLabel,
  color,
  onStopRequest,
  onForceStop,
  clock = Date.now,
  tickMs = CLOCK_MS,
}: LiveAppProps) {
  const state = useSyncExternalStore(batcher.subscribe, batcher.getState);
  const { columns, rows } = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const [now, setNow] = useState(clock);
  const stopLevel = useRef<LiveState["stop"]>("none");
  const finished = state.sweep?.finished != null;

  useEffect(() => {
    if (tickMs <= 0 || finished) return;
    const id = setInterval(() => setNow(clock()), tickMs);
    return () => clearInterval(id);
  }, [tickMs, finished, clock]);

  useInput(
    (input, key) => {
      // Stopping costs paid work in flight, so it is never one key: the first q (or Ctrl-C)
      // asks, the second stops (running work is cancelled, finished work kept), a third stops
      // at once. Any other key answers the question with "go on". A ref, not the rendered
      // state: a second key may arrive before the first is drawn.
      const level = stopLevel.current;
      const stopKey = input === "q" || (key.ctrl && input === "c");
      if (stopKey) {
        const next = level === "none" ? "asking" : level === "asking" ? "requested" : "forced";
        stopLevel.current = next;
        batcher.dispatch({ type: "ui.stop", level: next });
        if (next === "requested") onStopRequest();
        if (next === "forced") onForceStop();
        return;
      }
      if (level === "asking") {
        stopLevel.current = "none";
        batcher.dispatch({ type: "ui.stop", level: "none" });
        return;
      }
      if ((key.tab && !key.shift) || key.rightArrow) {
        batcher.dispatch({ type: "ui.focus", delta: 1 });
      } else if ((key.tab && key.shift) || key.leftArrow) {
        batcher.dispatch({ type: "ui.focus", delta: -1 });
      } else if (input === "l") {
        batcher.dispatch({ type: "ui.log.toggle" });
      } else if (input === "a") {
        batcher.dispatch({ type: "ui.tripwires.ack" });
      } else if (input === "?") {
        setHelp((h) => !h);
      }
    },
    { isActive: isRawModeSupported },
  );

  const [help, setHelp] = useState(false);
  const [staticBase, setStaticBase] = useState(0);
  const staticRows = state.finished.rows.filter((r) => r.seq > staticBase);
  const lastStatic = staticRows.at(-1)?.seq ?? staticBase;
  useEffect(() => {
    // Every row up to lastStatic is on screen now; start a fresh <Static> for the next ones.
    if (lastStatic - staticBase >= STATIC_EPOCH) setStaticBase(lastStatic);
  }, [lastStatic, staticBase]);

  const focus = focusedTask(state);
  const width = Math.max(40, columns);
  const fit = layout(state, rows, focus);
  const animate = tickMs > 0 && !finished;
  const alerts = state.tripwires.alerts;
  const shownAlerts = alerts.slice(alerts.length - fit.alerts);
  return (
    <>
      <Static key={staticBase} items={staticRows}>
        {(row: FinishedRow) => <FinishedTaskRow key={row.seq} row={row} color={color} />}
      </Static>
      <Box flexDirection="column" width={width}>
        <Header
          sweep={state.sweep}
          sweepLabel={sweepLabel}
          counts={state.counts}
          spend={state.spend}
          progress={progress(state, now)}
          color={color}
          width={width}
        />
        <TripwireAlerts
          alerts={shownAlerts}
          overflow={state.tripwires.overflow + alerts.length - shownAlerts.length}
          color={color}
        />
        <Box marginTop={1}>
          <Lanes
            lanes={state.lanes}
            tasks={state.tasks}
            focusKey={state.tasks.length > 0 ? (focus?.key ?? null) : null}
            maxLines={fit.lanes}
            animate={animate}
            color={color}
            width={width}
          />
        </Box>
        {focus ? (
          <Box flexDirection="column" marginTop={1}>
            <Text wrap="truncate">
              <Text {...toneProps(color, "accent")}>
                {focus.status === "running" ? "▶ focused" : `last finished (${focus.status})`}
              </Text>{" "}
              <Text {...toneProps(color, "strong")}>{focus.task}</Text> k={focus.k} in{" "}
              {focus.domain}
              {state.tasks.length > 1 ? ` — task ${taskPosition(state, focus.key)}` : ""}
            </Text>
            {focus.modes.map((m) => (
              <StageTable
                key={m.mode}
                mode={m}
                basesRunning={focus.rollouts.bases > 0}
                maxRows={fit.stageRows[m.mode] ?? 0}
                animate={animate}
                color={color}
                width={width}
              />
            ))}
            <LedgerCounters modes={focus.modes} color={color} width={width} />
            <Selections modes={focus.modes} color={color} />
          </Box>
        ) : null}
        {state.showLog ? (
          <Box marginTop={1}>
            <EventLog lines={state.log.lines} maxLines={fit.logLines} color={color} />
          </Box>
        ) : null}
        {help ? <LiveHelp color={color} /> : null}
        <Footer
          stop={state.stop}
          showLog={state.showLog}
          hasAlerts={alerts.length > 0}
          canFocus={state.tasks.length > 1}
          finished={finished}
          color={color}
        />
      </Box>
    </>
  );
}

function taskPosition(state: LiveState, key: string): string {
  const i = state.tasks.findIndex((t) => t.key === key);
  return `${i + 1} of ${state.tasks.length} in flight`;
}
