// The reaper process itself (see reaper.ts): `bun reaper-main.ts <owner pid> <groups file>`.
// Checks every 300 ms whether its owner is still there; once it is not, ends the owner's listed
// process groups and every process still carrying the owner's pid, and exits. Never touches
// anything while the owner lives.

import { readFileSync, rmSync } from "node:fs";
import { pidAlive } from "./pid.ts";
import { killOwnedBy } from "./reaper.ts";

const [ownerText, file] = process.argv.slice(-2);
const owner = Number(ownerText);

function listedGroups(): number[] {
  try {
    return readFileSync(file as string, "utf8")
      .split("\n")
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    return [];
  }
}

function endAll(signal: NodeJS.Signals): void {
  for (const g of listedGroups()) {
    try {
      process.kill(-g, signal);
    } catch {
      // gone already
    }
  }
  killOwnedBy(owner, signal);
}

const timer = setInterval(() => {
  if (pidAlive(owner)) return;
  clearInterval(timer);
  endAll("SIGTERM");
  setTimeout(() => {
    endAll("SIGKILL");
    rmSync(file as string, { force: true });
    process.exit(0);
  }, 2000);
}, 300);
