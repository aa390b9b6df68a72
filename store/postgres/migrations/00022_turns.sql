-- How turns ended, as store/migrations/00022_turns.sql on SQLite and with
-- its version: a count per hour, outcome and latency bucket (milliseconds;
-- 0 unknown), added to in the transaction that marks a turn's messages
-- done. hour comes from the caller (never now()).

-- +goose Up
CREATE TABLE turn_hours (
    hour       timestamptz NOT NULL,
    outcome    text        NOT NULL,
    latency_ms bigint      NOT NULL,
    n          bigint      NOT NULL,
    PRIMARY KEY (hour, outcome, latency_ms)
);

-- +goose Down
DROP TABLE turn_hours;
