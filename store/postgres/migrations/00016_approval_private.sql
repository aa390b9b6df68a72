-- Private approvals, as store/migrations/00016_approval_private.sql on
-- SQLite and with its version: only the author decides them, in a message
-- only they see.

-- +goose Up
ALTER TABLE approvals ADD COLUMN private boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE approvals DROP COLUMN private;
