-- Parley's notes about itself, per scope (agent/evolve): "self" — what it
-- does well and where it trips up — and "team" — what works with this
-- team. Written by reflection, injected into prompts.

-- +goose Up
CREATE TABLE self_memo (
    scope      TEXT    NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('self', 'team')),
    text       TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, kind)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE self_memo;
