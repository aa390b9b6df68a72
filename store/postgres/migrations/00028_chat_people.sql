-- Who has written where, as store/migrations/00028_chat_people.sql on
-- SQLite and with its version: one row per person and chat they started a
-- turn in (history_search's reach, docs/history.md).

-- +goose Up
CREATE TABLE chat_people (
    user_key text        NOT NULL,
    platform text        NOT NULL,
    space    text        NOT NULL,
    chat     text        NOT NULL,
    name     text        NOT NULL,
    direct   boolean     NOT NULL,
    last_at  timestamptz NOT NULL,
    PRIMARY KEY (user_key, platform, space, chat)
);

-- +goose Down
DROP TABLE chat_people;
