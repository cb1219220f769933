// WorkBuddy-Bench's dataset as it is published (docs/benchmarks.md "WorkBuddy: setup"): one
// `wb-bench-<subset>-v1.0.tar.gz` per subset and a `SHA256SUMS` file in the Hugging Face dataset
// repository, which the checkout's own scripts/dataset/fetch-dataset.sh fetches from
// `<endpoint>/datasets/<repo>/resolve/main/`, checks and unpacks to `datasets/wb-bench-<subset>-
// v1.0/`. setup does the same, stricter: an archive whose line in SHA256SUMS is missing or does not
// match is refused before anything is unpacked, links and paths leaving the folder are refused,
// and the subset folder appears whole (unpacked in a staging folder, renamed into place) or not at
// all. What was verified is recorded in `.harness2-datasets.json` for `check`.

import { createHash } from "node:crypto";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import * as tar from "tar";
import { z } from "zod";
import { writeFileAtomic } from "../../core/lib/atomic-write.ts";
import { dirExists, isRegularFile } from "../../core/lib/safe-fs.ts";
import { SetupError } from "../common/install.ts";

export const WB_HF_ENDPOINT = "https://huggingface.co";
export const WB_HF_REPO = "tencent/workbuddy-bench";
export const DATASETS_RECORD = ".harness2-datasets.json";

export type DatasetSource = { endpoint: string; repo: string; revision: string };

const Record_ = z.record(
  z.string(),
  z.object({ sha256: z.string(), bytes: z.number().int(), url: z.string() }),
);
export type DatasetsRecord = z.infer<typeof Record_>;

export function datasetSource(env: Record<string, string | undefined>): DatasetSource {
  return {
    endpoint: (env.HARNESS2_WB_DATASET_ENDPOINT || WB_HF_ENDPOINT).replace(/\/+$/, ""),
    repo: env.HARNESS2_WB_DATASET_REPO || WB_HF_REPO,
    revision: env.HARNESS2_WB_DATASET_REVISION || "main",
  };
}

/** The folder that holds a source's files (`<endpoint>/datasets/<repo>/resolve/<revision>`). */
export function resolveBase(s: DatasetSource): string {
  return `${s.endpoint}/datasets/${s.repo}/resolve/${s.revision}`;
}

/** The sha256 SHA256SUMS gives `file`, or null (lines `<hex>  <name>` or `<hex> *<name>`). */
export function sumOf(sums: string, file: string): string | null {
  for (const line of sums.split("\n")) {
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.trim());
    if (m && m[2] === file) return (m[1] as string).toLowerCase();
  }
  return null;
}

async function get(url: string, what: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow" });
  } catch (err) {
    throw new SetupError(
      `cannot reach ${url} for ${what} (${(err as Error).message}): check the network, or download the subsets with the checkout's scripts/dataset/fetch-dataset.sh and use --from`,
    );
  }
  if (!res.ok || res.body === null) {
    throw new SetupError(
      `${url} answered ${res.status} for ${what}: check HARNESS2_WB_DATASET_REPO and HARNESS2_WB_DATASET_REVISION`,
    );
  }
  return res;
}

/** Streams `res` into `path`, returning its sha256 and size. */
async function save(res: Response, path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  const out = createWriteStream(path);
  let bytes = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      bytes += chunk.length;
      if (!out.write(chunk)) await new Promise((r) => out.once("drain", r));
    }
  } finally {
    await new Promise<void>((r) => out.end(r));
  }
  return { sha256: hash.digest("hex"), bytes };
}

/** Unpacks `archive` into `dest`: regular files and folders only, nothing outside `dest`. */
async function unpack(archive: string, dest: string, name: string): Promise<void> {
  const refused: string[] = [];
  await tar
    .x({
      file: archive,
      cwd: dest,
      strict: true,
      preservePaths: false,
      filter: (path, entry) => {
        const type = (entry as { type?: string }).type;
        const ok = type === "File" || type === "Directory" || type === "OldFile";
        if (!ok || path.startsWith("/") || path.split("/").includes("..")) refused.push(path);
        return ok;
      },
    })
    .catch((err: Error) => {
      throw new SetupError(
        `${name}.tar.gz cannot be unpacked (${err.message}): it verified, so report it to the dataset's maintainers`,
      );
    });
  if (refused.length > 0) {
    throw new SetupError(
      `${name}.tar.gz holds links or paths outside its folder (${refused.slice(0, 3).join(", ")}): refused`,
    );
  }
}

/**
 * Downloads, verifies and unpacks one subset archive into `datasets/<name>/` (replacing an older
 * copy only once the new one is complete). Nothing is left behind on any failure.
 */
export async function fetchSubset(
  source: DatasetSource,
  datasets: string,
  name: string,
  sums: string,
): Promise<{ sha256: string; bytes: number; url: string }> {
  const file = `${name}.tar.gz`;
  const want = sumOf(sums, file);
  if (want === null) {
    throw new SetupError(
      `SHA256SUMS has no line for ${file}: an archive that cannot be verified is refused`,
    );
  }
  mkdirSync(datasets, { recursive: true });
  const stage = join(datasets, `.stage-${name}.${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, "x"), { recursive: true });
  try {
    const url = `${resolveBase(source)}/${file}`;
    const got = await save(await get(url, file), join(stage, file));
    if (got.sha256 !== want) {
      throw new SetupError(
        `${file} does not match SHA256SUMS (got ${got.sha256.slice(0, 16)}…, want ${want.slice(0, 16)}…): refused, nothing unpacked; run setup again`,
      );
    }
    await unpack(join(stage, file), join(stage, "x"), name);
    const top = join(stage, "x", name);
    if (!dirExists(join(top, "tasks"))) {
      throw new SetupError(
        `${file} does not unpack to ${name}/tasks/ as the checkout expects (datasets/README.md): refused`,
      );
    }
    const target = join(datasets, name);
    const old = `${target}.old-${process.pid}`;
    if (existsSync(target)) renameSync(target, old);
    renameSync(top, target);
    rmSync(old, { recursive: true, force: true });
    return { ...got, url };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** SHA256SUMS of the source, as text. */
export async function fetchSums(source: DatasetSource): Promise<string> {
  const res = await get(`${resolveBase(source)}/SHA256SUMS`, "SHA256SUMS");
  return await res.text();
}

export function readDatasetsRecord(root: string): DatasetsRecord | null {
  const path = join(root, DATASETS_RECORD);
  if (!isRegularFile(path)) return null;
  try {
    return Record_.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    return null;
  }
}

export function writeDatasetsRecord(root: string, rec: DatasetsRecord): void {
  const path = join(root, DATASETS_RECORD);
  writeFileAtomic(path, `${JSON.stringify(rec, null, 2)}\n`);
}
