package rowdata

import (
	"encoding/json"
	"fmt"

	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// ApprovalJSON is an approval's JSON columns (approvers, refs, risks), as
// both engines store them.
type ApprovalJSON struct {
	Approvers, Refs, Risks string
}

// EncodeApproval returns rec's JSON columns.
func EncodeApproval(rec approvals.Record) (ApprovalJSON, error) {
	var c ApprovalJSON
	var err error
	if c.Approvers, err = EncodeList(rec.Approvers); err != nil {
		return c, err
	}
	if c.Refs, err = EncodeRefs(rec.Refs); err != nil {
		return c, err
	}
	c.Risks, err = EncodeList(rec.Risks)
	return c, err
}

// DecodeApproval sets rec's Approvers, Refs and Risks from its JSON
// columns. No risks reads as nil, as created; approvers read as stored,
// an empty list included.
func DecodeApproval(rec *approvals.Record, c ApprovalJSON) error {
	var err error
	if rec.Risks, err = DecodeList(c.Risks); err != nil {
		return fmt.Errorf("approval %q: risks: %w", rec.ID, err)
	}
	if err := json.Unmarshal([]byte(c.Approvers), &rec.Approvers); err != nil {
		return fmt.Errorf("approval %q: approvers: %w", rec.ID, err)
	}
	if rec.Refs, err = DecodeRefs(c.Refs); err != nil {
		return fmt.Errorf("approval %q: %w", rec.ID, err)
	}
	return nil
}

// storedRef is the JSON form of a chat.MessageRef in the refs column. Its
// own tags keep the column stable if chat.MessageRef's fields are renamed.
type storedRef struct {
	Platform string `json:"platform"`
	Space    string `json:"space,omitempty"`
	Chat     string `json:"chat,omitempty"`
	Thread   string `json:"thread,omitempty"`
	ID       string `json:"id"`
}

// EncodeRefs returns the refs column's text.
func EncodeRefs(refs []chat.MessageRef) (string, error) {
	out := make([]storedRef, len(refs))
	for i, r := range refs {
		out[i] = storedRef{r.Thread.Platform, r.Thread.Space, r.Thread.Chat, r.Thread.ID, r.ID}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("refs: %w", err)
	}
	return string(b), nil
}

// DecodeRefs reads the refs column back; none reads as nil.
func DecodeRefs(s string) ([]chat.MessageRef, error) {
	var in []storedRef
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, fmt.Errorf("refs: %w", err)
	}
	var refs []chat.MessageRef
	for _, r := range in {
		refs = append(refs, chat.MessageRef{
			Thread: chat.Thread{Platform: r.Platform, Space: r.Space, Chat: r.Chat, ID: r.Thread},
			ID:     r.ID,
		})
	}
	return refs, nil
}
