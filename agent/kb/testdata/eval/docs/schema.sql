-- Core schema of the message store (pg-main), as of migration 0042.
-- Partitioned tables are created by the partition manager; only the parents
-- are defined here.

CREATE TABLE workspaces (
    id              text PRIMARY KEY,            -- "wsp_..."
    slug            text NOT NULL UNIQUE,
    region          text NOT NULL CHECK (region IN ('prod-eu1', 'prod-us2')),
    plan            text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'team', 'enterprise')),
    retention_days  integer,                     -- NULL keeps messages forever
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id              text PRIMARY KEY,            -- "usr_..."
    workspace_id    text NOT NULL REFERENCES workspaces(id),
    platform        text NOT NULL,               -- slack, discord, telegram, teams, matrix
    platform_user   text NOT NULL,
    display_name    text NOT NULL DEFAULT '',
    is_bot          boolean NOT NULL DEFAULT false,
    UNIQUE (workspace_id, platform, platform_user)
);

CREATE TABLE conversations (
    id              text PRIMARY KEY,            -- "cnv_..."
    workspace_id    text NOT NULL REFERENCES workspaces(id),
    platform        text NOT NULL,
    platform_channel text NOT NULL,
    archived_at     timestamptz,
    UNIQUE (workspace_id, platform, platform_channel)
);

CREATE TABLE messages (
    id              text NOT NULL,               -- "msg_..."
    conversation_id text NOT NULL,
    thread_id       text,
    author_id       text NOT NULL,
    body            text,                        -- NULL once deleted and purged
    created_at      timestamptz NOT NULL,
    edited_at       timestamptz,
    deleted_at      timestamptz,
    PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

-- Migration 0042: list a conversation's messages newest first without a sort.
CREATE INDEX CONCURRENTLY messages_conversation_created_idx
    ON messages (conversation_id, created_at DESC);

CREATE TABLE scheduled_jobs (
    id              bigserial PRIMARY KEY,
    workspace_id    text NOT NULL REFERENCES workspaces(id),
    conversation_id text NOT NULL REFERENCES conversations(id),
    text            text NOT NULL,
    cron            text,                        -- NULL for one-off jobs
    tz_name         text NOT NULL DEFAULT 'UTC',
    next_run_at     timestamptz NOT NULL,
    failures        integer NOT NULL DEFAULT 0,
    paused          boolean NOT NULL DEFAULT false,
    created_by      text NOT NULL REFERENCES users(id)
);

-- The scheduler's claim query filters on next_run_at and paused; a partial
-- index keeps it small because most paused jobs are never due.
CREATE INDEX scheduled_jobs_due_idx ON scheduled_jobs (next_run_at) WHERE paused = false;

CREATE TABLE job_skips (
    job_id          bigint NOT NULL REFERENCES scheduled_jobs(id) ON DELETE CASCADE,
    due_at          timestamptz NOT NULL,
    skipped_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhooks (
    id              text PRIMARY KEY,            -- "whk_..."
    workspace_id    text NOT NULL REFERENCES workspaces(id),
    url             text NOT NULL CHECK (url LIKE 'https://%'),
    events          text[] NOT NULL,
    secret_hash     bytea NOT NULL,              -- the secret itself is never stored
    consecutive_failure_days integer NOT NULL DEFAULT 0,
    disabled_at     timestamptz
);

-- Nightly retention: delete messages older than the workspace's retention.
-- Runs at 03:00 server time, in batches of 10000 rows to keep locks short.
CREATE OR REPLACE FUNCTION purge_expired_messages(batch integer DEFAULT 10000)
RETURNS integer LANGUAGE sql AS $$
    WITH doomed AS (
        SELECT m.id, m.created_at
        FROM messages m
        JOIN conversations c ON c.id = m.conversation_id
        JOIN workspaces w ON w.id = c.workspace_id
        WHERE w.retention_days IS NOT NULL
          AND m.created_at < now() - make_interval(days => w.retention_days)
        LIMIT batch
    )
    DELETE FROM messages m USING doomed d
    WHERE m.id = d.id AND m.created_at = d.created_at
    RETURNING 1
$$;

CREATE TABLE ops_heartbeat (at timestamptz NOT NULL);
