// Loaded before every test file (bunfig.toml [test].preload): bun ignores a default timeout set in
// bunfig itself, so `bun test tests/<path>` would otherwise give the slow end-to-end files only
// 5 s per test. The README's full-suite command passes the same limit with --timeout.
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(120_000);
