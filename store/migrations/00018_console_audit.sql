-- The web console's sign-in records (webconsole.Auth) and the audit log
-- (bot.AuditLog).
--
-- console_logins are one-time sign-in links, console_sessions the
-- browsers they signed in: each keyed by the SHA-256 of its secret, hex,
-- never the secret, so a copy of the database opens nothing. A login is
-- deleted as it is taken; expired rows are pruned as new ones are added,
-- a day after they expire, so both tables stay small. A session is ended
-- by setting revoked, so that it cannot come back.
--
-- audit_log is what was done and by whom: rows are only ever added. The
-- id is AUTOINCREMENT so that an id is never handed out twice and the
-- newest row always has the greatest; pages go back by id. Times are unix
-- milliseconds from the caller's clock, like every other table's.

-- +goose Up
CREATE TABLE console_logins (
    hash     TEXT    NOT NULL PRIMARY KEY,
    user_key TEXT    NOT NULL,
    admin    INTEGER NOT NULL CHECK (admin IN (0, 1)),
    created  INTEGER NOT NULL,
    expires  INTEGER NOT NULL
) STRICT;
CREATE INDEX console_logins_expires ON console_logins (expires);

CREATE TABLE console_sessions (
    hash     TEXT    NOT NULL PRIMARY KEY,
    user_key TEXT    NOT NULL,
    admin    INTEGER NOT NULL CHECK (admin IN (0, 1)),
    csrf     TEXT    NOT NULL,
    created  INTEGER NOT NULL,
    expires  INTEGER NOT NULL,
    agent    TEXT    NOT NULL,
    revoked  INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1))
) STRICT;
CREATE INDEX console_sessions_expires ON console_sessions (expires);

CREATE TABLE audit_log (
    id     INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    at     INTEGER NOT NULL,
    actor  TEXT    NOT NULL,
    action TEXT    NOT NULL,
    target TEXT    NOT NULL,
    detail TEXT    NOT NULL,
    via    TEXT    NOT NULL
) STRICT;
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_actor ON audit_log (actor, id DESC);
CREATE INDEX audit_log_action ON audit_log (action, id DESC);
CREATE INDEX audit_log_target ON audit_log (target, id DESC);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE console_sessions;
DROP TABLE console_logins;
