-- The knowledge base: documents, their passages, and the passages'
-- embeddings. The keyword index (kb_fts) is an FTS5 table, created when
-- the database is opened by a build that has FTS5 (store/kb_index.go):
-- a migration must run in every build.

-- +goose Up
CREATE TABLE kb_documents (
    id          INTEGER PRIMARY KEY,
    scope       TEXT    NOT NULL,
    source      TEXT    NOT NULL,
    title       TEXT    NOT NULL DEFAULT '',
    kind        TEXT    NOT NULL,
    hash        TEXT    NOT NULL,
    bytes       INTEGER NOT NULL,
    added_by    TEXT    NOT NULL,
    added_by_name TEXT  NOT NULL DEFAULT '',
    added_at    INTEGER NOT NULL,
    modified_at INTEGER NOT NULL DEFAULT 0,
    UNIQUE (scope, source)
);
CREATE INDEX kb_documents_hash ON kb_documents (scope, hash);
-- Covers the sum of a scope's sizes, read before every ingestion.
CREATE INDEX kb_documents_size ON kb_documents (scope, bytes);

-- scope repeats the document's, so a search filters inside its query.
CREATE TABLE kb_chunks (
    id         INTEGER PRIMARY KEY,
    doc_id     INTEGER NOT NULL REFERENCES kb_documents (id) ON DELETE CASCADE,
    scope      TEXT    NOT NULL,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    hash       TEXT    NOT NULL,
    text       TEXT    NOT NULL
);
CREATE INDEX kb_chunks_doc ON kb_chunks (doc_id);
CREATE INDEX kb_chunks_scope ON kb_chunks (scope);
CREATE INDEX kb_chunks_hash ON kb_chunks (hash);

-- Embeddings by model and passage text hash: a passage that appears twice
-- is embedded once; a new model's vectors are added beside the old ones
-- until the old model's are dropped.
CREATE TABLE kb_vectors (
    id    INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    hash  TEXT NOT NULL,
    vec   BLOB NOT NULL,
    UNIQUE (model, hash)
);

-- generation counts changes to passages and vectors, so a process that
-- keeps vectors in memory (agent/kb/vecindex.go) knows when another
-- process, or itself, changed them.
CREATE TABLE kb_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT INTO kb_state (id, generation) VALUES (1, 0);

-- +goose Down
DROP TABLE kb_state;
DROP TABLE kb_vectors;
DROP TABLE kb_chunks;
DROP TABLE kb_documents;
