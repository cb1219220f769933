// The browser's navigation: a stack of screens (sweeps → sweep → task → stage, selection or
// rollout), each
// with its cursor or scroll offset. Pure reducer; the container supplies the counts it clamps to.

export type SweepTab = "tasks" | "library" | "report";

export type Screen =
  | { kind: "sweeps"; cursor: number }
  | { kind: "sweep"; sweepId: string; tab: SweepTab; cursor: number; scroll: number }
  | { kind: "task"; sweepId: string; taskId: string; cursor: number }
  | { kind: "stage"; sweepId: string; taskId: string; mode: string; label: string; scroll: number }
  | { kind: "selection"; sweepId: string; taskId: string; mode: string; scroll: number }
  | { kind: "rollout"; sweepId: string; taskId: string; runId: string; scroll: number };

/** Never empty: the bottom screen is where the browser started. */
export type NavState = { stack: Screen[] };

/**
 * Keys can arrive faster than renders, so an action built from one render's view says which
 * screen it was built for (`at`, see screenKey) and is dropped when that is no longer on top.
 */
export type NavAction =
  | { type: "move"; at: string; delta: number; count: number }
  | { type: "scroll"; at: string; delta: number; max: number }
  | { type: "open"; screen: Screen }
  | { type: "openAt"; at: string; open: (index: number) => Screen | null }
  | { type: "back" }
  | { type: "tab"; at: string; tabs: SweepTab[] };

/** Which screen this is, whatever its cursor or scroll. */
export function screenKey(s: Screen): string {
  switch (s.kind) {
    case "sweeps":
      return "sweeps";
    case "sweep":
      return `sweep\u0000${s.sweepId}\u0000${s.tab}`;
    case "task":
      return `task\u0000${s.taskId}`;
    case "stage":
      return `stage\u0000${s.taskId}\u0000${s.mode}\u0000${s.label}`;
    case "selection":
      return `selection\u0000${s.taskId}\u0000${s.mode}`;
    case "rollout":
      return `rollout\u0000${s.taskId}\u0000${s.runId}`;
  }
}

export function startAt(sweepId?: string): NavState {
  const root: Screen = { kind: "sweeps", cursor: 0 };
  if (sweepId === undefined) return { stack: [root] };
  return { stack: [root, { kind: "sweep", sweepId, tab: "tasks", cursor: 0, scroll: 0 }] };
}

export function current(state: NavState): Screen {
  return state.stack[state.stack.length - 1] as Screen;
}

const clamp = (n: number, lo: number, hi: number) => Math.min(Math.max(n, lo), Math.max(lo, hi));

function replaceTop(state: NavState, screen: Screen): NavState {
  return { stack: [...state.stack.slice(0, -1), screen] };
}

export function navigate(state: NavState, action: NavAction): NavState {
  const top = current(state);
  if ("at" in action && action.at !== screenKey(top)) return state;
  switch (action.type) {
    case "move":
      if (!("cursor" in top)) return state;
      if (top.kind === "sweep" && top.tab !== "tasks") return state;
      return replaceTop(state, {
        ...top,
        cursor: clamp(top.cursor + action.delta, 0, action.count - 1),
      });
    case "scroll":
      if (!("scroll" in top)) return state;
      return replaceTop(state, { ...top, scroll: clamp(top.scroll + action.delta, 0, action.max) });
    case "open":
      return { stack: [...state.stack, action.screen] };
    case "openAt": {
      const next = action.open("cursor" in top ? top.cursor : 0);
      return next ? { stack: [...state.stack, next] } : state;
    }
    case "back":
      return state.stack.length > 1 ? { stack: state.stack.slice(0, -1) } : state;
    case "tab": {
      if (top.kind !== "sweep" || action.tabs.length < 2) return state;
      const i = action.tabs.indexOf(top.tab);
      const tab = action.tabs[(i + 1) % action.tabs.length] as SweepTab;
      return replaceTop(state, { ...top, tab, scroll: 0 });
    }
  }
}

/** The rows [start, end) of a list of `count` to show in `height` lines, keeping the cursor in view. */
export function windowOf(count: number, cursor: number, height: number): [number, number] {
  const h = Math.max(1, height);
  if (count <= h) return [0, count];
  const start = clamp(cursor - Math.floor(h / 2), 0, count - h);
  return [start, start + h];
}
