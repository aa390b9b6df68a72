-- What each run told about itself (agent/evolve): counted at its end, at
-- no model cost; "corrected" is set when the person's next message in
-- the conversation reads as a correction.

-- +goose Up
CREATE TABLE run_signals (
    id               INTEGER PRIMARY KEY,
    scope            TEXT    NOT NULL,
    session_id       TEXT    NOT NULL,
    author           TEXT    NOT NULL,
    msg_key          TEXT    NOT NULL,
    at               INTEGER NOT NULL,
    tool_calls       INTEGER NOT NULL,
    transient_errors INTEGER NOT NULL,
    real_errors      INTEGER NOT NULL,
    recovered        INTEGER NOT NULL,
    ended_in_error   INTEGER NOT NULL,
    stopped          INTEGER NOT NULL,
    corrected        INTEGER NOT NULL DEFAULT 0,
    skills_read      TEXT    NOT NULL DEFAULT '[]'
);
CREATE INDEX run_signals_scope ON run_signals (scope, at);
CREATE INDEX run_signals_session ON run_signals (session_id, author, id);

-- +goose Down
DROP TABLE run_signals;
