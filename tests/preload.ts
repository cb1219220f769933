// Loaded before every test file (bunfig.toml [test].preload): bun ignores a default timeout set in
// bunfig itself, so `bun test tests/<path>` would otherwise give the slow end-to-end files only
// 5 s per test. The README's full-suite command passes the same limit with --timeout.
// A hook here is global: the private PostgreSQL clusters of the store and fleet tests
// (tests/helpers/postgres.ts) are stopped once every file has run, since bun test ends its
// process without the exit hook a script would run; so are the folders of tests/helpers/temp.ts.
import { afterAll, setDefaultTimeout } from "bun:test";
import { stopAllClusters } from "./helpers/postgres.ts";
import { removeTestTempDirs } from "./helpers/temp.ts";

setDefaultTimeout(120_000);
afterAll(stopAllClusters);
afterAll(removeTestTempDirs);
