// A private PostgreSQL cluster for one test file: initdb into a temp dir, pg_ctl start on a free
// port of 127.0.0.1 (no Unix socket anyone else shares), a database per call of `freshDatabase`,
// and pg_ctl stop at the end. As root (CI) the server runs as the `postgres` system user, which
// initdb insists on; the temp dir is handed to that user first.
//
// Stopping: `stopAllClusters()` (the test preload's global afterAll, a bench's finally) and the
// process's exit hook; a cluster whose owner died without either (SIGKILL, a timeout) is stopped
// by the next startPgCluster on this machine, which finds it by the owner pid it records.

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type PgCluster = {
  /** postgres://… of the cluster's `postgres` database. */
  adminUrl: string;
  port: number;
  /** A new empty database on the cluster, as a URL. */
  freshDatabase(name?: string): Promise<string>;
  stop(): void;
};

/** The folder holding initdb and pg_ctl: $PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
export function pgBinDir(): string | null {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], "bin");
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function run(argv: string[]): void {
  const full = isRoot() ? ["runuser", "-u", "postgres", "--", ...argv] : argv;
  const r = spawnSync(full[0] as string, full.slice(1), { encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) {
    throw new Error(`${argv.slice(0, 2).join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
  }
}

let counter = 0;
const started = new Set<PgCluster>();
const PREFIX = "h2-pg-";

/** Stops every cluster this process started (idempotent). */
export function stopAllClusters(): void {
  for (const c of started) {
    try {
      c.stop();
    } catch (e) {
      console.error(`could not stop a test PostgreSQL cluster: ${(e as Error).message}`);
    }
  }
  started.clear();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Stops and removes the clusters of owners that are gone. */
function reapOrphans(bin: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    try {
      if (existsSync(join(dir, "data", "postmaster.pid"))) {
        run([join(bin, "pg_ctl"), "-D", join(dir, "data"), "-m", "immediate", "-w", "stop"]);
      }
    } catch {
      // Already stopped: only the folder is left.
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  if (bin === null) throw new Error("PostgreSQL is not installed (no initdb); .ci/run installs it");
  reapOrphans(bin);
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, "owner.pid"), String(process.pid));
  if (isRoot()) spawnSync("chown", ["postgres:postgres", dir]);
  const data = join(dir, "data");
  run([join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "-N"]);
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off -c max_connections=200`;
  run([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "log"), "-o", options, "-w", "start"]);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once("exit", stop);
  const cluster: PgCluster = {
    adminUrl,
    port,
    async freshDatabase(name) {
      const db = name ?? `h2_test_${process.pid}_${++counter}`;
      const admin = new Bun.SQL(adminUrl);
      try {
        await admin.unsafe(`CREATE DATABASE "${db}"`);
      } finally {
        await admin.close();
      }
      return `postgres://postgres@127.0.0.1:${port}/${db}`;
    },
    stop,
  };
  started.add(cluster);
  return cluster;
}
