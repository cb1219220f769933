// The home screen of `harness2` with no subcommand in a terminal: the store's recent sweeps with
// their status, and what to do next (demo, resume the last unfinished sweep, browse, help).
// It only reports the user's choice; the CLI carries it out.

import { Box, Text, useInput, useStdin, useWindowSize } from "ink";
import { useRef, useState } from "react";
import type { SweepSummary } from "../../store/views.ts";
import { modeName, sweepsLines } from "../browse/screens.ts";
import { LineView } from "../components/Lines.tsx";
import { toneProps } from "../components/theme.ts";

export type HomeChoice =
  | { action: "demo" }
  | { action: "resume"; sweep: SweepSummary }
  | { action: "browse" }
  | { action: "help" }
  | { action: "quit" };

export type HomeAppProps = {
  version: string;
  /** Where the store is (or would be). */
  location: string;
  /** Newest first; null when there is no store yet. */
  sweeps: SweepSummary[] | null;
  color: boolean;
  onChoose: (choice: HomeChoice) => void;
};

const RESUMABLE = new Set(["unfinished", "interrupted"]);

/**
 * One namespace of runs: an experiment of the store (bench, substrate, tag; store/identity.ts) with
 * its seed, at one k.
 */
const namespaceOf = (s: SweepSummary, k: number) =>
  JSON.stringify([s.bench, s.substrate, s.tag, s.seed, k]);

/**
 * The newest sweep that stopped before its end and is still the newest sweep of one of its
 * namespaces. A later sweep of the same namespaces — running, or one that finished what this one
 * left (a resume) — takes its place: offering the old one again would redo or race that work.
 * `sweeps` is newest first.
 */
export function resumable(sweeps: SweepSummary[] | null): SweepSummary | null {
  if (sweeps === null) return null;
  const newest = new Map<string, SweepSummary>();
  for (const s of sweeps) {
    for (const k of s.ks) {
      const ns = namespaceOf(s, k);
      if (!newest.has(ns)) newest.set(ns, s);
    }
  }
  return (
    sweeps.find(
      (s) => RESUMABLE.has(s.status) && s.ks.some((k) => newest.get(namespaceOf(s, k)) === s),
    ) ?? null
  );
}

type Entry = { key: string; label: string; choice: HomeChoice | null; hint: string };

export function homeEntries(sweeps: SweepSummary[] | null): Entry[] {
  const resume = resumable(sweeps);
  const done = resume ? resume.tasks.ok + resume.tasks.failed + resume.tasks.skipped : 0;
  return [
    {
      key: "d",
      label: "start the demo",
      choice: { action: "demo" },
      hint: "the whole method offline on two small tasks, no model needed",
    },
    {
      key: "r",
      label: resume ? `resume ${resume.id}` : "resume",
      choice: resume ? { action: "resume", sweep: resume } : null,
      hint: resume
        ? `${resume.status}, ${done}/${resume.tasks.total} tasks done, ${resume.bench}/${resume.substrate} ${resume.modes.map(modeName).join("+")}`
        : "no unfinished sweep",
    },
    {
      key: "b",
      label: "browse runs",
      choice: { action: "browse" },
      hint: "sweeps → tasks → stages, selections, report",
    },
    {
      key: "h",
      label: "help",
      choice: { action: "help" },
      hint: "every command and its options (also ?)",
    },
    { key: "q", label: "quit", choice: { action: "quit" }, hint: "" },
  ];
}

export function HomeApp({ version, location, sweeps, color, onChoose }: HomeAppProps) {
  const entries = homeEntries(sweeps);
  // With a sweep to resume, that is the likeliest wish: the cursor starts on it.
  const start = entries.findIndex((e) => e.choice?.action === "resume");
  const [cursor, setCursor] = useState(Math.max(0, start));
  // Keys may arrive faster than renders: the handler reads the cursor from here.
  const cursorRef = useRef(Math.max(0, start));
  const { columns, rows } = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const width = Math.max(40, columns);
  const enabled = entries.map((e) => e.choice !== null);

  const moveTo = (delta: number) => {
    let i = cursorRef.current;
    for (let n = 0; n < entries.length; n++) {
      i = (i + delta + entries.length) % entries.length;
      if (enabled[i]) break;
    }
    cursorRef.current = i;
    setCursor(i);
  };

  useInput(
    (input, key) => {
      if (key.upArrow || input === "k") moveTo(-1);
      else if (key.downArrow || input === "j" || key.tab) moveTo(1);
      else if (key.return) {
        const choice = entries[cursorRef.current]?.choice;
        if (choice) onChoose(choice);
      } else if (key.escape || (key.ctrl && input === "c")) onChoose({ action: "quit" });
      else if (input === "?") onChoose({ action: "help" });
      else {
        const hit = entries.find((e) => e.key === input);
        if (hit?.choice) onChoose(hit.choice);
      }
    },
    { isActive: isRawModeSupported },
  );

  const recent = (sweeps ?? []).slice(0, Math.max(1, Math.min(8, rows - 16)));
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate">
        <Text {...toneProps(color, "strong")}>harness2 {version}</Text> — recursive agent harnessing
        (Harness²)
      </Text>
      <Text wrap="truncate" {...toneProps(color, "dim")}>
        store {location}
      </Text>
      <Box marginTop={1} flexDirection="column">
        <Text {...toneProps(color, "strong")}>recent sweeps</Text>
        {sweeps === null || sweeps.length === 0 ? (
          <Text {...toneProps(color, "dim")}>
            {sweeps === null ? "  no store here yet" : "  none yet"} — the demo makes the first one
          </Text>
        ) : (
          sweepsLines(recent, null, width).map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: table lines are positional
            <LineView key={i} line={l} color={color} />
          ))
        )}
      </Box>
      <Box marginTop={1} flexDirection="column">
        {entries.map((e, i) => {
          const on = i === cursor;
          const off = e.choice === null;
          return (
            <Text key={e.key} wrap="truncate">
              <Text {...toneProps(color, on ? "accent" : undefined)}>{on ? "▶ " : "  "}</Text>
              <Text {...toneProps(color, off ? "dim" : "strong")}>{e.key}</Text>{" "}
              <Text {...toneProps(color, off ? "dim" : on ? "accent" : undefined)}>{e.label}</Text>
              {e.hint ? <Text {...toneProps(color, "dim")}> — {e.hint}</Text> : null}
            </Text>
          );
        })}
      </Box>
      <Box marginTop={1}>
        <Text {...toneProps(color, "dim")}>
          ↑↓ choose · enter run · or press its letter · ? help
        </Text>
      </Box>
    </Box>
  );
}
