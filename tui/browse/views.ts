// The browser's screens as data: for the screen on top and what has been read for it, the lines
// it shows and what its keys do (a View). Pure: the container (browse-app.tsx) reads, this lays out.

import { dirname, join } from "node:path";
import type { SweepDetail, TaskView } from "../../store/views.ts";
import { type Line, line } from "../components/Lines.tsx";
import { libraryLines } from "./library-lines.ts";
import type { Screen, SweepTab } from "./nav.ts";
import { type RolloutText, rolloutLines } from "./rollout-screen.ts";
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

/** What one screen puts on the terminal and what its keys do. */
export type View = {
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
  /** For lists: the body line item i sits on (search moves the cursor by it). */
  itemLine?: (index: number) => number;
  /** The folder `e` opens in the user's editor, when the screen has one. */
  path?: string;
};

const textOfLine = (l: Line): string => l.map((p) => p.text).join("");

/** The screen as plain text, for the pager. */
export function viewText(view: View): string {
  return `${[view.crumbs, ...view.head.map(textOfLine), "", ...view.body.map(textOfLine)].join("\n")}\n`;
}

/**
 * How far `/query` moves from where the screen is: to the next list item (or, on a scroll screen,
 * the next line) after the current one whose text holds the query, ignoring case and wrapping
 * around; null when nothing does.
 */
export function searchView(view: View, query: string): number | null {
  const q = query.toLowerCase();
  const has = (line: number) =>
    textOfLine(view.body[line] ?? [])
      .toLowerCase()
      .includes(q);
  // The distance to the first index after `from` (of `n`, wrapping) that matches, or null.
  const next = (from: number, n: number, matches: (i: number) => boolean): number | null => {
    for (let d = 1; d <= n; d++) if (matches((from + d) % n)) return ((from + d) % n) - from;
    return null;
  };
  if (view.kind === "list") {
    const lineOf = view.itemLine ?? ((i: number) => i);
    const items = [...Array(view.count).keys()];
    const at = Math.max(
      0,
      items.findIndex((i) => lineOf(i) === view.cursorLine),
    );
    return next(at, view.count, (i) => has(lineOf(i)));
  }
  return next(view.offset, view.body.length, has);
}

/**
 * Where `/query` matches on the screen — list items (their index) or, on a scroll screen, lines —
 * and which of them the search lands on from where the screen is: "match 2 of 5".
 */
export function searchCount(view: View, query: string): { total: number; landing: number | null } {
  const q = query.toLowerCase();
  const has = (line: number) =>
    textOfLine(view.body[line] ?? [])
      .toLowerCase()
      .includes(q);
  const lineOf = view.kind === "list" ? (view.itemLine ?? ((i: number) => i)) : (i: number) => i;
  const n = view.kind === "list" ? view.count : view.body.length;
  const hits = [...Array(n).keys()].filter((i) => has(lineOf(i)));
  const step = searchView(view, query);
  if (step === null) return { total: hits.length, landing: null };
  const from =
    view.kind === "list"
      ? Math.max(
          0,
          [...Array(n).keys()].findIndex((i) => lineOf(i) === view.cursorLine),
        )
      : view.offset;
  return { total: hits.length, landing: hits.indexOf(from + step) + 1 };
}

/** `lines` with every occurrence of `query` (any case) in the accent tone: what a search found. */
export function highlight(lines: readonly Line[], query: string): Line[] {
  if (query === "") return [...lines];
  const q = query.toLowerCase();
  return lines.map((l) => {
    if (!textOfLine(l).toLowerCase().includes(q)) return l;
    const out: Line = [];
    for (const seg of l) {
      const lower = seg.text.toLowerCase();
      let at = 0;
      for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, at)) {
        if (i > at) out.push({ ...seg, text: seg.text.slice(at, i) });
        out.push({ ...seg, text: seg.text.slice(i, i + q.length), tone: "accent" });
        at = i + q.length;
      }
      if (at < seg.text.length) out.push({ ...seg, text: seg.text.slice(at) });
    }
    return out;
  });
}

export function attempt<T>(read: () => T): { value: T } | { error: string } {
  try {
    return { value: read() };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** A screen that only scrolls: no items to open, no tabs. */
export const scrollView = (crumbs: string, body: Line[], offset = 0): View => ({
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

export const noView = (crumbs: string, message: string): View =>
  scrollView(crumbs, [line(message, "warn")]);

export type Reads = {
  sweeps: ReturnType<typeof attempt<ReturnType<BrowseSource["sweeps"]>>> | null;
  detail: ReturnType<typeof attempt<{ d: SweepDetail | null; judged: boolean }>> | null;
  source: BrowseSource;
  width: number;
  diffOf: (parentDir: string, harnessDir: string) => string | null;
  /** The report tab's text: undefined while it is being built, null when there is none. */
  reportText: string | null | undefined;
  /** The open rollout's texts: undefined while they are being read, null when there are none. */
  rolloutText: RolloutText | null | undefined;
};

export function buildView(top: Screen, r: Reads): View {
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
      itemLine: (i) => i + 2,
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
        itemLine: (i) => i + 2,
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
        itemLine: (i) => screen.itemLines[i] ?? 0,
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
      const stageView = scrollView(
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
      return harnessDir ? { ...stageView, path: harnessDir } : stageView;
    }
    case "rollout": {
      const rollout = task?.rollouts.find((x) => x.runId === top.runId);
      if (!task || !rollout) return noView(id, "this rollout record is gone");
      const rolloutView = scrollView(
        `sweeps › ${id} › ${task.task} k=${task.k} › rollout ${rollout.runId.split("/")[0]} ${rollout.label}`,
        rolloutLines(task, rollout, r.rolloutText),
        top.scroll,
      );
      return rollout.runDir ? { ...rolloutView, path: rollout.runDir } : rolloutView;
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
      const selectionView = scrollView(
        `sweeps › ${id} › ${task.task} k=${task.k} › ${modeName(top.mode)} selection`,
        selectionLines(task, mode, r.width, baseDiff),
        top.scroll,
      );
      return chosen?.harnessDir ? { ...selectionView, path: chosen.harnessDir } : selectionView;
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
  if (item.kind === "rollout") {
    return { kind: "rollout", sweepId, taskId: task.id, runId: item.runId, scroll: 0 };
  }
  return { kind: "selection", sweepId, taskId: task.id, mode: item.mode, scroll: 0 };
}
