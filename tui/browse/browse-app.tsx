// The run browser's one container: owns navigation (a reducer over keys), reads what the current
// screen needs from the BrowseSource, and fits it to the terminal. Keyboard only; read-only.

import { dirname, join } from "node:path";
import { Box, Text, useInput, useStdin, useWindowSize } from "ink";
import { useEffect, useMemo, useReducer, useRef, useState } from "react";
import type { SweepDetail, TaskView } from "../../store/views.ts";
import { type Line, LineView, line, maxOffset, ScrollView } from "../components/Lines.tsx";
import { toneProps } from "../components/theme.ts";
import { HELP_LINES, libraryLines } from "./library-lines.ts";
import {
  current,
  type NavAction,
  navigate,
  type Screen,
  type SweepTab,
  screenKey,
  startAt,
  windowOf,
} from "./nav.ts";
import {
  modeName,
  sweepHeaderLines,
  sweepsLines,
  type TaskItem,
  taskScreen,
  tasksLines,
} from "./screens.ts";
import type { BrowseSource } from "./source.ts";
import { parentDir, parentLabel, selectionLines, stageLines } from "./stage-screens.ts";

export type BrowseAppProps = {
  source: BrowseSource;
  color: boolean;
  /** Open this sweep first (Esc goes back to the list). */
  initialSweep?: string;
  onQuit: () => void;
};

/** What one screen puts on the terminal and what its keys do. */
type View = {
  crumbs: string;
  /** Lines above the body that never scroll. */
  head: Line[];
  body: Line[];
  /** list: the cursor picks an item; scroll: the body scrolls. */
  kind: "list" | "scroll";
  /** For lists: how many items, and on which body line the cursor's item sits. */
  count: number;
  cursorLine: number;
  offset: number;
  open: (index: number) => Screen | null;
  tabs: SweepTab[];
  tab?: SweepTab;
};

function attempt<T>(read: () => T): { value: T } | { error: string } {
  try {
    return { value: read() };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** A screen that only scrolls: no items to open, no tabs. */
const scrollView = (crumbs: string, body: Line[], offset = 0): View => ({
  crumbs,
  head: [],
  body,
  kind: "scroll",
  count: 0,
  cursorLine: 0,
  offset,
  open: () => null,
  tabs: [],
});

const noView = (crumbs: string, message: string): View =>
  scrollView(crumbs, [line(message, "warn")]);

export function BrowseApp({ source, color, initialSweep, onQuit }: BrowseAppProps) {
  const [nav, dispatch] = useReducer(navigate, initialSweep, startAt);
  const [reloads, setReloads] = useState(0);
  const { columns, rows } = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const width = Math.max(40, columns);
  const top = current(nav);
  const sweepId = "sweepId" in top ? top.sweepId : null;

  // Reads are keyed by what they depend on, and redone on `r` (reloads).
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads forces a fresh read
  const sweeps = useMemo(
    () => (top.kind === "sweeps" ? attempt(() => source.sweeps()) : null),
    [top.kind, source, reloads],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads forces a fresh read
  const detail = useMemo(
    () =>
      sweepId === null
        ? null
        : attempt(() => ({ d: source.sweep(sweepId), judged: source.hasJudgments(sweepId) })),
    [sweepId, source, reloads],
  );

  // A diff reads two folders: once per stage until `r`. A report is drawn by its own Ink render,
  // which must not run inside this one, so it is built in an effect and shown when ready.
  const diffs = useRef(new Map<string, string | null>());
  const [report, setReport] = useState<{ key: string; text: string | null } | null>(null);
  const reportKey =
    top.kind === "sweep" && top.tab === "report"
      ? `${top.sweepId}\u0000${width}\u0000${reloads}`
      : null;
  useEffect(() => {
    if (reportKey === null || report?.key === reportKey || !sweepId) return;
    // Off this render's call stack: a second Ink render inside Ink's own commit corrupts the
    // layout engine it shares.
    const timer = setTimeout(() => {
      const built = attempt(() => source.reportText?.(sweepId, { columns: width, color }) ?? null);
      setReport({ key: reportKey, text: "value" in built ? built.value : null });
    }, 0);
    return () => clearTimeout(timer);
  }, [reportKey, report, sweepId, source, width, color]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a reload drops the cached diffs
  useEffect(() => diffs.current.clear(), [reloads]);
  const diffOf = (parent: string, dir: string): string | null => {
    const key = `${parent}\u0000${dir}`;
    if (!diffs.current.has(key)) {
      const made = attempt(() => source.harnessDiff?.(parent, dir) ?? null);
      diffs.current.set(key, "value" in made ? made.value : null);
    }
    return diffs.current.get(key) ?? null;
  };
  const reportText = report !== null && report.key === reportKey ? report.text : undefined;
  const view = buildView(top, { sweeps, detail, source, width, diffOf, reportText });
  const titleLines = 1;
  const tabLines = view.tabs.length > 1 ? 1 : 0;
  const bodyHeight = Math.max(3, rows - titleLines - view.head.length - tabLines - 3);

  const at = screenKey(top);
  const [help, setHelp] = useState(false);
  const act = (a: NavAction) => dispatch(a);
  useInput(
    (input, key) => {
      const page = Math.max(1, bodyHeight - 1);
      const step = (delta: number) =>
        view.kind === "list"
          ? act({ type: "move", at, delta, count: view.count })
          : act({ type: "scroll", at, delta, max: maxOffset(view.body.length, bodyHeight - 1) });
      if (input === "q" || (key.ctrl && input === "c")) onQuit();
      else if (help) setHelp(false);
      else if (input === "?") setHelp(true);
      else if (key.upArrow || input === "k") step(-1);
      else if (key.downArrow || input === "j") step(1);
      else if (key.pageUp) step(-page);
      else if (key.pageDown || input === " ") step(page);
      else if (key.return || key.rightArrow) {
        if (view.kind === "list") act({ type: "openAt", at, open: view.open });
      } else if (key.escape || key.leftArrow || key.backspace || key.delete) act({ type: "back" });
      else if (key.tab) act({ type: "tab", at, tabs: view.tabs });
      else if (input === "r") setReloads((n) => n + 1);
    },
    { isActive: isRawModeSupported },
  );

  let body: Line[];
  let scrollOffset = 0;
  if (view.kind === "list") {
    // Keep the table's header (two lines) in view above the window of rows.
    const headRows = view.body.length > 0 && top.kind !== "task" ? 2 : 0;
    const rowsOnly = view.body.slice(headRows);
    const cursorRow = view.cursorLine - headRows;
    const [from, to] = windowOf(rowsOnly.length, cursorRow, bodyHeight - headRows - 1);
    body = [...view.body.slice(0, headRows), ...rowsOnly.slice(from, to)];
    if (rowsOnly.length > to - from) {
      body.push(line(`${from + 1}–${to} of ${rowsOnly.length}`, "dim"));
    }
  } else {
    body = view.body;
    scrollOffset = view.offset;
  }

  const keys = [
    view.kind === "list" ? "↑↓ move · enter open" : "↑↓ pgup/pgdn scroll",
    nav.stack.length > 1 ? "esc back" : null,
    view.tabs.length > 1 ? "tab switch view" : null,
    "r reload",
    "? help",
    "q quit",
  ].filter((k): k is string => k !== null);

  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate">
        <Text {...toneProps(color, "strong")}>harness2 browse</Text>
        <Text {...toneProps(color, "dim")}> · {source.location} · </Text>
        {view.crumbs}
      </Text>
      {view.head.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: header lines never reorder
        <LineView key={i} line={l} color={color} />
      ))}
      {view.tabs.length > 1 ? (
        <Text wrap="truncate">
          {view.tabs.map((t) => (
            <Text key={t} {...toneProps(color, t === view.tab ? "accent" : "dim")}>
              {t === view.tab ? `[${t}]` : ` ${t} `}{" "}
            </Text>
          ))}
        </Text>
      ) : null}
      {help ? (
        <ScrollView lines={HELP_LINES} offset={0} height={bodyHeight - 1} color={color} />
      ) : view.kind === "list" ? (
        <Box flexDirection="column">
          {body.map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the window's lines are positional
            <LineView key={i} line={l} color={color} />
          ))}
        </Box>
      ) : (
        <ScrollView lines={body} offset={scrollOffset} height={bodyHeight - 1} color={color} />
      )}
      <Text wrap="truncate" {...toneProps(color, "dim")}>
        {keys.join(" · ")}
      </Text>
    </Box>
  );
}

type Reads = {
  sweeps: ReturnType<typeof attempt<ReturnType<BrowseSource["sweeps"]>>> | null;
  detail: ReturnType<typeof attempt<{ d: SweepDetail | null; judged: boolean }>> | null;
  source: BrowseSource;
  width: number;
  diffOf: (parentDir: string, harnessDir: string) => string | null;
  /** The report tab's text: undefined while it is being built, null when there is none. */
  reportText: string | null | undefined;
};

function buildView(top: Screen, r: Reads): View {
  if (top.kind === "sweeps") {
    if (!r.sweeps) return noView("sweeps", "loading…");
    if ("error" in r.sweeps) return noView("sweeps", `could not read the store: ${r.sweeps.error}`);
    const list = r.sweeps.value;
    if (list.length === 0) {
      return noView("sweeps", "no sweeps recorded yet — start one with `harness2 demo`");
    }
    const cursor = Math.min(top.cursor, list.length - 1);
    return {
      crumbs: `sweeps (${list.length})`,
      head: [],
      body: sweepsLines(list, cursor, r.width),
      kind: "list",
      count: list.length,
      cursorLine: cursor + 2,
      offset: 0,
      open: (i) => {
        const s = list[i];
        return s ? { kind: "sweep", sweepId: s.id, tab: "tasks", cursor: 0, scroll: 0 } : null;
      },
      tabs: [],
    };
  }
  const id = top.sweepId;
  if (!r.detail) return noView(id, "loading…");
  if ("error" in r.detail) return noView(id, `could not read the store: ${r.detail.error}`);
  const { d, judged } = r.detail.value;
  if (!d) return noView(id, `no sweep ${id} in this store`);
  const task = "taskId" in top ? d.tasks.find((t) => t.id === top.taskId) : undefined;

  switch (top.kind) {
    case "sweep": {
      const tabs: SweepTab[] = judged ? ["tasks", "library", "report"] : ["tasks", "library"];
      const tab = tabs.includes(top.tab) ? top.tab : "tasks";
      const head = sweepHeaderLines(d);
      if (tab === "library") {
        return {
          ...scrollView(`sweeps › ${id} › library`, libraryLines(d), top.scroll),
          head,
          tabs,
          tab,
        };
      }
      if (tab === "report") {
        const text = r.reportText;
        return {
          crumbs: `sweeps › ${id} › report`,
          head,
          body:
            text === undefined
              ? [line("building the report…", "dim")]
              : text
                ? text
                    .replace(/\n+$/, "")
                    .split("\n")
                    .map((l) => line(l))
                : [line("no report could be built for this sweep", "warn")],
          kind: "scroll",
          count: 0,
          cursorLine: 0,
          offset: top.scroll,
          open: () => null,
          tabs,
          tab,
        };
      }
      const cursor = Math.min(top.cursor, Math.max(0, d.tasks.length - 1));
      return {
        crumbs: `sweeps › ${id}`,
        head,
        body:
          d.tasks.length > 0
            ? tasksLines(d.tasks, cursor, r.width)
            : [line("no task has started in this sweep", "dim")],
        kind: "list",
        count: d.tasks.length,
        cursorLine: cursor + 2,
        offset: 0,
        open: (i) => {
          const t = d.tasks[i];
          return t ? { kind: "task", sweepId: id, taskId: t.id, cursor: 0 } : null;
        },
        tabs,
        tab,
      };
    }
    case "task": {
      if (!task) return noView(id, "this task record is gone");
      const items = taskScreen(task, 0, r.width).items;
      const cursor = Math.min(top.cursor, Math.max(0, items.length - 1));
      const screen = taskScreen(task, cursor, r.width);
      return {
        crumbs: `sweeps › ${id} › ${task.task} k=${task.k}`,
        head: screen.head,
        body: screen.lines,
        kind: "list",
        count: items.length,
        cursorLine: screen.itemLines[cursor] ?? 0,
        offset: 0,
        open: (i) => openItem(id, task, screen.items[i]),
        tabs: [],
      };
    }
    case "stage": {
      const stage = task?.modes
        .find((m) => m.mode === top.mode)
        ?.stages.find((s) => s.label === top.label);
      if (!task || !stage) return noView(id, "this stage record is gone");
      const paths = attempt(() => r.source.stagePaths(task.id, top.mode, stage.label));
      const harnessDir =
        stage.harnessDir || ("value" in paths ? (paths.value?.harnessDir ?? "") : "");
      const parent = parentDir(harnessDir, parentLabel(top.mode, stage.label));
      const diff = harnessDir ? r.diffOf(parent, harnessDir) : null;
      return scrollView(
        `sweeps › ${id} › ${task.task} k=${task.k} › ${modeName(top.mode)} ${stage.label}`,
        stageLines({
          task,
          mode: top.mode,
          stage,
          paths: "value" in paths ? paths.value : null,
          diff,
          width: r.width,
        }),
        top.scroll,
      );
    }
    case "selection": {
      const mode = task?.modes.find((m) => m.mode === top.mode);
      if (!task || !mode) return noView(id, "this selection record is gone");
      // The mode's folder, from a stage's harness (<mode dir>/harnesses/<label>); the method
      // recorded the starting harness in the reflection folder beside it.
      const chosen = mode.stages.find((s) => s.label === mode.selection?.chosenLabel);
      const anyHarness = (chosen ?? mode.stages.find((s) => s.harnessDir))?.harnessDir ?? "";
      const modeDir = anyHarness ? dirname(dirname(anyHarness)) : "";
      const base = modeDir
        ? join(modeDir, "reflection", `${top.mode}${task.k}`, "base_harness")
        : "";
      // diffOf answers null for a folder that is not there (no starting harness recorded).
      const baseDiff = !mode.selection?.ok
        ? undefined
        : chosen?.harnessDir && base
          ? r.diffOf(base, chosen.harnessDir)
          : null;
      return scrollView(
        `sweeps › ${id} › ${task.task} k=${task.k} › ${modeName(top.mode)} selection`,
        selectionLines(task, mode, r.width, baseDiff),
        top.scroll,
      );
    }
  }
}

function openItem(sweepId: string, task: TaskView, item: TaskItem | undefined): Screen | null {
  if (!item) return null;
  if (item.kind === "stage") {
    return {
      kind: "stage",
      sweepId,
      taskId: task.id,
      mode: item.mode,
      label: item.label,
      scroll: 0,
    };
  }
  return { kind: "selection", sweepId, taskId: task.id, mode: item.mode, scroll: 0 };
}
