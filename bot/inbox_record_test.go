package bot

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

func TestDecodeInbox(t *testing.T) {
	m := chat.Message{Key: "T:C:1.1", ID: "1.1", Thread: chat.Thread{Platform: "slack", Space: "T", Chat: "C", ID: "1.1"},
		User: chat.User{Platform: "slack", ID: "U1", Name: "ana"}, Text: "hi", Mentioned: true}
	a := approvalResume{ID: "ap1", Session: "s1", Call: "c1", Thread: m.Thread, Requester: m.User,
		Decision: agent.Decision{Approved: true, By: "ana"}}
	withFiles := m
	withFiles.Text = "/kb add"
	withFiles.Files = []chat.File{
		{ID: "F1", Name: "handbook.pdf", MIME: "application/pdf", Size: 12345, URL: "https://files.slack.com/files-pri/T-F1/download/handbook.pdf"},
		{ID: "AgAD", Name: "photo.jpg", MIME: "image/jpeg"},
	}
	legacyMessage, _ := json.Marshal(m)
	legacyResume, _ := json.Marshal(map[string]any{"approval": "ap1", "session": "s1", "call": "c1",
		"message":   chat.Message{Key: "approval:ap1", Thread: m.Thread, User: m.User},
		"decisions": map[string]agent.Decision{"c1": {Approved: true, By: "ana"}}})
	encode := func(rec inboxRecord) []byte {
		b, err := encodeInbox(rec)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name    string
		payload []byte
		want    inboxRecord
		bad     bool
	}{
		{"message", encode(inboxRecord{Kind: kindMessage, Message: &m}), inboxRecord{V: 1, Kind: kindMessage, Message: &m}, false},
		{"message with files", encode(inboxRecord{Kind: kindMessage, Message: &withFiles}), inboxRecord{V: 1, Kind: kindMessage, Message: &withFiles}, false},
		{"approval", encode(inboxRecord{Kind: kindApproval, Approval: &a}), inboxRecord{V: 1, Kind: kindApproval, Approval: &a}, false},
		{"command", encode(inboxRecord{Kind: kindCommand}), inboxRecord{V: 1, Kind: kindCommand}, false},
		{"empty (an older command or click)", nil, inboxRecord{V: 1, Kind: kindCommand}, false},
		{"older message", legacyMessage, inboxRecord{V: 1, Kind: kindMessage, Message: &m}, false},
		{"older approval resume", legacyResume, inboxRecord{V: 1, Kind: kindApproval, Approval: &a}, false},
		{"message kind without a message", []byte(`{"v":1,"kind":"message"}`), inboxRecord{}, true},
		{"unknown kind", []byte(`{"v":1,"kind":"telepathy"}`), inboxRecord{}, true},
		{"newer version", []byte(`{"v":2,"kind":"message","message":{"Key":"k"}}`), inboxRecord{}, true},
		{"not JSON", []byte(`{"v":`), inboxRecord{}, true},
		{"older shape without a key", []byte(`{"Text":"hi"}`), inboxRecord{}, true},
		{"a JSON string", []byte(`"hello"`), inboxRecord{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeInbox(tt.payload)
			if tt.bad {
				if !errors.Is(err, errUndecodable) {
					t.Fatalf("decode = %+v, %v; want errUndecodable", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decode (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDecodeInbox: whatever a database holds, decoding never panics, and
// what it accepts has a kind recovery knows, with its body.
func FuzzDecodeInbox(f *testing.F) {
	f.Add([]byte(`{"v":1,"kind":"message","message":{"Key":"k","Thread":{"Platform":"slack"}}}`))
	f.Add([]byte(`{"approval":"ap1","session":"s1","call":"c1","message":{"Key":"approval:ap1"}}`))
	f.Add([]byte(`{"Key":"k","Text":"hi"}`))
	f.Add([]byte(`{"v":1,"kind":"approval","approval":{"id":"x"}}`))
	f.Add([]byte(nil))
	f.Fuzz(func(t *testing.T, payload []byte) {
		rec, err := decodeInbox(payload)
		if err != nil {
			if !errors.Is(err, errUndecodable) {
				t.Fatalf("error %v does not wrap errUndecodable", err)
			}
			return
		}
		switch {
		case rec.Kind == kindMessage && rec.Message != nil:
		case rec.Kind == kindApproval && rec.Approval != nil:
		case rec.Kind == kindCommand || rec.Kind == kindAction:
		default:
			t.Fatalf("accepted %q as %+v", payload, rec)
		}
	})
}

// TestInboxRecordOmitsNoFiles: a message without files is recorded as
// before files existed, so older Parleys reading the inbox see no change.
func TestInboxRecordOmitsNoFiles(t *testing.T) {
	b, err := encodeInbox(inboxRecord{Kind: kindMessage, Message: &chat.Message{Key: "k", Text: "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Files") {
		t.Errorf("record %s mentions Files", b)
	}
}
