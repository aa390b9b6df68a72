-- Team notes, as store/migrations/00023_team_notes.sql on SQLite and with
-- its version: a place's notes, each with who last wrote it (no reference
-- to users: erasing a person leaves the team's notes).

-- +goose Up
CREATE TABLE team_notes (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    place      text        NOT NULL,
    content    text        NOT NULL,
    author     text        NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX team_notes_by_place ON team_notes (place, id);

-- +goose Down
DROP TABLE team_notes;
