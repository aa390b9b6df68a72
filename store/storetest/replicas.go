package storetest

import (
	"testing"
	"time"
)

// beatStep is one call: Beat by replica at epoch+at counting since
// epoch+since (live is what it must return), or, with leave set, Leave.
// on picks the handle, as leaseStep's does.
type beatStep struct {
	on      int
	leave   bool
	replica string
	at      time.Duration
	since   time.Duration
	live    int
}

func beat(on int, replica string, at, since time.Duration, live int) beatStep {
	return beatStep{on: on, replica: replica, at: at, since: since, live: live}
}

func leave(on int, replica string) beatStep {
	return beatStep{on: on, leave: true, replica: replica}
}

func testReplicas(t *testing.T, s suite) {
	const (
		ms  = time.Millisecond
		sec = time.Second
	)
	tests := []struct {
		name  string
		steps []beatStep
	}{
		{"alone counts itself", []beatStep{
			beat(0, "a", 0, -30*sec, 1),
		}},
		{"counts the live ones by since", []beatStep{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", 10*sec, -20*sec, 2),
			beat(0, "c", 40*sec, 10*sec, 2), // a's beat is older than since
		}},
		{"since is inclusive", []beatStep{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", 10*sec, 0, 2),
			beat(1, "b", 10*sec, ms, 1),
		}},
		{"a beat again does not count twice", []beatStep{
			beat(0, "a", 0, -30*sec, 1),
			beat(0, "a", 5*sec, -25*sec, 1),
			beat(1, "a", 6*sec, -24*sec, 1), // from the other handle too
			beat(1, "b", 7*sec, -23*sec, 2),
			beat(0, "a", 8*sec, -22*sec, 2),
		}},
		{"a beat again brings it back", []beatStep{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", 60*sec, 30*sec, 1), // a went quiet
			beat(0, "a", 61*sec, 31*sec, 2),
		}},
		{"leave drops it", []beatStep{
			beat(0, "a", 0, -30*sec, 1),
			beat(1, "b", sec, -29*sec, 2),
			leave(0, "a"),
			beat(1, "b", 2*sec, -28*sec, 1),
		}},
		{"leave then beat again", []beatStep{
			beat(0, "a", 0, -30*sec, 1),
			leave(1, "a"),
			leave(1, "a"), // twice, or never seen: harmless
			leave(1, "nobody"),
			beat(0, "a", sec, -29*sec, 1),
			beat(1, "b", 2*sec, -28*sec, 2),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, reopen := s.open(t, Options{})
			dbs := []Store{db, reopen()}
			for i, st := range tt.steps {
				h := dbs[st.on]
				if st.leave {
					if err := h.Leave(t.Context(), st.replica); err != nil {
						t.Fatalf("step %d: Leave(%q): %v", i, st.replica, err)
					}
					continue
				}
				live, err := h.Beat(t.Context(), st.replica, epoch.Add(st.at), epoch.Add(st.since))
				if err != nil || live != st.live {
					t.Fatalf("step %d: Beat(%q, +%v, since +%v) = %d, %v; want %d, nil", i, st.replica, st.at, st.since, live, err, st.live)
				}
			}
		})
	}
}
