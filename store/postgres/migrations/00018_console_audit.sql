-- The web console's sign-in records (webconsole.Auth) and the audit log
-- (bot.AuditLog), as store/migrations/00018_console_audit.sql on SQLite
-- and with its version. Logins and sessions are keyed by the SHA-256 of
-- their secret, hex, never the secret; a login is deleted as it is taken,
-- expired rows are pruned as new ones are added, a session is ended by
-- setting revoked. The audit log's rows are only ever added; pages go
-- back by id. Times come from the caller (never now()), to the
-- millisecond.
--
-- The hashes and the audit log's action are COLLATE "C": compared by
-- their bytes as SQLite compares them, so that a revocation's prefix
-- (LIKE) and an action's prefix (a range) are the same on both engines
-- and can use the indexes whatever the database's collation.

-- +goose Up
CREATE TABLE console_logins (
    hash     text COLLATE "C" NOT NULL PRIMARY KEY,
    user_key text             NOT NULL,
    admin    boolean          NOT NULL,
    created  timestamptz      NOT NULL,
    expires  timestamptz      NOT NULL
);
CREATE INDEX console_logins_expires ON console_logins (expires);

CREATE TABLE console_sessions (
    hash     text COLLATE "C" NOT NULL PRIMARY KEY,
    user_key text             NOT NULL,
    admin    boolean          NOT NULL,
    csrf     text             NOT NULL,
    created  timestamptz      NOT NULL,
    expires  timestamptz      NOT NULL,
    agent    text             NOT NULL,
    revoked  boolean          NOT NULL DEFAULT false
);
CREATE INDEX console_sessions_expires ON console_sessions (expires);

CREATE TABLE audit_log (
    id     bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at     timestamptz      NOT NULL,
    actor  text             NOT NULL,
    action text COLLATE "C" NOT NULL,
    target text             NOT NULL,
    detail text             NOT NULL,
    via    text             NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_actor ON audit_log (actor, id DESC);
CREATE INDEX audit_log_action ON audit_log (action, id DESC);
CREATE INDEX audit_log_target ON audit_log (target, id DESC);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE console_sessions;
DROP TABLE console_logins;
