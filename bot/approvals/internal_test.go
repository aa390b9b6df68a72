package approvals

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/randid"
)

func TestParseApprovalData(t *testing.T) {
	id := strings.Repeat("f", maxApprovalID)
	tests := []struct {
		data    string
		id      string
		approve bool
		ok      bool
	}{
		{"a:" + id, id, true, true},
		{"d:" + id, id, false, true},
		{"a:abc_-XYZ09", "abc_-XYZ09", true, true},
		{"a:" + id + "f", "", false, false}, // id too long
		{"a:", "", false, false},
		{"d:", "", false, false},
		{"a", "", false, false},
		{"", "", false, false},
		{"x:" + id, "", false, false},
		{"ap:" + id, "", false, false},
		{"a:" + id[:8] + "/..", "", false, false},
		{"a:é", "", false, false},
		{"a:" + strings.Repeat("f", 63), "", false, false}, // 65 bytes
	}
	for _, tt := range tests {
		id, approve, ok := parseApprovalData(tt.data)
		if id != tt.id || approve != tt.approve || ok != tt.ok {
			t.Errorf("parseApprovalData(%q) = %q, %t, %t; want %q, %t, %t", tt.data, id, approve, ok, tt.id, tt.approve, tt.ok)
		}
	}
}

func TestRandomApprovalID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := randid.New()
		if !validApprovalID(id) || len(id) != 32 || seen[id] {
			t.Fatalf("randid.New() = %q (valid %t, repeated %t)", id, validApprovalID(id), seen[id])
		}
		seen[id] = true
		if n := len(ApproveData + id); n > chat.MaxButtonData {
			t.Fatalf("payload of %d bytes", n)
		}
	}
}

func TestApprovalTextStates(t *testing.T) {
	rec := Record{
		ToolName: "shell", Summary: "ls", Requester: "slack:U1", RequesterName: "Ann",
		DecidedBy: "slack:U2", DecidedByName: "Bob", Status: StatusPending,
	}
	tests := []struct {
		status string
		want   string
	}{
		{StatusPending, "🔐 **Approval needed** · `shell` · asked by Ann\n```\nls\n```\nOnly Ann or an approver can decide. Expires in 10 min."},
		{StatusApproved, "✅ **Approved by Bob** · `shell` · asked by Ann\n```\nls\n```"},
		{StatusDenied, "❌ **Denied by Bob** · `shell` · asked by Ann\n```\nls\n```"},
		{StatusExpired, "⌛ **Expired**: no one decided in time, so it did not run · `shell` · asked by Ann\n```\nls\n```"},
	}
	for _, tt := range tests {
		rec.Status = tt.status
		if got := approvalMessages(rec, 10*time.Minute, chat.Capabilities{}); len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.status, got, tt.want)
		}
	}
}

func TestApprovalMandatoryAndRisks(t *testing.T) {
	rec := Record{ToolName: "shell", Summary: "curl x | sh", Requester: "slack:U1", RequesterName: "Ann",
		Status: StatusPending, Mandatory: true, Risks: []string{"pipes text into a shell or an interpreter", "talks to the network"}}
	got := approvalMessages(rec, 10*time.Minute, chat.Capabilities{})
	want := "🔐 **Approval needed** · `shell` · asked by Ann\n```\ncurl x | sh\n```\n" +
		"⚠️ **Risky:** pipes text into a shell or an interpreter\n⚠️ **Risky:** talks to the network\n" +
		"Only an approver can approve this; Ann can deny it. Expires in 10 min."
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if n := notAllowedText(rec); n != "Only an approver can approve this; Ann can deny it." {
		t.Errorf("not allowed: %q", n)
	}
}

// TestApprovalShowsTheWholeSummary: a summary longer than the platform's
// limit is not cut (a 224-character command once hid its "| sh" tail
// behind 200): it goes whole, over as many messages as it needs, each one
// within the limit, and the last carries the state.
func TestApprovalShowsTheWholeSummary(t *testing.T) {
	summary := strings.Repeat("x", 4990) + " | sh"
	rec := Record{ToolName: "shell", Summary: summary, RequesterName: "Ann", Status: StatusPending}
	for _, maxLen := range []int{4000, 2000, 1000} {
		msgs := approvalMessages(rec, time.Minute, chat.Capabilities{MaxLen: maxLen})
		if len(msgs) < 2 {
			t.Fatalf("MaxLen %d: one message for a %d-rune summary", maxLen, len(summary))
		}
		var shown strings.Builder
		for i, m := range msgs {
			if n := utf8.RuneCountInString(m); n > maxLen {
				t.Errorf("MaxLen %d: message %d has %d runes", maxLen, i, n)
			}
			if i < len(msgs)-1 {
				body := m[strings.Index(m, "```\n")+4 : strings.LastIndex(m, "\n```")]
				shown.WriteString(body)
			}
		}
		if shown.String() != summary {
			t.Errorf("MaxLen %d: the messages do not show the summary whole", maxLen)
		}
		last := msgs[len(msgs)-1]
		if !strings.HasPrefix(last, "🔐 **Approval needed**") || !strings.Contains(last, fmt.Sprintf("in the %d message(s) above", len(msgs)-1)) {
			t.Errorf("MaxLen %d: last message %q", maxLen, last)
		}
		rec.Status = StatusApproved
		if st := approvalStatus(rec, time.Minute, len(msgs), ""); !strings.HasPrefix(st, "✅") || strings.Contains(st, "xxxx") {
			t.Errorf("decided status of a long approval: %q", st)
		}
		rec.Status = StatusPending
	}
}

func TestInlineTextEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ann", "Ann"},
		{"**Root** [x](y)", `\*\*Root\*\* \[x\]\(y\)`},
		{"@everyone", "@\u200beveryone"},
		{"<!channel>", "\\<\u200b\\!channel\\>"},
		{"a\nb\t\tc  ", "a b c"},
		{"\u202eevil\u200b", "evil"},
		{strings.Repeat("n", 100), strings.Repeat("n", maxNameLen) + "…"},
	}
	for _, tt := range tests {
		if got := inlineText(tt.in); got != tt.want {
			t.Errorf("inlineText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzApprovalText: whatever the model and the platforms put in, the message
// quotes the summary in exactly one code block, and every @ and < in it is
// broken so that nothing pings.
func FuzzApprovalText(f *testing.F) {
	for _, s := range []string{"rm -rf /", "@everyone", "<!channel>", "```\nx\n```", "````", "\u202e", "a`b``c```d", "\r\n\r"} {
		f.Add(s, "Ann", "shell")
	}
	f.Fuzz(func(t *testing.T, summary, name, tool string) {
		for _, status := range []string{StatusPending, StatusApproved, StatusExpired} {
			rec := Record{ToolName: tool, Summary: summary, RequesterName: name, DecidedByName: name, Status: status}
			msgs := approvalMessages(rec, 10*time.Minute, chat.Capabilities{MaxLen: 2000})
			text := msgs[0]
			if n := strings.Count(text, "```"); n != 2 {
				t.Fatalf("%d fences in %q", n, text)
			}
			for i := 0; i < len(text); i++ {
				if (text[i] == '@' || text[i] == '<') && !strings.HasPrefix(text[i+1:], zeroWidthSp) {
					t.Fatalf("unbroken %q at %d in %q", text[i], i, text)
				}
			}
			if !utf8.ValidString(text) {
				t.Fatalf("invalid UTF-8: %q", text)
			}
		}
	})
}
