package rowdata

import (
	"errors"

	"github.com/parleybot/parley/bot/outbound"
)

// EncodeReply returns the outbox columns of rec that are not stored as
// they are: its message refs as a JSON list, and its status, an empty one
// being "pending".
func EncodeReply(rec outbound.OutboxRecord) (refs, status string, err error) {
	if refs, err = EncodeList(rec.Refs); err != nil {
		return "", "", err
	}
	status = rec.Status
	if status == "" {
		status = "pending"
	}
	return refs, status, nil
}

// CheckReply refuses a reply record that cannot be keyed: one record per
// inbound event, of a session.
func CheckReply(rec outbound.OutboxRecord) error {
	if rec.InboxKey == "" || rec.SessionID == "" {
		return errors.New("save reply: inbox key and session are required")
	}
	return nil
}
