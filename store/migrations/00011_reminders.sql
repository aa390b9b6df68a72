-- Reminders and scheduled runs (agent/remind). An item's next is its next
-- due occurrence (unix ms, UTC); the loop claims active items whose next
-- has come, one claim row per occurrence, and advances them in the same
-- transaction. A claim stays pending (delivered_at NULL) until the bot has
-- delivered it, so a crash in between delivers it again, never loses it.

-- +goose Up
CREATE TABLE reminders (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL CHECK (kind IN ('reminder', 'schedule')),
    scope       TEXT    NOT NULL,
    owner       TEXT    NOT NULL,
    owner_name  TEXT    NOT NULL DEFAULT '',
    targets     TEXT    NOT NULL DEFAULT '[]',
    platform    TEXT    NOT NULL,
    space       TEXT    NOT NULL DEFAULT '',
    chat        TEXT    NOT NULL DEFAULT '',
    thread      TEXT    NOT NULL DEFAULT '',
    direct      INTEGER NOT NULL DEFAULT 0,
    text        TEXT    NOT NULL,
    spec        TEXT    NOT NULL DEFAULT '',
    zone        TEXT    NOT NULL,
    next        INTEGER NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('active', 'paused', 'done', 'cancelled')),
    created_at  INTEGER NOT NULL,
    last_run    INTEGER NOT NULL DEFAULT 0,
    last_result TEXT    NOT NULL DEFAULT '',
    failures    INTEGER NOT NULL DEFAULT 0
);
-- The loop's questions: the earliest active next, and what is due.
CREATE INDEX reminders_due ON reminders (status, next);
-- A person's items in a scope (listing, and the cap on AddItem).
CREATE INDEX reminders_owner ON reminders (scope, owner, status);

CREATE TABLE reminder_claims (
    id           INTEGER PRIMARY KEY,
    item_id      INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    occurrence   INTEGER NOT NULL,
    claimed_at   INTEGER NOT NULL,
    delivered_at INTEGER,
    UNIQUE (item_id, occurrence)
);
CREATE INDEX reminder_claims_pending ON reminder_claims (id) WHERE delivered_at IS NULL;
CREATE INDEX reminder_claims_delivered ON reminder_claims (delivered_at) WHERE delivered_at IS NOT NULL;

-- +goose Down
DROP TABLE reminder_claims;
DROP TABLE reminders;
