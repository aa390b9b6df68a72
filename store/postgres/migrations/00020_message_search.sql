-- Full-text search of conversations: each message people wrote or Parley
-- answered gets the tsvector of its text (messages.tsv, GIN-indexed), made
-- in Go as the knowledge base's is (store/postgres/kb_index.go), so this
-- step cannot compute it: it queues the messages already stored, which
-- the next Open indexes and takes off the queue (message_search.go).
-- The queue is the SQLite store's table of the same name, so a copy
-- (parley migrate --to postgres) carries it over.

-- +goose Up
ALTER TABLE messages ADD COLUMN tsv tsvector;
CREATE INDEX messages_tsv ON messages USING gin (tsv);
CREATE TABLE message_index_todo (
    message_id bigint PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE
);
INSERT INTO message_index_todo (message_id)
    SELECT id FROM messages WHERE role IN ('user', 'assistant');

-- +goose Down
DROP TABLE message_index_todo;
DROP INDEX messages_tsv;
ALTER TABLE messages DROP COLUMN tsv;
