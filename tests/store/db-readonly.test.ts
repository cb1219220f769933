// openStore({ readonly: true }) and storePlaceProblem: the browsing commands' way in, which never
// creates, migrates or writes the file, and the one check of where the store may live.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withFix } from "../../src/core/lib/errors.ts";
import {
  openStore,
  StoreMissingError,
  StoreOlderError,
  StorePlaceError,
  storeLocation,
  storePlaceProblem,
} from "../../store/db.ts";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "../../store/schema.ts";
import { tempDir } from "./samples.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const fingerprint = (path: string) => {
  const st = statSync(path);
  return { size: st.size, mtimeMs: st.mtimeMs, bytes: readFileSync(path).toString("hex") };
};

describe("openStore readonly", () => {
  test("a 0-byte file is no store yet, and stays 0 bytes", () => {
    const path = join(dir, "harness2.db");
    writeFileSync(path, "");
    const before = fingerprint(path);
    expect(() => openStore(path, { readonly: true })).toThrow(StoreMissingError);
    expect(fingerprint(path)).toEqual(before);
  });

  test("a missing file is StoreMissingError and is not created", () => {
    const path = join(dir, "sub", "harness2.db");
    expect(() => openStore(path, { readonly: true })).toThrow(StoreMissingError);
    expect(() => statSync(join(dir, "sub"))).toThrow();
  });

  test("an older schema is refused, never migrated", () => {
    const path = join(dir, "harness2.db");
    const old = new Database(path, { create: true });
    old.run((MIGRATIONS[0] as { sql: string }).sql);
    old.run("PRAGMA user_version = 1");
    old.run(`PRAGMA application_id = ${APPLICATION_ID}`);
    old.close();
    const before = fingerprint(path);
    expect(SCHEMA_VERSION).toBeGreaterThan(1);
    expect(() => openStore(path, { readonly: true })).toThrow(StoreOlderError);
    expect(fingerprint(path)).toEqual(before);
  });

  test("a current store reads, refuses writes, and its file is unchanged", () => {
    const path = join(dir, "harness2.db");
    openStore(path).close();
    const before = fingerprint(path);
    const db = openStore(path, { readonly: true });
    try {
      expect(db.query("SELECT count(*) AS n FROM sweeps").get()).toEqual({ n: 0 });
      expect(() => db.run("DELETE FROM sweeps")).toThrow();
    } finally {
      db.close();
    }
    expect(fingerprint(path)).toEqual(before);
  });
});

describe("where the store may live", () => {
  test("a regular file as the runs directory: the same words for reading and writing", () => {
    const file = join(dir, "FILE");
    writeFileSync(file, "mine");
    const loc = storeLocation({ runsDir: "FILE", env: {}, cwd: dir });
    for (const create of [false, true]) {
      const problem = storePlaceProblem(loc, { create });
      expect(problem).toBeInstanceOf(StorePlaceError);
      expect(problem?.what).toBe("runs");
      expect(problem?.message).toBe(`${file} is not a directory`);
      expect(problem?.fix).toBe("choose a writable directory with --runs or HARNESS2_RUNS_DIR");
    }
  });

  test("a file on the way to the runs directory is named", () => {
    writeFileSync(join(dir, "FILE"), "mine");
    const loc = storeLocation({ runsDir: "FILE/runs", env: {}, cwd: dir });
    expect(storePlaceProblem(loc, { create: true })?.problem).toBe(
      `${join(dir, "FILE", "runs")} cannot be created: ${join(dir, "FILE")} is not a directory`,
    );
  });

  test("a missing runs directory is fine; a directory where the store file belongs is not", () => {
    expect(
      storePlaceProblem(storeLocation({ runsDir: "new", env: {}, cwd: dir }), { create: true }),
    ).toBeNull();
    mkdirSync(join(dir, "r", "harness2.db"), { recursive: true });
    const loc = storeLocation({ runsDir: "r", env: {}, cwd: dir });
    expect(storePlaceProblem(loc, { create: false })?.what).toBe("db");
  });

  test("openStore itself refuses a file on the way in one line (no raw EEXIST)", () => {
    writeFileSync(join(dir, "FILE"), "mine");
    const refused = (() => {
      try {
        openStore(join(dir, "FILE", "harness2.db"));
      } catch (err) {
        return err;
      }
    })();
    expect(withFix(refused)).toStartWith(
      `${join(dir, "FILE")} is not a directory. Fix: choose a writable directory`,
    );
    expect(readFileSync(join(dir, "FILE"), "utf8")).toBe("mine");
  });
});

/** Mounts `src` read-only at a new folder (a bind mount, as root); null where that is not allowed. */
function readOnlyView(src: string): { at: string; release: () => void } | null {
  const at = `${src}-ro`;
  mkdirSync(at, { recursive: true });
  const run = (argv: string[]) => Bun.spawnSync(argv, { stdout: "ignore", stderr: "ignore" });
  if (run(["mount", "--bind", src, at]).exitCode !== 0) {
    run(["rmdir", at]);
    return null;
  }
  if (run(["mount", "-o", "remount,bind,ro", at]).exitCode !== 0) {
    run(["umount", at]);
    run(["rmdir", at]);
    return null;
  }
  return {
    at,
    release: () => {
      run(["umount", at]);
      // rmdir, never a recursive remove: were the view still mounted, it would hold src's files
      if (run(["rmdir", at]).exitCode !== 0) console.error(`${at} was left behind`);
    },
  };
}

const probe = (() => {
  const { dir: d, cleanup: c } = tempDir();
  const view = readOnlyView(d);
  view?.release();
  c();
  return view !== null;
})();

describe("a store on read-only media", () => {
  test.skipIf(!probe)("is read whether or not its WAL was checkpointed", () => {
    const src = join(dir, "media");
    mkdirSync(src);
    // A store closed cleanly: no -wal, no -shm beside it.
    const clean = join(src, "clean.db");
    const a = openStore(clean);
    a.run("INSERT INTO sweeps (id, started_at) VALUES ('swp_clean', 1)");
    a.close();
    // A store whose last writes sit in its WAL, copied without its -shm.
    const live = join(src, "live.db");
    const b = openStore(live);
    b.run("PRAGMA wal_autocheckpoint = 0");
    b.run("INSERT INTO sweeps (id, started_at) VALUES ('swp_live', 1)");
    const copy = join(src, "copied.db");
    writeFileSync(copy, readFileSync(live));
    writeFileSync(`${copy}-wal`, readFileSync(`${live}-wal`));
    b.close();
    const view = readOnlyView(src);
    if (view === null) throw new Error("the read-only mount went away");
    try {
      for (const [name, id] of [
        ["clean.db", "swp_clean"],
        ["copied.db", "swp_live"],
      ] as const) {
        const db = openStore(join(view.at, name), { readonly: true });
        expect(db.query("SELECT id FROM sweeps").all()).toEqual([{ id }]);
        db.close();
      }
    } finally {
      view.release();
    }
  });
});
