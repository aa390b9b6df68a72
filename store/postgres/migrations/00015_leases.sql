-- Replicas of Parley on one database (bot.Leases, bot.Replicas;
-- docs/replicas.md), as store/migrations/00015_leases.sql on SQLite and
-- with its version. A lease row names who holds it and until when; an
-- expired row stays until another holder takes it over or its holder
-- releases it, so "held" is always decided against the caller's now,
-- never by a sweeper. A replica row is its last heartbeat. Times come
-- from the caller's clock (never now()), to the millisecond.

-- +goose Up
CREATE TABLE leases (
    name       text        NOT NULL PRIMARY KEY,
    holder     text        NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE TABLE replicas (
    id      text        NOT NULL PRIMARY KEY,
    seen_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE replicas;
DROP TABLE leases;
