-- Replicas of Parley on one database (bot.Leases, bot.Replicas;
-- docs/replicas.md). A lease row names who holds it and until when; an
-- expired row stays until another holder takes it over or its holder
-- releases it, so "held" is always decided against the caller's now,
-- never by a sweeper. A replica row is its last heartbeat. Times are unix
-- milliseconds from the caller's clock, like every other table's.

-- +goose Up
CREATE TABLE leases (
    name       TEXT    NOT NULL PRIMARY KEY,
    holder     TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;

CREATE TABLE replicas (
    id      TEXT    NOT NULL PRIMARY KEY,
    seen_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE replicas;
DROP TABLE leases;
