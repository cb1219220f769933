// A process that holds one sweep lock of a PostgreSQL store until it is killed (pg-store.test.ts).

import { type PgAddress, pgAddress } from "../../src/core/lib/store-url.ts";
import { PgLog } from "../../store/pg/log.ts";

const [url, key, sweep] = process.argv.slice(2) as [string, string, string];
const log = (await PgLog.open(pgAddress(url) as PgAddress, { create: true })) as PgLog;
const got = await log.lock([key], { sweep, worker: "child" });
process.stdout.write("release" in got ? "locked\n" : `held by ${got.sweepId}\n`);
setInterval(() => {}, 60_000);
