-- What the web console's lists of conversations need at scale, as
-- store/migrations/00019_console_lists.sql on SQLite and with its
-- version: a page of the newest walks sessions_activity and stops at its
-- page, a person's are found from their turns (run_signals_author) and
-- the conversations they started (kv_starters), an id prefix is a
-- range of sessions_id_bytes, and the approvals' history walks
-- approvals_decided. Ids are ordered and compared by their bytes
-- (COLLATE "C"), as SQLite's BINARY does, whatever the database's
-- collation; kv_starters' condition is starts_with, which is bytes too.

-- +goose Up
CREATE INDEX approvals_decided ON approvals (decided_at DESC, id COLLATE "C" DESC);
CREATE INDEX sessions_activity ON sessions (updated_at DESC, id COLLATE "C");
CREATE INDEX sessions_id_bytes ON sessions (id COLLATE "C");
CREATE INDEX run_signals_author ON run_signals (author, session_id);
CREATE INDEX kv_starters ON kv (value) WHERE starts_with(key, 'starter:');

-- +goose Down
DROP INDEX approvals_decided;
DROP INDEX kv_starters;
DROP INDEX run_signals_author;
DROP INDEX sessions_id_bytes;
DROP INDEX sessions_activity;
