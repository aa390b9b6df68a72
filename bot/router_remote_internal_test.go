package bot

import (
	"context"
	"testing"
	"time"
)

// countingInbox counts its reads of the unfinished items.
type countingInbox struct {
	Inbox
	reads int
}

func (c *countingInbox) Unfinished(context.Context) ([]InboxItem, error) {
	c.reads++
	return []InboxItem{{Key: "k"}}, nil
}

// TestRecentUnfinishedIsShared: the running turns' looks share one read
// of the inbox per half SignalEvery, but a turn never uses a read made
// before it began (the previous turn may have answered what it lists).
func TestRecentUnfinishedIsShared(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	in := &countingInbox{}
	r := &Router{cfg: RouterConfig{Inbox: in, Now: func() time.Time { return now },
		Sharing: &Sharing{SignalEvery: time.Second}}}
	began := now
	steps := []struct {
		advance   time.Duration
		notBefore func() time.Time
		reads     int
	}{
		{0, func() time.Time { return began }, 1},                      // the first look reads
		{100 * time.Millisecond, func() time.Time { return began }, 1}, // another turn's look, soon after: shared
		{400 * time.Millisecond, func() time.Time { return began }, 2}, // half a SignalEvery after the read: read again
		{10 * time.Millisecond, func() time.Time { return now }, 3},    // a turn that began after that read
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		items, err := r.recentUnfinished(t.Context(), st.notBefore())
		if err != nil || len(items) != 1 {
			t.Fatalf("step %d: %v, %v", i, items, err)
		}
		if in.reads != st.reads {
			t.Errorf("step %d: %d reads, want %d", i, in.reads, st.reads)
		}
	}
}
