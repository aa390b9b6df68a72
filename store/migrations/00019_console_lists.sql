-- What the web console's lists of conversations need at scale (issue 29's
-- benchmark: 10,000 conversations, 1,000,000 messages; webconsole/
-- bench_test.go, docs/footprint.md): a page of the newest walks
-- sessions_activity and stops at its page, a person's are found from
-- their turns (run_signals_author) and from the conversations they
-- started (kv_starters, the router's "starter:<session>" keys) rather
-- than by testing every session, and the approvals' history, newest
-- decision first, walks approvals_decided instead of sorting every
-- approval ever asked.

-- +goose Up
CREATE INDEX approvals_decided ON approvals (decided_at DESC, id DESC);
CREATE INDEX sessions_activity ON sessions (updated_at DESC, id);
CREATE INDEX run_signals_author ON run_signals (author, session_id);
CREATE INDEX kv_starters ON kv (value) WHERE key >= 'starter:' AND key < 'starter;';

-- +goose Down
DROP INDEX approvals_decided;
DROP INDEX kv_starters;
DROP INDEX run_signals_author;
DROP INDEX sessions_activity;
