-- Each message's tsvector gains, without positions, the filter tokens of
-- its chat, its side and its author's name's words (message_search.go,
-- messageTSV), so that history_search's filters are ANDs inside the GIN
-- index, as store/migrations/00029_message_chats.sql does for msg_fts on
-- SQLite and with its version. The tsvector is made in Go: this step
-- queues every message again, and the next Open indexes each anew.

-- +goose Up
INSERT INTO message_index_todo (message_id)
    SELECT id FROM messages WHERE role IN ('user', 'assistant')
    ON CONFLICT DO NOTHING;

-- +goose Down
SELECT 1;
