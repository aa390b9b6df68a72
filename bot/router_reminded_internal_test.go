package bot

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/parleybot/parley/chat"
)

// boundOnly is a SessionMap that knows one thread's session.
type boundOnly struct {
	SessionMap
	t   chat.Thread
	sid string
}

func (b boundOnly) BoundSession(_ context.Context, t chat.Thread) (string, bool, error) {
	return b.sid, t == b.t, nil
}

type mapKV map[string]string

func (m mapKV) Get(_ context.Context, k string) (string, bool, error) {
	v, ok := m[k]
	return v, ok, nil
}
func (m mapKV) Set(_ context.Context, k, v string) error { m[k] = v; return nil }

// TestReminderShown: a reminder shown where its owner's turn runs here
// reaches that turn's wait; anyone else's does not; where no turn runs
// here and replicas share the store, it is kept for the replica that runs
// it (read back by remindedElsewhere, router_remote_test.go); alone, or in
// a thread Parley never was, nothing is kept.
func TestReminderShown(t *testing.T) {
	th := chat.Thread{Platform: "slack", Space: "W", Chat: "C1", ID: "1.1"}
	at := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	newRouter := func(sharing *Sharing) (*Router, mapKV) {
		kv := mapKV{}
		return &Router{cfg: RouterConfig{Sessions: boundOnly{t: th, sid: "s1"}, KV: kv, Sharing: sharing,
			Now: func() time.Time { return at }}, sessions: map[string]*sessionState{}, log: slog.New(slog.DiscardHandler)}, kv
	}

	r, kv := newRouter(&Sharing{})
	st := r.session("s1")
	st.running, st.author, st.reminded = true, "slack:U1", make(chan string, 1)
	r.reminderShown(t.Context(), th, "slack:U2", "not yours")
	r.reminderShown(t.Context(), th, "slack:U1", "check the deploy")
	r.reminderShown(t.Context(), th, "slack:U1", "a second one never blocks")
	if got := <-st.reminded; got != "check the deploy" {
		t.Fatalf("the waiting turn got %q", got)
	}
	if len(kv) != 0 {
		t.Fatalf("a turn running here needs no record: %v", kv)
	}

	st.running = false
	r.reminderShown(t.Context(), th, "slack:U1", "check the deploy")
	var sig reminderSignal
	if err := json.Unmarshal([]byte(kv["turn-reminder:s1"]), &sig); err != nil || sig.Owner != "slack:U1" ||
		sig.Text != "check the deploy" || sig.At != at.UnixMilli() {
		t.Fatalf("kept for another replica: %q, %v", kv["turn-reminder:s1"], err)
	}
	r.reminderShown(t.Context(), chat.Thread{Platform: "slack", Chat: "C9"}, "slack:U1", "elsewhere")
	if len(kv) != 1 {
		t.Fatalf("a thread without a session kept something: %v", kv)
	}

	alone, kv := newRouter(nil)
	alone.reminderShown(t.Context(), th, "slack:U1", "check the deploy")
	if len(kv) != 0 {
		t.Fatalf("a process alone kept %v", kv)
	}
}
