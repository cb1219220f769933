// A separate process the store tests start, hold or kill: it writes to or locks a store as a
// sweep would. Reports progress with synchronous writes to stdout so the parent can act on them.
//   lock DB NAMESPACE SWEEP       take the sweep lock, print "locked", then wait to be killed
//   lockrun DB NAMESPACE SWEEP    the same, with a child marked as its own left running
//   write DB SWEEP TASKS          record a synthetic sweep of TASKS tasks in small bursts
//   burst DB SWEEP                commit a prefix, print "committed N", then write one huge burst
//   noclose DB SWEEP              emit a sweep's events and exit without close()

import { writeSync } from "node:fs";
import { openStore } from "../../store/db.ts";
import { acquireSweepLock } from "../../store/lock.ts";
import { StoreWriter } from "../../store/writer.ts";
import { sweepEvents } from "./synthetic.ts";

const say = (line: string) => writeSync(1, `${line}\n`);
const [cmd, dbPath, a, b] = process.argv.slice(2);
if (!cmd || !dbPath) throw new Error("usage: child.ts CMD DB ...");

switch (cmd) {
  case "lock": {
    const db = openStore(dbPath);
    acquireSweepLock(db, { namespaces: [a ?? "ns"], sweep: b ?? "swp_child" });
    say(`locked ${process.pid}`);
    setInterval(() => {}, 1 << 30);
    break;
  }
  case "lockrun": {
    // Holds the lock and leaves a child that only its pid marks as its own (no reaper knows it):
    // what a lock holder killed together with its reaper would leave behind.
    const db = openStore(dbPath);
    acquireSweepLock(db, { namespaces: [a ?? "ns"], sweep: b ?? "swp_child" });
    const survivor = Bun.spawn(["sleep", "300"], {
      env: { PATH: process.env.PATH ?? "", HARNESS2_OWNER_PID: String(process.pid) },
    });
    say(`locked ${process.pid} ${survivor.pid}`);
    setInterval(() => {}, 1 << 30);
    break;
  }
  case "write": {
    const w = StoreWriter.open(dbPath, { maxBatch: 7 });
    const tasks = Number(b ?? 4);
    let n = 0;
    for (const ev of sweepEvents({ sweep: a ?? "swp_child", domains: 1, tasksPerDomain: tasks })) {
      w.emit(ev);
      n++;
    }
    w.close();
    say(`wrote ${n}`);
    break;
  }
  case "burst": {
    const w = StoreWriter.open(dbPath, { maxBatch: 1_000_000 });
    const events = [...sweepEvents({ sweep: a ?? "swp_child", domains: 4, tasksPerDomain: 150 })];
    const prefix = 1000;
    for (const ev of events.slice(0, prefix)) w.emit(ev);
    w.flush();
    say(`committed ${prefix} of ${events.length}`);
    for (const ev of events.slice(prefix)) w.emit(ev);
    say("flushing");
    w.flush();
    say("flushed");
    setInterval(() => {}, 1 << 30);
    break;
  }
  case "noclose": {
    const w = StoreWriter.open(dbPath, { flushDelayMs: 60_000 });
    for (const ev of sweepEvents({ sweep: a ?? "swp_child", domains: 1, tasksPerDomain: 1 })) {
      w.emit(ev);
    }
    say(`pending ${w.pending}`);
    break;
  }
  default:
    throw new Error(`unknown child command ${cmd}`);
}
