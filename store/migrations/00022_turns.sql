-- How each turn ended (bot.TurnRecord, #29 overview): one row a turn,
-- written in the transaction that marks its messages done. latency_ms is
-- NULL when the process did not see the message arrive (a resumed turn).
-- Accounting, like costs: no foreign key, nothing deletes the rows.

-- +goose Up
CREATE TABLE turns (
    id         INTEGER PRIMARY KEY,
    at         INTEGER NOT NULL,
    platform   TEXT    NOT NULL,
    agent      TEXT    NOT NULL,
    outcome    TEXT    NOT NULL,
    latency_ms INTEGER
) STRICT;
CREATE INDEX turns_at ON turns (at);

-- +goose Down
DROP TABLE turns;
