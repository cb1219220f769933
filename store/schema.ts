// The store's schema as an ordered list of migrations; `PRAGMA user_version` records how many have
// been applied. Append a migration to change the schema — never edit or reorder a released one.
// Column names use the method's vocabulary (docs/method.md, glossary): stage, rollout, ledger,
// fell_back, kept_base.

export type Migration = {
  /** 1-based; equals the `user_version` after this migration has run. */
  version: number;
  description: string;
  sql: string;
};

/** `PRAGMA application_id` of a harness2 store ("H2DB"), so a foreign SQLite file is refused. */
export const APPLICATION_ID = 0x48324442;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "sweeps, tasks, modes, stages, rollouts, proposer calls, ledger, safety, choices",
    sql: `
CREATE TABLE sweeps (
  id            TEXT PRIMARY KEY,
  bench         TEXT NOT NULL DEFAULT '',
  substrate     TEXT NOT NULL DEFAULT '',
  ks            TEXT NOT NULL DEFAULT '[]',
  modes         TEXT NOT NULL DEFAULT '[]',
  seed          INTEGER,
  tag           TEXT NOT NULL DEFAULT '',
  argv          TEXT NOT NULL DEFAULT '[]',
  config        TEXT NOT NULL DEFAULT '{}',
  identity      TEXT NOT NULL DEFAULT '{}',
  runs_root     TEXT NOT NULL DEFAULT '',
  domains       TEXT NOT NULL DEFAULT '[]',
  -- 1 once sweep.started was recorded; 0 for a row made by a later event that arrived first
  announced     INTEGER NOT NULL DEFAULT 0,
  status        TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),
  started_at    INTEGER NOT NULL,
  finished_at   INTEGER,
  tasks_ok      INTEGER,
  tasks_failed  INTEGER,
  tasks_skipped INTEGER,
  usd           REAL,
  wall_s        REAL
) STRICT;
CREATE INDEX sweeps_experiment ON sweeps (bench, substrate, tag, id);

CREATE TABLE tasks (
  id          TEXT PRIMARY KEY,
  sweep_id    TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  domain      TEXT NOT NULL,
  task        TEXT NOT NULL,
  k           INTEGER NOT NULL CHECK (k >= 1),
  modes       TEXT NOT NULL DEFAULT '[]',
  position    INTEGER,
  of          INTEGER,
  task_dir    TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL DEFAULT 'running'
              CHECK (status IN ('running', 'ok', 'partial', 'failed', 'skipped')),
  mode_status TEXT NOT NULL DEFAULT '{}',
  usd         REAL NOT NULL DEFAULT 0,
  wall_s      REAL,
  error       TEXT NOT NULL DEFAULT '',
  skip_reason TEXT NOT NULL DEFAULT '',
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  UNIQUE (sweep_id, task, k)
) STRICT;
CREATE INDEX tasks_by_name ON tasks (task, k);

CREATE TABLE modes (
  task_id             TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  mode                TEXT NOT NULL CHECK (mode IN ('agg', 'seq')),
  status              TEXT NOT NULL DEFAULT 'running'
                      CHECK (status IN ('running', 'ok', 'degraded', 'failed')),
  phase               TEXT,
  r                   INTEGER,
  p                   INTEGER,
  expected_r          INTEGER,
  expected_p          INTEGER,
  fell_back           TEXT NOT NULL DEFAULT '[]',
  kept_base           TEXT NOT NULL DEFAULT '[]',
  similarity          TEXT,
  usd                 REAL NOT NULL DEFAULT 0,
  error               TEXT NOT NULL DEFAULT '',
  reflection_ok       INTEGER,
  reflection_no_entry INTEGER,
  reflection_usd      REAL,
  reflection_error    TEXT,
  started_at          INTEGER NOT NULL,
  finished_at         INTEGER,
  PRIMARY KEY (task_id, mode)
) STRICT;

CREATE TABLE stages (
  task_id      TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  mode         TEXT NOT NULL CHECK (mode IN ('agg', 'seq')),
  label        TEXT NOT NULL,
  dim          TEXT NOT NULL,
  finished     INTEGER NOT NULL DEFAULT 0,
  fell_back    INTEGER,
  kept_base    INTEGER,
  attempts     INTEGER,
  usd          REAL,
  cached       INTEGER,
  error        TEXT NOT NULL DEFAULT '',
  notes        TEXT NOT NULL DEFAULT '',
  evidence_dir TEXT NOT NULL DEFAULT '',
  harness_dir  TEXT NOT NULL DEFAULT '',
  started_at   INTEGER,
  finished_at  INTEGER,
  UNIQUE (task_id, mode, label)
) STRICT;

CREATE TABLE rollouts (
  task_id     TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  label       TEXT NOT NULL,
  run_id      TEXT NOT NULL,
  finished    INTEGER NOT NULL DEFAULT 0,
  run_dir     TEXT NOT NULL DEFAULT '',
  ok          INTEGER,
  delivered   INTEGER,
  usd         REAL NOT NULL DEFAULT 0,
  wall_s      REAL,
  reused      INTEGER,
  error       TEXT NOT NULL DEFAULT '',
  started_at  INTEGER,
  finished_at INTEGER,
  UNIQUE (task_id, run_id)
) STRICT;
CREATE INDEX rollouts_by_run ON rollouts (run_id);

CREATE TABLE proposer_calls (
  id         INTEGER PRIMARY KEY,
  sweep_id   TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  task_id    TEXT REFERENCES tasks (id) ON DELETE CASCADE,
  mode       TEXT,
  label      TEXT NOT NULL,
  purpose    TEXT NOT NULL,
  attempts   INTEGER NOT NULL,
  channel    TEXT NOT NULL,
  model      TEXT NOT NULL,
  cached     INTEGER NOT NULL,
  wall_s     REAL NOT NULL,
  usd        REAL NOT NULL,
  error      TEXT NOT NULL,
  audit_path TEXT NOT NULL,
  at         INTEGER NOT NULL
) STRICT;
CREATE INDEX proposer_calls_by_sweep ON proposer_calls (sweep_id);
CREATE INDEX proposer_calls_by_task ON proposer_calls (task_id);

-- One row per ledger entry; seq = R + P after the entry, which orders a mode's ledger.
CREATE TABLE ledger_entries (
  task_id  TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  mode     TEXT NOT NULL CHECK (mode IN ('agg', 'seq')),
  seq      INTEGER NOT NULL,
  kind     TEXT NOT NULL CHECK (kind IN ('rollout', 'session')),
  label    TEXT NOT NULL,
  usd      REAL NOT NULL,
  cached   INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  r        INTEGER NOT NULL,
  p        INTEGER NOT NULL,
  at       INTEGER NOT NULL,
  PRIMARY KEY (task_id, mode, seq)
) STRICT, WITHOUT ROWID;

-- stage = where it tripped: a stage label, "selection", "reflection", "library", …
CREATE TABLE tripwires (
  id       INTEGER PRIMARY KEY,
  sweep_id TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  task_id  TEXT REFERENCES tasks (id) ON DELETE CASCADE,
  domain   TEXT,
  task     TEXT,
  mode     TEXT,
  kind     TEXT NOT NULL,
  path     TEXT NOT NULL,
  marker   TEXT NOT NULL,
  stage    TEXT NOT NULL,
  message  TEXT NOT NULL,
  at       INTEGER NOT NULL
) STRICT;
CREATE INDEX tripwires_by_sweep ON tripwires (sweep_id);
CREATE INDEX tripwires_by_task ON tripwires (task_id);

CREATE TABLE selections (
  task_id             TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  mode                TEXT NOT NULL CHECK (mode IN ('agg', 'seq')),
  k                   INTEGER NOT NULL,
  anon_id             TEXT NOT NULL,
  chosen_label        TEXT NOT NULL,
  id_map              TEXT NOT NULL,
  why                 TEXT NOT NULL,
  ok                  INTEGER NOT NULL,
  fallback            INTEGER NOT NULL,
  trivial             INTEGER NOT NULL,
  dropped             TEXT NOT NULL,
  usd                 REAL NOT NULL,
  error               TEXT NOT NULL,
  chosen_run_id       TEXT,
  chosen_run_dir      TEXT,
  harness_fingerprint TEXT,
  evidence            TEXT,
  at                  INTEGER NOT NULL,
  PRIMARY KEY (task_id, mode)
) STRICT;

CREATE TABLE library_entries (
  id         INTEGER PRIMARY KEY,
  task_id    TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  mode       TEXT NOT NULL CHECK (mode IN ('agg', 'seq')),
  entry      TEXT NOT NULL,
  cue        TEXT NOT NULL,
  lesson     TEXT NOT NULL,
  confidence TEXT NOT NULL,
  path       TEXT NOT NULL,
  at         INTEGER NOT NULL,
  UNIQUE (task_id, mode, entry)
) STRICT;

-- subject = the judged run id, or "<sweep>:<task>:<mode>:<k>" for a row with no pick. A graded
-- row is never replaced by a later ungraded one (the writer's upsert enforces it).
CREATE TABLE judgments (
  subject  TEXT PRIMARY KEY,
  sweep_id TEXT NOT NULL,
  task_id  TEXT REFERENCES tasks (id) ON DELETE SET NULL,
  domain   TEXT NOT NULL,
  task     TEXT NOT NULL,
  mode     TEXT NOT NULL,
  k        INTEGER NOT NULL,
  label    TEXT NOT NULL,
  run_id   TEXT NOT NULL,
  graded   INTEGER NOT NULL,
  score    REAL,
  passed   REAL,
  total    REAL,
  reason   TEXT NOT NULL,
  judge    TEXT NOT NULL,
  at       INTEGER NOT NULL
) STRICT;
CREATE INDEX judgments_by_task ON judgments (task_id);
CREATE INDEX judgments_by_sweep ON judgments (sweep_id);

CREATE TABLE notes (
  id       INTEGER PRIMARY KEY,
  sweep_id TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  task     TEXT,
  level    TEXT NOT NULL CHECK (level IN ('info', 'warn', 'error')),
  message  TEXT NOT NULL,
  at       INTEGER NOT NULL
) STRICT;
CREATE INDEX notes_by_sweep ON notes (sweep_id);

-- The raw event log: every recorded event, validated, in arrival order.
CREATE TABLE events (
  seq      INTEGER PRIMARY KEY,
  sweep_id TEXT NOT NULL,
  type     TEXT NOT NULL,
  ts       INTEGER NOT NULL,
  body     TEXT NOT NULL
) STRICT;
CREATE INDEX events_by_sweep ON events (sweep_id, seq);

-- Who is running a namespace right now (store/lock.ts).
CREATE TABLE locks (
  namespace    TEXT PRIMARY KEY,
  sweep_id     TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  hostname     TEXT NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) STRICT;

-- Money spent by a sweep: improver sessions that were not served from cache, plus executor
-- rollouts that were not reused.
CREATE VIEW sweep_spend AS
SELECT s.id AS sweep_id,
       COALESCE((SELECT SUM(c.usd) FROM proposer_calls c
                 WHERE c.sweep_id = s.id AND c.cached = 0), 0) AS improver_usd,
       COALESCE((SELECT SUM(r.usd) FROM rollouts r JOIN tasks t ON t.id = r.task_id
                 WHERE t.sweep_id = s.id AND COALESCE(r.reused, 0) = 0), 0) AS executor_usd
FROM sweeps s;
`,
  },
  {
    version: 2,
    description: "adoption facts on selections, so resume is decided from the store alone",
    // What resume re-checks about an adopted output (docs/method.md §11), recorded once the task's
    // record is checkpointed (src/cli/sweep/store-resume.ts); adopted_at is NULL until then.
    sql: `
ALTER TABLE selections ADD COLUMN output_digest TEXT;
ALTER TABLE selections ADD COLUMN chosen_tree_is_base INTEGER;
ALTER TABLE selections ADD COLUMN experience TEXT;
ALTER TABLE selections ADD COLUMN adopted_at INTEGER;
`,
  },
  {
    version: 3,
    description: "whether a rollout's cost is known (a Codex model without a price is not)",
    sql: `
ALTER TABLE rollouts ADD COLUMN priced INTEGER NOT NULL DEFAULT 1;
`,
  },
  {
    version: 4,
    description:
      "why an interrupted sweep stopped when the user did not stop it (the spending cap)",
    sql: `
ALTER TABLE sweeps ADD COLUMN stop_reason TEXT NOT NULL DEFAULT '';
`,
  },
  {
    version: 5,
    description:
      "the tokens a rollout reported, which --max-tokens counts when its cost is unknown",
    sql: `
ALTER TABLE rollouts ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
`,
  },
];

export const SCHEMA_VERSION: number = MIGRATIONS.length;
