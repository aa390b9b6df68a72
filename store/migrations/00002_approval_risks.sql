-- Approvals learn two things the approver is shown: whether the tool's
-- approval is mandatory (shell, an untrusted MCP server: only a configured
-- approver may approve, the requester may still deny) and what the tool
-- found risky about the call.

-- +goose Up
ALTER TABLE approvals ADD COLUMN mandatory INTEGER NOT NULL DEFAULT 0 CHECK (mandatory IN (0, 1));
ALTER TABLE approvals ADD COLUMN risks TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(risks));

-- +goose Down
ALTER TABLE approvals DROP COLUMN risks;
ALTER TABLE approvals DROP COLUMN mandatory;
