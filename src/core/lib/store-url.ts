// What HARNESS2_DB names: a SQLite file (a path), or a PostgreSQL database (postgres://…, the
// shared store of many machines, docs/architecture.md "Many machines"). Any other URL, and a
// PostgreSQL URL that cannot be one, is said in one line without the URL's password.

const URL_LIKE = /^([a-z][a-z0-9+.-]*):\/\//i;
const PG_SCHEMES = new Set(["postgres", "postgresql"]);
const PG_FORM = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE";

/** The setting as a message may show it: a URL without its password, a path as it is. */
export function maskedStoreValue(value: string): string {
  const m = URL_LIKE.exec(value);
  if (m === null) return value;
  try {
    const url = new URL(value.trim());
    if (url.password !== "") url.password = "***";
    return url.toString();
  } catch {
    return `${m[1]}://…`;
  }
}

/** A PostgreSQL store's address, parsed: what messages name and what the client connects to. */
export type PgAddress = {
  url: string;
  host: string;
  port: number;
  database: string;
  user: string;
  /** host:port/database, for messages. */
  where: string;
};

/** Whether `value` is a PostgreSQL URL at all (a well-formed one or not). */
export function isPgUrl(value: string | undefined): boolean {
  const m = value === undefined ? null : URL_LIKE.exec(value.trim());
  return m !== null && PG_SCHEMES.has((m[1] ?? "").toLowerCase());
}

/** The parsed address of a PostgreSQL URL, or the one line saying why it is not one. */
export function pgAddress(value: string): PgAddress | string {
  const shown = maskedStoreValue(value);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return `HARNESS2_DB=${shown} is not a valid PostgreSQL connection string. Set HARNESS2_DB to ${PG_FORM}`;
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (url.hostname === "") {
    return `HARNESS2_DB=${shown} names no host. Set HARNESS2_DB to ${PG_FORM}`;
  }
  if (database === "" || database.includes("/")) {
    return `HARNESS2_DB=${shown} names no database (or more than one path part). Set HARNESS2_DB to ${PG_FORM}`;
  }
  const port = url.port === "" ? 5432 : Number(url.port);
  const user = decodeURIComponent(url.username) || "postgres";
  return {
    url: value.trim(),
    host: url.hostname,
    port,
    database,
    user,
    where: `${url.hostname}:${port}/${database}`,
  };
}

/**
 * Why `value` cannot name the store, or null when it can: a path (SQLite) or a well-formed
 * PostgreSQL URL. The message is one sentence, then `. Set …` with the fix.
 */
export function storeUrlProblem(value: string | undefined): string | null {
  if (value === undefined) return null;
  const m = URL_LIKE.exec(value.trim());
  if (m === null) return null;
  if (PG_SCHEMES.has((m[1] ?? "").toLowerCase())) {
    const parsed = pgAddress(value);
    return typeof parsed === "string" ? parsed : null;
  }
  return `HARNESS2_DB=${m[1]}://… names a database server harness2 cannot use: the run store is a SQLite file or a PostgreSQL database. Set HARNESS2_DB to a file path or to ${PG_FORM}, or unset it for <runs>/harness2.db`;
}
