// The run browser's one container: owns navigation (a reducer over keys), reads what the current
// screen needs from the BrowseSource, and fits it to the terminal. Keyboard only; read-only.

import { Box, Text, useInput, useStdin, useStdout, useWindowSize } from "ink";
import { useEffect, useMemo, useReducer, useRef, useState } from "react";
import {
  type Line,
  LineView,
  line,
  maxOffset,
  ScrollView,
  wrapLines,
} from "../components/Lines.tsx";
import { toneProps } from "../components/theme.ts";
import { HELP_LINES } from "./library-lines.ts";
import { current, type NavAction, navigate, screenKey, startAt, windowOf } from "./nav.ts";
import type { RolloutText } from "./rollout-screen.ts";
import type { BrowseSource } from "./source.ts";
import { attempt, buildView, highlight, searchCount, searchView, viewText } from "./views.ts";

export type BrowseAppProps = {
  source: BrowseSource;
  color: boolean;
  /** Open this sweep first (Esc goes back to the list). */
  initialSweep?: string;
  onQuit: () => void;
};

export function BrowseApp({ source, color, initialSweep, onQuit }: BrowseAppProps) {
  const [nav, dispatch] = useReducer(navigate, initialSweep, startAt);
  const [reloads, setReloads] = useState(0);
  const { columns, rows } = useWindowSize();
  const { isRawModeSupported, setRawMode } = useStdin();
  const { stdout } = useStdout();
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
  // A rollout's output and trajectory are read (and rendered) by the CLI off the render.
  const [rollout, setRollout] = useState<{ key: string; text: RolloutText | null } | null>(null);
  const shown = detail !== null && "value" in detail ? detail.value.d : null;
  const rolloutDir =
    top.kind === "rollout"
      ? shown?.tasks.find((t) => t.id === top.taskId)?.rollouts.find((x) => x.runId === top.runId)
          ?.runDir
      : undefined;
  const rolloutKey = rolloutDir === undefined ? null : `${rolloutDir}\u0000${reloads}`;
  useEffect(() => {
    if (rolloutKey === null || rollout?.key === rolloutKey || rolloutDir === undefined) return;
    let live = true;
    const read = source.rolloutText?.(rolloutDir) ?? Promise.resolve(null);
    read
      .catch(() => null)
      .then((text) => {
        if (live) setRollout({ key: rolloutKey, text });
      });
    return () => {
      live = false;
    };
  }, [rolloutKey, rollout, rolloutDir, source]);
  const rolloutText = rollout !== null && rollout.key === rolloutKey ? rollout.text : undefined;
  // The last `/` search (for `n`, and what stands out on the screen).
  const [query, setQuery] = useState("");
  const built = buildView(top, { sweeps, detail, source, width, diffOf, reportText, rolloutText });
  // A text screen (a stage, a selection, a rollout) folds long lines instead of cutting them.
  const folded = built.kind === "list" ? built : { ...built, body: wrapLines(built.body, width) };
  // What the last search found stands out wherever it is on the screen.
  const view = query === "" ? folded : { ...folded, body: highlight(folded.body, query) };
  const titleLines = 1;
  const tabLines = view.tabs.length > 1 ? 1 : 0;
  const bodyHeight = Math.max(3, rows - titleLines - view.head.length - tabLines - 3);

  const at = screenKey(top);
  const [help, setHelp] = useState(false);
  // `/` search: the query being typed (null when not typing), the last one (for `n`), a notice.
  // Keys can arrive faster than renders: the query lives in a ref, the state only redraws it.
  const typed = useRef<string | null>(null);
  const [typing, setTypingState] = useState<string | null>(null);
  const setTyping = (t: string | null) => {
    typed.current = t;
    setTypingState(t);
  };
  const [notice, setNotice] = useState("");
  // A notice is about the screen it was given on: another screen starts with the keys again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the screen's key is the trigger
  useEffect(() => setNotice(""), [at]);
  const act = (a: NavAction) => dispatch(a);
  const external = (what: { pager: string } | { editor: string }) => {
    if (!source.openExternal) return setNotice("this browser cannot open a pager or an editor");
    const name = "pager" in what ? "pager" : "editor";
    setRawMode(false);
    try {
      setNotice(source.openExternal(what) ?? `back from the ${name}`);
    } finally {
      setRawMode(true);
      // The program left the terminal's alternate screen, where the browser draws: go back to
      // it and clear it; the changed footer makes Ink draw the whole frame again.
      stdout.write("\u001b[?1049h\u001b[2J\u001b[H");
      setReloads((n) => n + 1);
    }
  };
  useInput(
    (input, key) => {
      const page = Math.max(1, bodyHeight - 1);
      const step = (delta: number) =>
        view.kind === "list"
          ? act({ type: "move", at, delta, count: view.count })
          : act({ type: "scroll", at, delta, max: maxOffset(view.body.length, bodyHeight - 1) });
      const find = (q: string) => {
        const hit = searchView(view, q);
        if (hit === null) setNotice(`no match for '${q}'`);
        else {
          const { total, landing } = searchCount(view, q);
          setNotice(`'${q}': match ${landing ?? 1} of ${total} · n next`);
          step(hit);
        }
      };
      // A "/" may arrive in one chunk with the query after it ("/base2", even "/base2\r").
      const opensSearch = typed.current === null && !help && input.startsWith("/");
      if (opensSearch) typed.current = "";
      const now = typed.current;
      if (opensSearch && input.length === 1) {
        setTyping("");
        return;
      }
      if (opensSearch) input = input.slice(1);
      if (now !== null) {
        // Typed text may arrive in one chunk with its Enter ("base2\r"): the text, then the Enter.
        const [text = "", ...rest] = key.return ? [""] : input.split(/[\r\n]/);
        const done = key.return || rest.length > 0;
        const q = key.ctrl || key.meta ? now : now + text;
        if (done) {
          setTyping(null);
          if (q !== "") {
            setQuery(q);
            find(q);
          }
        } else if (key.escape) setTyping(null);
        else if (key.backspace || key.delete) setTyping(now.slice(0, -1));
        else setTyping(q);
        return;
      }
      if (input === "q" || (key.ctrl && input === "c")) onQuit();
      else if (help) setHelp(false);
      else if (input === "n" && query !== "") find(query);
      else if (input === "p") external({ pager: viewText(view) });
      else if (input === "e") {
        if (view.path) external({ editor: view.path });
        else
          setNotice("this screen has no folder to open: e works on a stage, selection or rollout");
      } else if (input === "?") setHelp(true);
      else if (key.upArrow || input === "k") step(-1);
      else if (key.downArrow || input === "j") step(1);
      else if (key.pageUp) step(-page);
      else if (key.pageDown || input === " ") step(page);
      // An Enter typed before the terminal was in raw mode arrives as "\n", not as a return.
      else if (key.return || input === "\n" || key.rightArrow) {
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
    "/ search",
    "p pager",
    view.path ? "e editor" : null,
    "r reload",
    "? help",
    "q quit",
  ].filter((k): k is string => k !== null);
  const footer =
    typing !== null ? `/${typing}▏ (enter search · esc cancel)` : notice || keys.join(" · ");

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
      <Text wrap="truncate" {...toneProps(color, notice && typing === null ? "warn" : "dim")}>
        {footer}
      </Text>
    </Box>
  );
}
