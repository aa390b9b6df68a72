-- Full-text search of conversations. The index itself, msg_fts, is an
-- FTS5 table made when a build with FTS5 opens the database
-- (store/message_index.go), like kb_fts: a migration must run in every
-- build, and the index text (CJK pairs, kb.IndexText) is made in Go. So
-- this step queues what is there: every message people wrote or Parley
-- answered, which the first build with FTS5 to open the database indexes
-- and takes off the queue. A build without FTS5 queues what it appends.

-- +goose Up
CREATE TABLE message_index_todo (
    message_id INTEGER NOT NULL PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE
) STRICT;
INSERT INTO message_index_todo (message_id)
    SELECT id FROM messages WHERE role IN ('user', 'assistant');

-- +goose Down
DROP TABLE message_index_todo;
