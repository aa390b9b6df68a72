-- What each model call cost, as store/migrations/00017_costs.sql on
-- SQLite and with its version: one row per call, the price an integer of
-- billionths of a dollar so that sums are exact. The rows are accounting:
-- no foreign key to sessions, nothing deletes them. at comes from the
-- caller (never now()), to the millisecond.

-- +goose Up
CREATE TABLE costs (
    id                 bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at                 timestamptz NOT NULL,
    user_key           text        NOT NULL,
    agent              text        NOT NULL,
    place              text        NOT NULL,
    session_id         text        NOT NULL,
    model              text        NOT NULL,
    input_tokens       bigint      NOT NULL,
    cached_tokens      bigint      NOT NULL,
    cache_write_tokens bigint      NOT NULL,
    output_tokens      bigint      NOT NULL,
    nanos              bigint      NOT NULL,
    priced             boolean     NOT NULL
);
CREATE INDEX costs_at ON costs (at);
CREATE INDEX costs_user ON costs (user_key, at);
CREATE INDEX costs_agent ON costs (agent, at);
CREATE INDEX costs_session ON costs (session_id);

-- +goose Down
DROP TABLE costs;
