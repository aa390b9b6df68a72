-- An approval can be private: a call that needs no approval of its own
-- but sends data to a place its author never wrote, in a turn that read
-- text from outside (agent/egress.go). Only the author decides it, in a
-- message only they see, since the call may carry their data.

-- +goose Up
ALTER TABLE approvals ADD COLUMN private INTEGER NOT NULL DEFAULT 0 CHECK (private IN (0, 1));

-- +goose Down
ALTER TABLE approvals DROP COLUMN private;
