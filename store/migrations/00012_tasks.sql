-- Long tasks (agent/task): a session's plan, its state and the message
-- that shows the plan, one row per session that has a plan; and its work
-- log, appended as steps happen.

-- +goose Up
CREATE TABLE tasks (
    session_id TEXT    NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    plan       TEXT    NOT NULL,
    state      TEXT    NOT NULL CHECK (state IN ('idle', 'running', 'waiting_approval', 'waiting_helpers', 'paused')),
    author     TEXT    NOT NULL,
    checklist  TEXT    NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE task_log (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    at         INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    text       TEXT    NOT NULL
) STRICT;
CREATE INDEX task_log_session ON task_log (session_id, id);

-- +goose Down
DROP TABLE task_log;
DROP TABLE tasks;
