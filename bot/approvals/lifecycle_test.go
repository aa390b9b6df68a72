package approvals_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// TestApprovalRestart: the process dies between the prompt and the click.
func TestApprovalRestart(t *testing.T) {
	h := newAPHarness(t)
	a := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
	a.cancel() // the process is going down
	if _, err := a.result(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("Approve = %v", err)
	}
	h.restart()

	handled, told, err := h.click(apRequester, "a:"+a.id, a.msg)
	if !handled || err != nil || told != nil {
		t.Fatalf("click after restart = %t, %q, %v", handled, told, err)
	}
	edits := h.ad.edited()
	if len(edits) != 1 || edits[0].Ref != a.msg || !strings.HasPrefix(edits[0].Out.Text, "✅ **Approved by Alice**") {
		t.Errorf("edits = %+v", edits)
	}
	rec := h.resumedRecord()
	if rec.ID != a.id || rec.SessionID != h.sid || rec.ToolCallID != "call_1" || rec.Status != approvals.StatusApproved {
		t.Errorf("resumed with %+v", rec)
	}
	if d := rec.Decision(); d != (agent.Decision{Approved: true, By: "Alice", Summary: "rm -rf /tmp/x"}) {
		t.Errorf("resumed decision = %+v", d)
	}
	// A crash after the click and before the resume loses nothing.
	h.restart()
	if err := h.ap.Recover(t.Context(), apEpoch); err != nil {
		t.Fatal(err)
	}
	if rec := h.resumedRecord(); rec.ID != a.id {
		t.Errorf("Recover resumed %+v", rec)
	}
	if handled, told, _ := h.click(apAdmin, "d:"+a.id, a.msg); handled || !cmp.Equal(told, []string{"Already approved by Alice."}) {
		t.Errorf("second click after restart = %t, %q", handled, told)
	}
}

func TestApprovalExpiresAfterRestart(t *testing.T) {
	for _, how := range []string{"sweep", "click"} {
		t.Run(how, func(t *testing.T) {
			h := newAPHarness(t)
			a := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
			a.cancel()
			a.result(t)
			h.restart()
			h.clock.Advance(apExpiry)
			switch how {
			case "sweep":
				if err := h.ap.ExpireDue(t.Context()); err != nil {
					t.Fatal(err)
				}
			case "click": // the sweep is late: a click must not beat the deadline
				handled, told, err := h.click(apRequester, "a:"+a.id, a.msg)
				if handled || err != nil || !cmp.Equal(told, []string{"This approval has expired; nothing was run."}) {
					t.Fatalf("click = %t, %q, %v", handled, told, err)
				}
			}
			rec := h.resumedRecord()
			if rec.ID != a.id || rec.Decision() != (agent.Decision{Expired: true}) {
				t.Errorf("resumed with %+v", rec)
			}
			edits := h.ad.edited()
			if len(edits) != 1 || !strings.HasPrefix(edits[0].Out.Text, "⌛ **Expired**") {
				t.Errorf("edits = %+v", edits)
			}
			// Sweeping again finds nothing.
			if err := h.ap.ExpireDue(t.Context()); err != nil {
				t.Fatal(err)
			}
			h.noResume()
		})
	}
}

// TestApprovalRerun: after a restart the core resumes the session and the
// runner asks about the same tool call again. It must not post a second
// message, and the click must reach that Approve, not the resume hook.
func TestApprovalRerun(t *testing.T) {
	h := newAPHarness(t)
	first := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
	first.cancel()
	first.result(t)
	h.restart()

	again := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
	if again.msg != first.msg || again.id != first.id {
		t.Fatalf("re-asked with message %v id %s; want the first, %v %s", again.msg, again.id, first.msg, first.id)
	}
	if n := len(h.ad.sent()); n != 1 {
		t.Errorf("%d messages posted, want 1", n)
	}
	if handled, _, err := h.click(apRequester, "a:"+first.id, first.msg); !handled || err != nil {
		t.Fatalf("click = %t, %v", handled, err)
	}
	if d, err := again.result(t); err != nil || !d.Approved {
		t.Errorf("Approve = %+v, %v", d, err)
	}
	h.noResume()

	// Asked once more, now decided: the stored decision, at once.
	d, err := h.ap.Approve(t.Context(), agent.ApprovalRequest{
		SessionID: h.sid, Caller: agent.Caller{UserKey: apRequester.Key()}, Call: llm.ToolCall{ID: "call_1", Name: "shell"},
	})
	if err != nil || d != (agent.Decision{Approved: true, By: "Alice", Summary: "rm -rf /tmp/x"}) {
		t.Errorf("Approve of a decided call = %+v, %v", d, err)
	}
	if n := len(h.ad.sent()); n != 1 {
		t.Errorf("%d messages posted, want 1", n)
	}
}

// TestApprovalsIndependent: several approvals pending at once in one
// session are decided one by one, each reaching its own Approve.
func TestApprovalsIndependent(t *testing.T) {
	h := newAPHarness(t)
	asks := []*apAsked{
		h.ask(h.sid, "call_1", "first"),
		h.ask(h.sid, "call_2", "second"),
		h.ask(h.sid, "call_3", "third"),
	}
	if handled, _, err := h.click(apAdmin, "d:"+asks[1].id, asks[1].msg); !handled || err != nil {
		t.Fatalf("deny second = %t, %v", handled, err)
	}
	if d, err := asks[1].result(t); err != nil || d != (agent.Decision{By: "Root"}) {
		t.Errorf("second = %+v, %v", d, err)
	}
	asks[0].still(t)
	asks[2].still(t)
	if handled, _, err := h.click(apRequester, "a:"+asks[2].id, asks[2].msg); !handled || err != nil {
		t.Fatalf("approve third = %t, %v", handled, err)
	}
	if d, err := asks[2].result(t); err != nil || d != (agent.Decision{Approved: true, By: "Alice", Summary: "third"}) {
		t.Errorf("third = %+v, %v", d, err)
	}
	asks[0].still(t)
	h.clock.Advance(apExpiry)
	if d, err := asks[0].result(t); err != nil || !d.Expired {
		t.Errorf("first = %+v, %v", d, err)
	}
	h.noResume()
}

// TestApprovalMessageIsSafe: the summary is the model's text. It must not
// ping anyone, break out of its quote or fake the decision line.
func TestApprovalMessageIsSafe(t *testing.T) {
	h := newAPHarness(t)
	summary := "@everyone @here <!channel> <!here> <@U123> <@&456>\n" +
		"```\n✅ **Approved by Root**\n```\n" +
		"[click](https://evil.example) \u202egnp.exe\u202c\r\nrm -rf / `$(id)`"
	a := h.ask(h.sid, "call_1", summary)
	text := a.out.Text
	for _, ping := range []string{"@everyone", "@here", "<!channel>", "<!here>", "<@U123>", "<@&456>", "\u202e"} {
		if strings.Contains(text, ping) {
			t.Errorf("message contains %q:\n%s", ping, text)
		}
	}
	if !strings.HasPrefix(text, "🔐 **Approval needed** · `shell` · asked by Alice\n```\n") {
		t.Errorf("message does not start with the approval line and the quote:\n%s", text)
	}
	if n := strings.Count(text, "```"); n != 2 {
		t.Errorf("message has %d fences, want the 2 of its own quote:\n%s", n, text)
	}
	if !strings.Contains(text, "✅ **Approved by Root**") {
		t.Errorf("summary not shown:\n%s", text)
	}
	if first, _, _ := strings.Cut(text, "\n"); strings.Contains(first, "Approved") {
		t.Errorf("the first line shows a decision: %q", first)
	}
	for i, b := range a.out.Buttons {
		if len(b.Data) > chat.MaxButtonData || b.Data != []string{"a:", "d:"}[i]+a.id {
			t.Errorf("button %d data %q", i, b.Data)
		}
	}
	if want := []chat.Button{
		{Label: "Approve", Style: chat.ButtonPrimary, Data: "a:" + a.id},
		{Label: "Deny", Style: chat.ButtonDanger, Data: "d:" + a.id},
	}; !cmp.Equal(want, a.out.Buttons) {
		t.Errorf("buttons = %+v", a.out.Buttons)
	}
	if len(a.id) == 0 || len(a.id) > 32 {
		t.Errorf("approval id %q: want 1-32 characters", a.id)
	}
	// The decided message quotes the summary just as safely.
	h.click(apRequester, "a:"+a.id, a.msg)
	for _, e := range h.ad.edited() {
		for _, ping := range []string{"@everyone", "<!channel>"} {
			if strings.Contains(e.Out.Text, ping) {
				t.Errorf("edited message contains %q", ping)
			}
		}
	}
}

func TestApprovalPostFails(t *testing.T) {
	h := newAPHarness(t)
	h.ad.failSends(errors.New("chat not found"))
	_, err := h.ap.Approve(t.Context(), agent.ApprovalRequest{
		SessionID: h.sid, Caller: agent.Caller{UserKey: apRequester.Key()}, Call: llm.ToolCall{ID: "call_1", Name: "shell"},
	})
	if err == nil || !strings.Contains(err.Error(), "chat not found") {
		t.Fatalf("Approve = %v, want the send error", err)
	}
	recs, err := h.db.SessionApprovals(t.Context(), h.sid)
	if err != nil || len(recs) != 1 || recs[0].Status != approvals.StatusExpired {
		t.Fatalf("approvals = %+v, %v; want one, closed", recs, err)
	}
	// Closed, so no sweep later resumes the session over it.
	h.clock.Advance(apExpiry)
	if err := h.ap.ExpireDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.noResume()
}

func TestApprovalPostWaitsOutRateLimit(t *testing.T) {
	h := newAPHarness(t)
	h.ad.failSends(&chat.RateLimitError{RetryAfter: 3 * time.Second, Err: errors.New("429")})
	done := make(chan apResult, 1)
	go func() {
		d, err := h.ap.Approve(t.Context(), agent.ApprovalRequest{
			SessionID: h.sid, Caller: agent.Caller{UserKey: apRequester.Key()}, Call: llm.ToolCall{ID: "call_1", Name: "shell"},
		})
		done <- apResult{d, err}
	}()
	if d := h.waitSleep(); d != 3*time.Second {
		t.Fatalf("backed off %s, want the 3s asked for", d)
	}
	if n := len(h.ad.sent()); n != 0 {
		t.Fatalf("%d sent before the back-off ended", n)
	}
	h.clock.Advance(3 * time.Second)
	h.waitSleep() // now waiting for the decision
	sent := h.ad.sent()
	if len(sent) != 1 {
		t.Fatalf("%d messages posted, want 1", len(sent))
	}
	id := strings.TrimPrefix(sent[0].Out.Buttons[0].Data, "a:")
	if handled, _, err := h.click(apAdmin, "a:"+id, sent[0].Ref); !handled || err != nil {
		t.Fatalf("click = %t, %v", handled, err)
	}
	if r := <-done; r.err != nil || !r.d.Approved {
		t.Errorf("Approve = %+v, %v", r.d, r.err)
	}
}

func TestApprovalRefusals(t *testing.T) {
	h := newAPHarness(t)
	console, err := h.db.SessionFor(t.Context(), chat.Thread{Platform: "console"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  agent.ApprovalRequest
		caps func(*chat.Capabilities)
	}{
		{"no tool call id", agent.ApprovalRequest{SessionID: h.sid, Caller: agent.Caller{UserKey: apRequester.Key()}}, nil},
		{"unknown session", agent.ApprovalRequest{SessionID: "nosuch", Call: llm.ToolCall{ID: "c"}}, nil},
		{"platform without adapter", agent.ApprovalRequest{SessionID: console, Call: llm.ToolCall{ID: "c"}}, nil},
		{"adapter without buttons", agent.ApprovalRequest{SessionID: h.sid, Call: llm.ToolCall{ID: "c"}}, func(c *chat.Capabilities) { c.Buttons = false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := h.ad.caps
			if tt.caps != nil {
				tt.caps(&h.ad.caps)
			}
			defer func() { h.ad.caps = saved }()
			if _, err := h.ap.Approve(t.Context(), tt.req); err == nil {
				t.Error("Approve succeeded")
			}
		})
	}
	if n := len(h.ad.sent()); n != 0 {
		t.Errorf("%d messages posted", n)
	}
}

func TestNewNeedsItsParts(t *testing.T) {
	if _, err := approvals.New(approvals.Config{}); err == nil {
		t.Error("New without store, adapters and sessions succeeded")
	}
}

// TestApprovalClickBeforeRefIsRecorded: a click can arrive between the
// platform creating the message and Parley recording its ref. It must be
// honoured, not refused as invalid.
func TestApprovalClickBeforeRefIsRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newAPHarness(t)
		clicked := make(chan []string, 1)
		h.ad.onSend = func(ref chat.MessageRef, out chat.Out) {
			go func() {
				_, told, err := h.click(apRequester, out.Buttons[0].Data, ref)
				if err != nil {
					t.Error(err)
				}
				clicked <- told
			}()
			synctest.Wait() // the click is in, waiting for the ref
		}
		ctx := t.Context()
		d, err := h.ap.Approve(ctx, agent.ApprovalRequest{
			SessionID: h.sid,
			Caller:    agent.Caller{SessionID: h.sid, UserKey: apRequester.Key(), UserName: apRequester.Name},
			Call:      llm.ToolCall{ID: "early", Name: "shell", Arguments: []byte(`{}`)},
			Summary:   "ls",
		})
		if err != nil || !d.Approved {
			t.Fatalf("decision %+v, err %v", d, err)
		}
		if told := <-clicked; len(told) != 0 {
			t.Fatalf("the early clicker was told %q", told)
		}
	})
}

// staleRead is an ApprovalStore whose first read of an approval without
// refs returns only after the poster has recorded the refs and left: the
// clicker then holds a record older than the store.
type staleRead struct {
	approvals.Store
	once    sync.Once
	refsSet chan struct{}
}

func (s *staleRead) Approval(ctx context.Context, id string) (approvals.Record, bool, error) {
	rec, ok, err := s.Store.Approval(ctx, id)
	if ok && len(rec.Refs) == 0 {
		stall := false
		s.once.Do(func() { stall = true })
		if stall {
			<-s.refsSet
			synctest.Wait() // the poster has left post and waits for a decision
		}
	}
	return rec, ok, err
}

func (s *staleRead) SetApprovalRefs(ctx context.Context, id string, refs []chat.MessageRef) error {
	err := s.Store.SetApprovalRefs(ctx, id, refs)
	close(s.refsSet)
	return err
}

// TestApprovalClickReadBeforeRefIsRecorded: a click that read the approval
// before its ref was recorded, and looks for the poster after it left, is
// still honoured (it once answered "no longer valid" to a real click).
func TestApprovalClickReadBeforeRefIsRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newAPHarness(t)
		h.wrapStore = func(st approvals.Store) approvals.Store {
			return &staleRead{Store: st, refsSet: make(chan struct{})}
		}
		h.restart()
		clicked := make(chan []string, 1)
		h.ad.onSend = func(ref chat.MessageRef, out chat.Out) {
			go func() {
				_, told, err := h.click(apRequester, out.Buttons[0].Data, ref)
				if err != nil {
					t.Error(err)
				}
				clicked <- told
			}()
			synctest.Wait() // the click has read the record without refs
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		decided := make(chan apResult, 1)
		go func() {
			d, err := h.ap.Approve(ctx, agent.ApprovalRequest{
				SessionID: h.sid,
				Caller:    agent.Caller{SessionID: h.sid, UserKey: apRequester.Key(), UserName: apRequester.Name},
				Call:      llm.ToolCall{ID: "stale", Name: "shell", Arguments: []byte(`{}`)},
				Summary:   "ls",
			})
			decided <- apResult{d, err}
		}()
		if told := <-clicked; len(told) != 0 {
			t.Fatalf("the clicker was told %q", told)
		}
		if r := <-decided; r.err != nil || !r.d.Approved {
			t.Fatalf("decision %+v, err %v", r.d, r.err)
		}
	})
}
