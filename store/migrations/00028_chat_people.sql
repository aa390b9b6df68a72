-- Who has written where (history_search's reach, docs/history.md): one row
-- per person and chat they started a turn in, added to when the turn ends
-- (Inbox.FinishTurn). direct says the chat is the person's private chat
-- with Parley. A person's search in their private chat covers the chats
-- listed here that they still belong to; nothing here is shown as such.

-- +goose Up
CREATE TABLE chat_people (
    user_key TEXT    NOT NULL,
    platform TEXT    NOT NULL,
    space    TEXT    NOT NULL,
    chat     TEXT    NOT NULL,
    name     TEXT    NOT NULL,
    direct   INTEGER NOT NULL,
    last_at  INTEGER NOT NULL,
    PRIMARY KEY (user_key, platform, space, chat)
) STRICT;

-- +goose Down
DROP TABLE chat_people;
