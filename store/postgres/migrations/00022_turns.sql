-- How each turn ended, as store/migrations/00022_turns.sql on SQLite and
-- with its version: one row a turn, written in the transaction that marks
-- its messages done; latency_ms NULL for a resumed turn. at comes from
-- the caller (never now()), to the millisecond.

-- +goose Up
CREATE TABLE turns (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL,
    platform   text        NOT NULL,
    agent      text        NOT NULL,
    outcome    text        NOT NULL,
    latency_ms bigint
);
CREATE INDEX turns_at ON turns (at);

-- +goose Down
DROP TABLE turns;
