-- The whole schema of Parley's storage on PostgreSQL: the SQLite schema
-- as store/migrations 00001 to 00014 leave it, in one step. It is
-- numbered 14 so that a migration added later to both engines carries the
-- same version in each goose_db_version table.
--
-- Conventions (where they differ from SQLite's):
--   * Times are timestamptz, written by the store from its injected clock
--     (never now()) and truncated to the millisecond, as SQLite's unix
--     milliseconds are; NULL means "not yet" or "never".
--   * Ids are identity columns; order by id is insertion order wherever
--     the store relies on it, because every such insert takes a row lock
--     first (see the methods' comments).
--   * JSON lists are jsonb; a transcript message body is text, since jsonb
--     refuses \u0000, which people's text may hold.
--   * Booleans are boolean.

-- +goose Up

CREATE TABLE sessions (
    id         text        NOT NULL PRIMARY KEY,
    platform   text        NOT NULL,
    space      text        NOT NULL DEFAULT '',
    chat       text        NOT NULL DEFAULT '',
    thread     text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE messages (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id text        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    role       text        NOT NULL,
    body       text        NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX messages_by_session ON messages (session_id, id);

CREATE TABLE threads (
    platform   text        NOT NULL,
    space      text        NOT NULL,
    chat       text        NOT NULL,
    thread     text        NOT NULL,
    session_id text        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space, chat, thread)
);
CREATE INDEX threads_by_session ON threads (session_id);

CREATE TABLE users (
    key        text        NOT NULL PRIMARY KEY,
    platform   text        NOT NULL,
    name       text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE memory_entries (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_key   text        NOT NULL REFERENCES users (key) ON DELETE CASCADE,
    target     text        NOT NULL CHECK (target IN ('profile', 'facts')),
    content    text        NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX memory_entries_by_user ON memory_entries (user_key, target, id);

-- seq stands in for SQLite's rowid: Unfinished lists events received in
-- the same millisecond in the order they were accepted.
CREATE TABLE inbox (
    key         text        NOT NULL PRIMARY KEY,
    seq         bigint      GENERATED ALWAYS AS IDENTITY,
    platform    text        NOT NULL,
    payload     bytea,
    status      text        NOT NULL DEFAULT 'accepted'
                            CHECK (status IN ('accepted', 'done', 'failed')),
    received_at timestamptz NOT NULL,
    done_at     timestamptz
);
CREATE INDEX inbox_by_status ON inbox (status, received_at, seq);

CREATE TABLE outbox (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    inbox_key  text,
    session_id text        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    platform   text        NOT NULL,
    space      text        NOT NULL DEFAULT '',
    chat       text        NOT NULL DEFAULT '',
    thread     text        NOT NULL DEFAULT '',
    refs       jsonb       NOT NULL DEFAULT '[]',
    text       text        NOT NULL DEFAULT '',
    status     text        NOT NULL DEFAULT 'pending',
    attempts   integer     NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX outbox_by_inbox_key ON outbox (inbox_key) WHERE inbox_key IS NOT NULL;
CREATE INDEX outbox_by_status ON outbox (status, updated_at);
CREATE INDEX outbox_by_session ON outbox (session_id);

CREATE TABLE approvals (
    id           text        NOT NULL PRIMARY KEY,
    session_id   text        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    tool_call_id text        NOT NULL,
    tool_name    text        NOT NULL,
    summary      text        NOT NULL,
    requester    text        NOT NULL,
    approvers    jsonb       NOT NULL DEFAULT '[]',
    status       text        NOT NULL DEFAULT 'pending'
                             CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
    decided_by   text,
    refs         jsonb       NOT NULL DEFAULT '[]',
    expires_at   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL,
    decided_at   timestamptz,
    mandatory    boolean     NOT NULL DEFAULT false,
    risks        jsonb       NOT NULL DEFAULT '[]'
);
CREATE INDEX approvals_by_status_expiry ON approvals (status, expires_at);
CREATE UNIQUE INDEX approvals_by_tool_call ON approvals (session_id, tool_call_id);

CREATE TABLE kv (
    key        text        NOT NULL PRIMARY KEY,
    value      text        NOT NULL,
    updated_at timestamptz NOT NULL
);

-- The knowledge base. The keyword index is kb_chunks.tsv, a tsvector the
-- store builds from kb.IndexText's columns (body weight A, single CJK
-- characters B, the document's name C): see store/postgres/kb_index.go.
CREATE TABLE kb_documents (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope         text        NOT NULL,
    source        text        NOT NULL,
    title         text        NOT NULL DEFAULT '',
    kind          text        NOT NULL,
    hash          text        NOT NULL,
    bytes         bigint      NOT NULL,
    added_by      text        NOT NULL,
    added_by_name text        NOT NULL DEFAULT '',
    added_at      timestamptz NOT NULL,
    modified_at   timestamptz,
    UNIQUE (scope, source)
);
CREATE INDEX kb_documents_hash ON kb_documents (scope, hash);
CREATE INDEX kb_documents_size ON kb_documents (scope, bytes);

CREATE TABLE kb_chunks (
    id         bigint   GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_id     bigint   NOT NULL REFERENCES kb_documents (id) ON DELETE CASCADE,
    scope      text     NOT NULL,
    start_line integer  NOT NULL,
    end_line   integer  NOT NULL,
    hash       text     NOT NULL,
    text       text     NOT NULL,
    tsv        tsvector NOT NULL
);
CREATE INDEX kb_chunks_doc ON kb_chunks (doc_id);
CREATE INDEX kb_chunks_scope ON kb_chunks (scope);
CREATE INDEX kb_chunks_hash ON kb_chunks (hash);
CREATE INDEX kb_chunks_tsv ON kb_chunks USING gin (tsv);

-- vec is little-endian float32s, as in SQLite.
CREATE TABLE kb_vectors (
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model text   NOT NULL,
    hash  text   NOT NULL,
    vec   bytea  NOT NULL,
    UNIQUE (model, hash)
);

CREATE TABLE kb_state (
    id         integer PRIMARY KEY CHECK (id = 1),
    generation bigint  NOT NULL
);
INSERT INTO kb_state (id, generation) VALUES (1, 0);

CREATE TABLE run_signals (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope            text        NOT NULL,
    session_id       text        NOT NULL,
    author           text        NOT NULL,
    msg_key          text        NOT NULL,
    at               timestamptz NOT NULL,
    tool_calls       integer     NOT NULL,
    transient_errors integer     NOT NULL,
    real_errors      integer     NOT NULL,
    recovered        boolean     NOT NULL,
    ended_in_error   boolean     NOT NULL,
    stopped          boolean     NOT NULL,
    corrected        boolean     NOT NULL DEFAULT false,
    skills_read      jsonb       NOT NULL DEFAULT '[]',
    weakness         boolean     NOT NULL DEFAULT false
);
CREATE INDEX run_signals_scope ON run_signals (scope, at);
CREATE INDEX run_signals_session ON run_signals (session_id, author, id);

CREATE TABLE skill_impressions (
    scope       text    NOT NULL,
    name        text    NOT NULL,
    impressions integer NOT NULL,
    PRIMARY KEY (scope, name)
);

CREATE TABLE reflections (
    scope   text        PRIMARY KEY,
    last_at timestamptz NOT NULL
);

CREATE TABLE self_memo (
    scope      text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('self', 'team')),
    text       text        NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (scope, kind)
);

CREATE TABLE learning_revisions (
    id     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope  text        NOT NULL,
    kind   text        NOT NULL CHECK (kind IN ('skill', 'memo')),
    name   text        NOT NULL,
    action text        NOT NULL,
    before text        NOT NULL,
    at     timestamptz NOT NULL
);
CREATE INDEX learning_revisions_scope ON learning_revisions (scope, id);

CREATE TABLE reminders (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text        NOT NULL CHECK (kind IN ('reminder', 'schedule')),
    scope       text        NOT NULL,
    owner       text        NOT NULL,
    owner_name  text        NOT NULL DEFAULT '',
    targets     jsonb       NOT NULL DEFAULT '[]',
    platform    text        NOT NULL,
    space       text        NOT NULL DEFAULT '',
    chat        text        NOT NULL DEFAULT '',
    thread      text        NOT NULL DEFAULT '',
    direct      boolean     NOT NULL DEFAULT false,
    text        text        NOT NULL,
    spec        text        NOT NULL DEFAULT '',
    zone        text        NOT NULL,
    next        timestamptz NOT NULL,
    status      text        NOT NULL CHECK (status IN ('active', 'paused', 'done', 'cancelled')),
    created_at  timestamptz NOT NULL,
    last_run    timestamptz,
    last_result text        NOT NULL DEFAULT '',
    failures    integer     NOT NULL DEFAULT 0
);
CREATE INDEX reminders_due ON reminders (status, next);
CREATE INDEX reminders_owner ON reminders (scope, owner, status);

CREATE TABLE reminder_claims (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    item_id      bigint      NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    occurrence   timestamptz NOT NULL,
    claimed_at   timestamptz NOT NULL,
    delivered_at timestamptz,
    UNIQUE (item_id, occurrence)
);
CREATE INDEX reminder_claims_pending ON reminder_claims (id) WHERE delivered_at IS NULL;
CREATE INDEX reminder_claims_delivered ON reminder_claims (delivered_at) WHERE delivered_at IS NOT NULL;

CREATE TABLE tasks (
    session_id text        NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    plan       text        NOT NULL,
    state      text        NOT NULL CHECK (state IN ('idle', 'running', 'waiting_approval', 'waiting_helpers', 'paused')),
    author     text        NOT NULL,
    checklist  text        NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL
);

CREATE TABLE task_log (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id text        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    at         timestamptz NOT NULL,
    kind       text        NOT NULL,
    text       text        NOT NULL
);
CREATE INDEX task_log_session ON task_log (session_id, id);

CREATE TABLE task_helpers (
    id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    parent_session text        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    helper_session text        NOT NULL UNIQUE REFERENCES sessions (id) ON DELETE CASCADE,
    item           integer     NOT NULL CHECK (item >= 1),
    item_text      text        NOT NULL,
    instruction    text        NOT NULL,
    status         text        NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed', 'timeout', 'stopped', 'paused')),
    result         text        NOT NULL DEFAULT '',
    call_id        text        NOT NULL DEFAULT '',
    turn_key       text        NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);
CREATE INDEX task_helpers_parent ON task_helpers (parent_session, id);

CREATE TABLE session_files (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id text        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    sha256     text        NOT NULL CHECK (length(sha256) = 64),
    mime       text        NOT NULL,
    data       bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (session_id, sha256)
);

-- +goose Down
DROP TABLE session_files, task_helpers, task_log, tasks, reminder_claims, reminders,
    learning_revisions, self_memo, reflections, skill_impressions, run_signals,
    kb_state, kb_vectors, kb_chunks, kb_documents, kv, approvals, outbox, inbox,
    memory_entries, users, threads, messages, sessions;
