-- Team notes (agent.TeamStore, docs/team-notes.md): what people of one
-- place (a space scope's key, "space:slack:T1") taught Parley for
-- everyone there. author is who last wrote the note ("platform:id"), kept
-- for the record only: no reference to users, since erasing a person
-- leaves the team's notes in place.

-- +goose Up
CREATE TABLE team_notes (
    id         INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    place      TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    author     TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX team_notes_by_place ON team_notes (place, id);

-- +goose Down
DROP TABLE team_notes;
