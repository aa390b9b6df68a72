package bot

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// inboxRecord is what the inbox keeps with an accepted event: enough to
// finish it after a crash. Every kind has this one shape, told apart by
// Kind, never by trying decodings; V changes when a field's meaning does.
type inboxRecord struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	// Message is the message to answer (kindMessage).
	Message *chat.Message `json:"message,omitempty"`
	// Approval is the decision to continue a session with (kindApproval).
	Approval *approvalResume `json:"approval,omitempty"`
	// KBAdd is a /kb add to finish (kindKBAdd).
	KBAdd *kbAddJob `json:"kb_add,omitempty"`
}

// inboxVersion is the version of inboxRecord written now.
const inboxVersion = 1

// Kinds of inbox records.
const (
	kindMessage  = "message"  // a message to answer
	kindApproval = "approval" // a decision no turn was waiting for
	kindCommand  = "command"  // a slash command: done or not, never repeated
	kindAction   = "action"   // a button click: likewise
	kindKBAdd    = "kb_add"   // a /kb add: finished after a crash
)

// approvalResume continues a session after an approval was decided with no
// turn waiting for it (the process restarted, or the turn ended).
type approvalResume struct {
	ID        string         `json:"id"`
	Session   string         `json:"session"`
	Call      string         `json:"call"`
	Thread    chat.Thread    `json:"thread"`
	Requester chat.User      `json:"requester"`
	Decision  agent.Decision `json:"decision"`
}

// key is the inbox key of the resume: one per approval, ever.
func (a approvalResume) key() string { return "approval:" + a.ID }

// message is the message the resumed turn answers as: the requester, in the
// session's conversation.
func (a approvalResume) message() chat.Message {
	return chat.Message{Key: a.key(), Thread: a.Thread, User: a.Requester}
}

func encodeInbox(rec inboxRecord) ([]byte, error) {
	rec.V = inboxVersion
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encode inbox record: %w", err)
	}
	return b, nil
}

// errUndecodable marks an inbox payload that is not a record this version
// knows: it is logged and closed, never retried forever.
var errUndecodable = errors.New("undecodable inbox record")

// decodeInbox reads a payload. An empty one is a command or click written
// before records were typed; a version-0 payload (no "v") is one of the two
// shapes written then, a message or an approval resume.
func decodeInbox(payload []byte) (inboxRecord, error) {
	if len(payload) == 0 {
		return inboxRecord{V: inboxVersion, Kind: kindCommand}, nil
	}
	var head struct {
		V int `json:"v"`
	}
	if err := json.Unmarshal(payload, &head); err != nil {
		return inboxRecord{}, fmt.Errorf("%w: %w", errUndecodable, err)
	}
	switch head.V {
	case 0:
		return decodeLegacyInbox(payload)
	case inboxVersion:
		var rec inboxRecord
		if err := json.Unmarshal(payload, &rec); err != nil {
			return inboxRecord{}, fmt.Errorf("%w: %w", errUndecodable, err)
		}
		ok := rec.Kind == kindCommand || rec.Kind == kindAction ||
			rec.Kind == kindMessage && rec.Message != nil ||
			rec.Kind == kindApproval && rec.Approval != nil ||
			rec.Kind == kindKBAdd && rec.KBAdd != nil
		if !ok {
			return inboxRecord{}, fmt.Errorf("%w: kind %q without its body", errUndecodable, rec.Kind)
		}
		return rec, nil
	}
	return inboxRecord{}, fmt.Errorf("%w: version %d is newer than this Parley", errUndecodable, head.V)
}

// decodeLegacyInbox reads what databases written before inboxRecord hold.
func decodeLegacyInbox(payload []byte) (inboxRecord, error) {
	var old struct {
		Approval  string                    `json:"approval"`
		Session   string                    `json:"session"`
		Call      string                    `json:"call"`
		Message   chat.Message              `json:"message"`
		Decisions map[string]agent.Decision `json:"decisions"`
	}
	if json.Unmarshal(payload, &old) == nil && old.Approval != "" {
		return inboxRecord{V: inboxVersion, Kind: kindApproval, Approval: &approvalResume{
			ID: old.Approval, Session: old.Session, Call: old.Call, Thread: old.Message.Thread,
			Requester: old.Message.User, Decision: old.Decisions[old.Call],
		}}, nil
	}
	var m chat.Message
	if err := json.Unmarshal(payload, &m); err != nil || m.Key == "" {
		return inboxRecord{}, fmt.Errorf("%w: neither a message nor an approval resume", errUndecodable)
	}
	return inboxRecord{V: inboxVersion, Kind: kindMessage, Message: &m}, nil
}
