package approvals_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

var (
	apEpoch     = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	apRequester = chat.User{Platform: "telegram", ID: "42", Name: "Alice"}
	apAdmin     = chat.User{Platform: "telegram", ID: "7", Name: "Root"}
	apStranger  = chat.User{Platform: "telegram", ID: "99", Name: "Mallory"}
	// The same numeric id on another platform is another person.
	apLookalike = chat.User{Platform: "discord", ID: "42", Name: "Alice"}
)

const apExpiry = 10 * time.Minute

// apHarness is one process's worth of approvals over a real SQLite file: the
// store, a fake Telegram adapter, a hand-moved clock. restart drops the
// Approvals and the store, as a dying process would, and builds new ones
// over the same file; adapter and clock stand for the outside world and
// stay.
type apHarness struct {
	t      *testing.T
	path   string
	ad     *apAdapter
	clock  *apClock
	db     *store.DB
	ap     *approvals.Approvals
	thread chat.Thread
	sid    string
	// mandatory makes the next asks mandatory (only an approver approves).
	mandatory bool
	// private makes the next asks private: the requester's alone, shown
	// only to them.
	private bool
	// resumed receives what the Resumer is called with.
	resumed chan approvals.Record
	// pollEvery is Config.PollEvery (replicas sharing the store).
	pollEvery time.Duration
	// wrapStore, if set, stands between the Approvals and the store.
	wrapStore func(approvals.Store) approvals.Store
}

func newAPHarness(t *testing.T) *apHarness {
	t.Helper()
	h := &apHarness{
		t:      t,
		path:   filepath.Join(t.TempDir(), "parley.db"),
		ad:     newAPAdapter("telegram"),
		clock:  newAPClock(apEpoch),
		thread: chat.Thread{Platform: "telegram", Chat: "-100"},
	}
	h.start()
	sid, err := h.db.SessionFor(t.Context(), h.thread)
	if err != nil {
		t.Fatal(err)
	}
	h.sid = sid
	t.Cleanup(func() { h.db.Close() })
	return h
}

// start opens the store and builds Approvals over it.
func (h *apHarness) start() {
	h.t.Helper()
	db, err := store.Open(context.Background(), h.path)
	if err != nil {
		h.t.Fatal(err)
	}
	h.db = db
	h.resumed = make(chan approvals.Record, 10)
	resumed := h.resumed
	out, err := outbound.New(outbound.Config{
		Adapters: []chat.Adapter{h.ad}, Now: h.clock.Now, Sleep: h.clock.Sleep, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		h.t.Fatal(err)
	}
	var st approvals.Store = db
	if h.wrapStore != nil {
		st = h.wrapStore(db)
	}
	h.ap, err = approvals.New(approvals.Config{
		Store:     st,
		Sessions:  threadOf{db},
		Outbound:  out,
		Approvers: []string{apAdmin.Key()},
		Expiry:    apExpiry,
		Resumer:   resumeInto(resumed),
		Now:       h.clock.Now,
		Sleep:     h.clock.Sleep,
		PollEvery: h.pollEvery,
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		h.t.Fatal(err)
	}
}

// threadOf finds a session's conversation in the store, as the router
// does for the approvals it builds.
type threadOf struct{ db *store.DB }

func (s threadOf) SessionThread(ctx context.Context, id string) (chat.Thread, error) {
	info, err := s.db.Session(ctx, id)
	return info.Thread, err
}

// resumeInto is a Resumer that hands every decision on to a channel.
type resumeInto chan<- approvals.Record

func (r resumeInto) ResumeDecided(_ context.Context, rec approvals.Record) { r <- rec }

// restart simulates the process dying and starting again.
func (h *apHarness) restart() {
	h.t.Helper()
	if err := h.db.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.start()
}

// apAsked is one Approve call running in the background.
type apAsked struct {
	id     string          // the approval id, from the message's buttons
	msg    chat.MessageRef // the message carrying the buttons
	out    chat.Out
	cancel context.CancelFunc
	done   chan apResult
}

type apResult struct {
	d   agent.Decision
	err error
}

// ask starts Approve for a tool call in session sid and returns once it is
// waiting for a decision, with the message it posted.
func (h *apHarness) ask(sid, callID, summary string) *apAsked {
	h.t.Helper()
	ctx, cancel := context.WithCancel(h.t.Context())
	h.t.Cleanup(cancel)
	a := &apAsked{cancel: cancel, done: make(chan apResult, 1)}
	ap := h.ap
	go func() {
		d, err := ap.Approve(ctx, agent.ApprovalRequest{
			SessionID: sid,
			Caller:    agent.Caller{SessionID: sid, UserKey: apRequester.Key(), UserName: apRequester.Name},
			Call:      llm.ToolCall{ID: callID, Name: "shell", Arguments: []byte(`{"command":"rm -rf /tmp/x"}`)},
			Summary:   summary,
			Mandatory: h.mandatory,
			Private:   h.private,
		})
		a.done <- apResult{d, err}
	}()
	h.waitSleep()
	if h.private {
		shown := h.ad.private()
		if len(shown) == 0 || len(h.ad.sent()) != 0 {
			h.t.Fatalf("a private approval was shown privately %d times and in the thread %d times", len(shown), len(h.ad.sent()))
		}
		last := shown[len(shown)-1]
		if last.User.Key() != apRequester.Key() {
			h.t.Fatalf("a private approval was shown to %s", last.User.Key())
		}
		a.out = last.Out
	} else {
		sent := h.ad.sent()
		if len(sent) == 0 {
			h.t.Fatal("Approve waits without having posted a message")
		}
		last := sent[len(sent)-1]
		a.msg, a.out = last.Ref, last.Out
	}
	if len(a.out.Buttons) != 2 {
		h.t.Fatalf("approval message has buttons %+v, want Approve and Deny", a.out.Buttons)
	}
	a.id = strings.TrimPrefix(a.out.Buttons[0].Data, "a:")
	return a
}

// waitSleep returns once something sleeps on the clock: an Approve waiting
// out its expiry, or a retry backing off.
func (h *apHarness) waitSleep() time.Duration {
	h.t.Helper()
	select {
	case d := <-h.clock.slept:
		return d
	case <-time.After(10 * time.Second): // a hang guard, not synchronization
		h.t.Fatal("nothing started waiting")
		return 0
	}
}

// result returns what Approve returned.
func (a *apAsked) result(t *testing.T) (agent.Decision, error) {
	t.Helper()
	select {
	case r := <-a.done:
		return r.d, r.err
	case <-time.After(10 * time.Second): // a hang guard
		t.Fatal("Approve did not return")
		return agent.Decision{}, nil
	}
}

// still fails the test if Approve has returned.
func (a *apAsked) still(t *testing.T) {
	t.Helper()
	select {
	case r := <-a.done:
		t.Fatalf("Approve returned %+v, %v; want it still waiting", r.d, r.err)
	default:
	}
}

// click clicks a button as u and returns what u was told privately.
func (h *apHarness) click(u chat.User, data string, msg chat.MessageRef) (handled bool, told []string, err error) {
	h.t.Helper()
	var mu sync.Mutex
	handled, err = h.ap.HandleAction(h.t.Context(), chat.Action{
		Key: "cb1", Thread: h.thread, User: u, Data: data, Message: msg,
		Respond: func(_ context.Context, text string) error {
			mu.Lock()
			defer mu.Unlock()
			told = append(told, text)
			return nil
		},
	})
	return handled, told, err
}

func (h *apHarness) status(id string) string {
	h.t.Helper()
	rec, ok, err := h.db.Approval(h.t.Context(), id)
	if err != nil || !ok {
		h.t.Fatalf("Approval(%s) = %t, %v", id, ok, err)
	}
	return rec.Status
}

// noResume fails if the Resumer was called.
func (h *apHarness) noResume() {
	h.t.Helper()
	select {
	case rec := <-h.resumed:
		h.t.Errorf("the Resumer(%+v) called; a waiter was there", rec)
	default:
	}
}

func (h *apHarness) resumedRecord() approvals.Record {
	h.t.Helper()
	select {
	case rec := <-h.resumed:
		return rec
	default:
		h.t.Fatal("the Resumer was not called")
		return approvals.Record{}
	}
}
