-- Skills, as store/migrations/00025_skills.sql on SQLite and with its
-- version: each scope's skills by slug, an installed skill's origin and
-- files (a JSON object of path to content); last_used_at NULL: never used.

-- +goose Up
CREATE TABLE skills (
    scope        text        NOT NULL,
    slug         text        NOT NULL,
    name         text        NOT NULL,
    description  text        NOT NULL,
    body         text        NOT NULL,
    origin       text        NOT NULL,
    files        jsonb       NOT NULL,
    patch_count  integer     NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    PRIMARY KEY (scope, slug)
);

-- +goose Down
DROP TABLE skills;
