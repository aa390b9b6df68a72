-- The whole schema Parley's storage is built on (docs/architecture.md,
-- "The flow" and the contracts sections).
--
-- Conventions:
--   * Times are INTEGER unix milliseconds (UTC); NULL means "not yet".
--   * Thread identity is four TEXT columns (platform, space, chat, thread)
--     mirroring bot.Thread; empty string, never NULL, for a part a platform
--     lacks, so the columns can form a primary key.
--   * JSON columns are TEXT checked with json_valid, so sqlite3's JSON
--     functions can query them and a bad write fails loudly.
--   * Tables are STRICT: a value of the wrong type is an error, not a silent
--     conversion.

-- +goose Up

-- One agent conversation. The thread columns record where the session was
-- started; the threads table says which session a thread uses now.
CREATE TABLE sessions (
    id         TEXT    NOT NULL PRIMARY KEY,
    platform   TEXT    NOT NULL,
    space      TEXT    NOT NULL DEFAULT '',
    chat       TEXT    NOT NULL DEFAULT '',
    thread     TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

-- A session's transcript, in id order. body is the JSON of one llm.Message;
-- role is copied out of it so it can be queried without parsing JSON.
CREATE TABLE messages (
    id         INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    role       TEXT    NOT NULL,
    body       TEXT    NOT NULL CHECK (json_valid(body)),
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_by_session ON messages (session_id, id);

-- The durable thread → session map: a restart never rebinds a thread, and
-- /new rebinds it to a fresh session.
CREATE TABLE threads (
    platform   TEXT    NOT NULL,
    space      TEXT    NOT NULL,
    chat       TEXT    NOT NULL,
    thread     TEXT    NOT NULL,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (platform, space, chat, thread)
) STRICT, WITHOUT ROWID;
CREATE INDEX threads_by_session ON threads (session_id);

-- People, keyed like bot.User.Key(): "platform:id".
CREATE TABLE users (
    key        TEXT    NOT NULL PRIMARY KEY,
    platform   TEXT    NOT NULL,
    name       TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Each user's two memory lists. An entry's position in its list is its id
-- order within (user_key, target); AUTOINCREMENT guarantees a new entry sorts
-- after every entry that ever existed.
CREATE TABLE memory_entries (
    id         INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    user_key   TEXT    NOT NULL REFERENCES users (key) ON DELETE CASCADE,
    target     TEXT    NOT NULL CHECK (target IN ('profile', 'facts')),
    content    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX memory_entries_by_user ON memory_entries (user_key, target, id);

-- Every inbound event under its durable key (Slack team:channel:ts, Telegram
-- update_id, Discord snowflake). A key is accepted once, ever; rows stay so
-- a redelivery after a restart is still recognised.
CREATE TABLE inbox (
    key         TEXT    NOT NULL PRIMARY KEY,
    platform    TEXT    NOT NULL,
    payload     BLOB,
    status      TEXT    NOT NULL DEFAULT 'accepted'
                        CHECK (status IN ('accepted', 'done', 'failed')),
    received_at INTEGER NOT NULL,
    done_at     INTEGER
) STRICT;
-- Finds events accepted but never finished (a crash mid-turn) at startup.
CREATE INDEX inbox_by_status ON inbox (status, received_at);

-- One reply record per agent turn (docs/architecture.md, One reply, one
-- message).
-- refs is the JSON array of platform message references the reply has
-- produced; every send or retry consults it first, so a crash or a 429 never
-- yields a second copy. status is left unconstrained on purpose: the delivery
-- state machine owns its states.
CREATE TABLE outbox (
    id         INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    inbox_key  TEXT,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    platform   TEXT    NOT NULL,
    space      TEXT    NOT NULL DEFAULT '',
    chat       TEXT    NOT NULL DEFAULT '',
    thread     TEXT    NOT NULL DEFAULT '',
    refs       TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),
    text       TEXT    NOT NULL DEFAULT '',
    status     TEXT    NOT NULL DEFAULT 'pending',
    attempts   INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
-- An inbound event owns at most one reply: a retried turn finds its record.
CREATE UNIQUE INDEX outbox_by_inbox_key ON outbox (inbox_key) WHERE inbox_key IS NOT NULL;
CREATE INDEX outbox_by_status ON outbox (status, updated_at);
CREATE INDEX outbox_by_session ON outbox (session_id);

-- Approvals are records, not goroutines: a pending approval survives a
-- restart and stays decidable until it expires. requester, approvers and
-- decided_by hold user keys; refs the JSON platform refs of the message
-- carrying the buttons.
CREATE TABLE approvals (
    id           TEXT    NOT NULL PRIMARY KEY,
    session_id   TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    tool_call_id TEXT    NOT NULL,
    tool_name    TEXT    NOT NULL,
    summary      TEXT    NOT NULL,
    requester    TEXT    NOT NULL,
    approvers    TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(approvers)),
    status       TEXT    NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
    decided_by   TEXT,
    refs         TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),
    expires_at   INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    decided_at   INTEGER
) STRICT;
-- The expiry sweep: pending approvals ordered by deadline.
CREATE INDEX approvals_by_status_expiry ON approvals (status, expires_at);
-- A tool call asks for approval once.
CREATE UNIQUE INDEX approvals_by_tool_call ON approvals (session_id, tool_call_id);

-- Small named values that must survive restarts, such as platform cursors
-- (Telegram's next update offset).
CREATE TABLE kv (
    key        TEXT    NOT NULL PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE kv;
DROP TABLE approvals;
DROP TABLE outbox;
DROP TABLE inbox;
DROP TABLE memory_entries;
DROP TABLE users;
DROP TABLE threads;
DROP TABLE messages;
DROP TABLE sessions;
