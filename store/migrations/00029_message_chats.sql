-- The conversations' index gains each message's chat (msg_fts's sess
-- column: its session's token and now its chat's, store/message_index.go),
-- so that a search of some chats (history_search's) is answered inside
-- the index. Like 00020, the index text is made in Go: this step queues
-- every message again, and the first build with FTS5 to open the
-- database indexes each anew, its old row taken out first.

-- +goose Up
INSERT OR IGNORE INTO message_index_todo (message_id)
    SELECT id FROM messages WHERE role IN ('user', 'assistant');

-- +goose Down
SELECT 1;
