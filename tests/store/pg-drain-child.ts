// A process that records a burst of events on a PostgreSQL store and closes it at once, so that
// close() has to wait for the append in flight (pg-store.test.ts). Its close allows ten minutes:
// once everything is in the log nothing may hold the process open that long.

import { type PgAddress, pgAddress } from "../../src/core/lib/store-url.ts";
import { newSweepId } from "../../store/ids.ts";
import { PgStore } from "../../store/pg/store.ts";
import { StoreWriter } from "../../store/writer.ts";
import { sweepEvents } from "./synthetic.ts";

const store = (await PgStore.open(pgAddress(process.argv[2] as string) as PgAddress, {
  create: true,
})) as PgStore;
const writer = new StoreWriter(store.db, { onCommitted: (batch) => store.committed(batch) });
const sweep = newSweepId(Date.UTC(2026, 11, 2, 12));
for (const ev of sweepEvents({ sweep, domains: 2, tasksPerDomain: 10, k: 1, tripEvery: 0 })) {
  writer.emit(ev);
}
writer.close();
const left = await store.close(600_000);
process.stdout.write(`closed with ${left} left\n`);
