-- When each scope last reflected (agent/evolve's scheduler): kept so a
-- restart neither repeats a reflection nor forgets one is due.

-- +goose Up
CREATE TABLE reflections (
    scope   TEXT    PRIMARY KEY,
    last_at INTEGER NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE reflections;
