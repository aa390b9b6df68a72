-- Skills (evolve.SkillStore, docs/evolution.md) in the store, so every
-- replica of a deployment offers the same skills; they were Markdown
-- files under each replica's data_dir, imported once at start. slug is a
-- skill's key in its scope (its file name in the Markdown form). origin is
-- where an installed skill came from ('' for one reflection learnt); files
-- are an installed skill's other files (scripts/, references/) as a JSON
-- object of path to content, never run on install. last_used_at 0: never
-- used. Their history is learning_revisions.

-- +goose Up
CREATE TABLE skills (
    scope        TEXT    NOT NULL,
    slug         TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    description  TEXT    NOT NULL,
    body         TEXT    NOT NULL,
    origin       TEXT    NOT NULL,
    files        TEXT    NOT NULL,
    patch_count  INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    last_used_at INTEGER NOT NULL,
    PRIMARY KEY (scope, slug)
) STRICT;

-- +goose Down
DROP TABLE skills;
