-- What each model call cost (bot.Cost, #28 §4): one row per call, with who
-- the turn acted for, the agent, the place and the session, so that
-- /status, /usage, the limits and /metrics all count the same rows. The
-- price is an integer of billionths of a dollar so that sums are exact;
-- priced is 0 for a model with no known price (and nanos then 0). The
-- rows are accounting: no foreign key to sessions, nothing deletes them.

-- +goose Up
CREATE TABLE costs (
    id                 INTEGER PRIMARY KEY,
    at                 INTEGER NOT NULL,
    user_key           TEXT    NOT NULL,
    agent              TEXT    NOT NULL,
    place              TEXT    NOT NULL,
    session_id         TEXT    NOT NULL,
    model              TEXT    NOT NULL,
    input_tokens       INTEGER NOT NULL,
    cached_tokens      INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    nanos              INTEGER NOT NULL,
    priced             INTEGER NOT NULL CHECK (priced IN (0, 1))
) STRICT;
CREATE INDEX costs_at ON costs (at);
CREATE INDEX costs_user ON costs (user_key, at);
CREATE INDEX costs_agent ON costs (agent, at);
CREATE INDEX costs_session ON costs (session_id);

-- +goose Down
DROP TABLE costs;
