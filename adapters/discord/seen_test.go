package discord

import (
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/internal/syncbuf"

	"github.com/parleybot/parley/store"
)

// TestSeenTracker: a channel's cursor never passes a message still in
// flight, whatever order handlings finish in, and a recovery's hold (its
// starting point in flight) keeps newer live messages from moving it.
func TestSeenTracker(t *testing.T) {
	type step struct {
		begin bool // else end
		id    string
		want  string // the cursor end returns
	}
	b := func(id string) step { return step{begin: true, id: id} }
	e := func(id, want string) step { return step{id: id, want: want} }
	tests := []struct {
		name  string
		steps []step
	}{
		{"in order", []step{b("10"), e("10", "10"), b("11"), e("11", "11")}},
		{"newer done first waits for the older", []step{
			b("10"), b("11"), b("12"), e("12", ""), e("11", ""), e("10", "12"),
		}},
		{"older done first moves on at once", []step{b("10"), b("11"), e("10", "10"), e("11", "11")}},
		{"middle one last", []step{b("10"), b("11"), b("12"), e("10", "10"), e("12", ""), e("11", "12")}},
		{"ids compared as numbers", []step{b("9"), b("10"), e("10", ""), e("9", "10")}},
		{"a recovery's hold", []step{
			b("100"),           // hold at the stored cursor
			b("300"),           // a live message of the new session
			e("300", ""),       // handled: the hold keeps the cursor
			b("150"), b("160"), // what the recovery reads
			e("150", ""), e("160", ""),
			e("100", "300"), // the channel is read: everything is done
		}},
		{"the same message handled twice", []step{
			b("10"), b("10"), b("11"), e("10", ""), e("11", ""), e("10", "11"),
		}},
		{"end without begin", []step{e("10", "10")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSeenTracker()
			for i, st := range tt.steps {
				if st.begin {
					s.begin("ch", st.id)
					continue
				}
				if got := s.end("ch", st.id); got != st.want {
					t.Fatalf("step %d: end(%s) = %q, want %q", i, st.id, got, st.want)
				}
			}
			if len(s.chans) != 0 {
				t.Errorf("after every handling ended, %d channels are still tracked", len(s.chans))
			}
		})
	}
}

// TestLoadSeen: a start recovers the channels State saw in the last day,
// the most recent first, skips malformed entries, and deletes those older
// than a week.
func TestLoadSeen(t *testing.T) {
	now := time.Now()
	clock := now
	db, err := store.Open(testCtx(t), filepath.Join(t.TempDir(), "parley.db"),
		store.WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	set := func(at time.Time, key, value string) {
		t.Helper()
		clock = at
		if err := db.Set(testCtx(t), key, value); err != nil {
			t.Fatal(err)
		}
	}
	set(now.Add(-8*24*time.Hour), seenPrefix+"603", "700|1003")
	set(now.Add(-25*time.Hour), seenPrefix+"602", "700|1002")
	set(now.Add(-time.Minute), seenPrefix+"601", "|1010") // a DM
	set(now.Add(-time.Minute), seenPrefix+"600", "700|1001")
	set(now.Add(-time.Minute), seenPrefix+"604", "no separator")
	set(now.Add(-time.Minute), seenPrefix+"605", "700|12a")
	set(now.Add(-time.Minute), "discord:seenx", "700|1")

	log := &syncbuf.Buffer{}
	a, err := New(Config{Token: "t", State: db, Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if n := a.loadSeen(testCtx(t)); n != 2 {
		t.Errorf("loadSeen = %d, want 2", n)
	}
	var got []string
	for _, e := range a.active.Newest(backfillChannels) {
		got = append(got, e.Key+"@"+e.Val.guild+"/"+e.Val.lastID)
	}
	if want := []string{"601@/1010", "600@700/1001"}; !slices.Equal(got, want) {
		t.Errorf("channels to recover %q, want %q", got, want)
	}
	for key, want := range map[string]bool{seenPrefix + "603": false, seenPrefix + "602": true, "discord:seenx": true} {
		if _, ok, err := db.Get(testCtx(t), key); ok != want || err != nil {
			t.Errorf("after the start, %s present = %v (%v), want %v", key, ok, err, want)
		}
	}
	if s := log.String(); strings.Count(s, "malformed channel cursor") != 2 {
		t.Errorf("want two malformed entries logged:\n%s", s)
	}
}
