-- Each reflection a cycle ran (evolve.ReflectionRecord, the console's
-- Learning page): its scope, when, how many changes it made, the model
-- calls and tokens it spent, what its priced calls cost in billionths of
-- a dollar (an integer, so sums are exact) and how many calls had no
-- known price, and why it failed, "" when it did not. Rows are only ever
-- added; the page reads the newest by id. (reflections keeps only each
-- scope's last time, for the scheduler.)

-- +goose Up
CREATE TABLE reflection_log (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    scope    TEXT    NOT NULL,
    at       INTEGER NOT NULL,
    changes  INTEGER NOT NULL,
    calls    INTEGER NOT NULL,
    tokens   INTEGER NOT NULL,
    nanos    INTEGER NOT NULL,
    unpriced INTEGER NOT NULL,
    error    TEXT    NOT NULL
) STRICT;

-- +goose Down
DROP TABLE reflection_log;
