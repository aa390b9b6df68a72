-- What reflection changed, so a person can undo it (/skills undo N): the
-- skill file or memo note as it was before ("" when the change created it).

-- +goose Up
CREATE TABLE learning_revisions (
    id     INTEGER PRIMARY KEY,
    scope  TEXT    NOT NULL,
    kind   TEXT    NOT NULL CHECK (kind IN ('skill', 'memo')),
    name   TEXT    NOT NULL,
    action TEXT    NOT NULL,
    before TEXT    NOT NULL,
    at     INTEGER NOT NULL
);
CREATE INDEX learning_revisions_scope ON learning_revisions (scope, id);

-- +goose Down
DROP TABLE learning_revisions;
