-- Pictures of a conversation (people's attachments, tools' images), kept
-- once per session and content: the messages that show them hold only
-- the hash in their JSON (images[].sha256), so a transcript row stays
-- small, compaction's rewrite of the transcript moves no image bytes, and
-- the same picture sent twice is stored once. Rows no message refers to
-- any more are deleted when the transcript is rewritten (compaction).

-- +goose Up
CREATE TABLE session_files (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    sha256     TEXT    NOT NULL CHECK (length(sha256) = 64),
    mime       TEXT    NOT NULL,
    data       BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, sha256)
) STRICT;

-- +goose Down
DROP TABLE session_files;
