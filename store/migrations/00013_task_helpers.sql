-- Helpers of long tasks (agent/task's delegate): one row per helper, the
-- sub-session it runs in and its result, kept the moment it exists so a
-- restart, a stop or a timeout never loses it. A helper's sub-session is
-- a sessions row in the parent's conversation that no thread is bound to.

-- +goose Up
CREATE TABLE task_helpers (
    id             INTEGER PRIMARY KEY,
    parent_session TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    helper_session TEXT    NOT NULL UNIQUE REFERENCES sessions (id) ON DELETE CASCADE,
    item           INTEGER NOT NULL CHECK (item >= 1),
    item_text      TEXT    NOT NULL,
    instruction    TEXT    NOT NULL,
    status         TEXT    NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed', 'timeout', 'stopped', 'paused')),
    result         TEXT    NOT NULL DEFAULT '',
    call_id        TEXT    NOT NULL DEFAULT '',
    turn_key       TEXT    NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX task_helpers_parent ON task_helpers (parent_session, id);

-- +goose Down
DROP TABLE task_helpers;
