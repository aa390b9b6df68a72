-- How often each skill was listed in a prompt (one impression per turn).
-- Invocations, corrections after a hit and ineffective runs are counted
-- from run_signals, which records the skills each run read.

-- +goose Up
CREATE TABLE skill_impressions (
    scope       TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    impressions INTEGER NOT NULL,
    PRIMARY KEY (scope, name)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE skill_impressions;
