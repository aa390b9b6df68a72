-- Each reflection a cycle ran, as store/migrations/00021_reflection_log.sql
-- on SQLite and with its version: its scope, when, how many changes, the
-- calls and tokens spent, the priced calls' cost in billionths of a dollar
-- and the unpriced calls counted, and why it failed ("" when it did not).
-- Rows are only ever added; the newest are read by id. at comes from the
-- caller (never now()), to the millisecond.

-- +goose Up
CREATE TABLE reflection_log (
    id       bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope    text        NOT NULL,
    at       timestamptz NOT NULL,
    changes  bigint      NOT NULL,
    calls    bigint      NOT NULL,
    tokens   bigint      NOT NULL,
    nanos    bigint      NOT NULL,
    unpriced bigint      NOT NULL,
    error    text        NOT NULL
);

-- +goose Down
DROP TABLE reflection_log;
