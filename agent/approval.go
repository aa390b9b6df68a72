package agent

import (
	"context"

	"github.com/parleybot/parley/agent/llm"
)

// ApprovalRequest is a tool call waiting for a person's decision.
type ApprovalRequest struct {
	SessionID string
	Caller    Caller // the user whose turn asked for the call
	Call      llm.ToolCall
	Summary   string // what will happen if approved, whole (a shell command is never cut)
	// Mandatory says the tool's approval cannot be waived (shell, an
	// untrusted MCP server): only a configured approver may approve it;
	// the requester may still deny.
	Mandatory bool
	// Private says the call needs no approval of its own but sends data to
	// a place its author never wrote, in a turn that read text from
	// outside (agent/egress.go): the author alone decides, privately, as
	// the call may carry their data.
	Private bool
	// Risks are what the tool itself noticed about the call ("pipes a
	// download into a shell"), for the approver's attention.
	Risks []string
}

// Decision is a person's answer to an ApprovalRequest.
type Decision struct {
	Approved bool
	Expired  bool   // no one decided in time; Approved is false
	By       string // display name of who decided
	// Summary is what was shown and decided (ApprovalRequest.Summary),
	// when known: an Inspector's call runs only while it still reads so.
	Summary string `json:",omitempty"`
}

// Approver asks a person to approve a tool call and waits for the answer.
// The chat layer implements it (buttons on chat platforms, a y/N prompt in
// the terminal). It must honour ctx.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}
