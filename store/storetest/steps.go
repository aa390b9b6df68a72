package storetest

import (
	"context"
	"testing"
)

// step is one call in a scripted test, on one of two handles on the same
// database (on: 0 the first, 1 a second: another replica), so that what a
// step shows was stored, not kept in the handle.
type step struct {
	on   int
	call string // the call, for the failure message
	do   func(ctx context.Context, h Store) error
}

// script is a scripted test: its steps run in order on a fresh database.
type script struct {
	name  string
	steps []step
}

// runScripts runs each script as a parallel subtest, stopping a script
// at its first failing step.
func runScripts(t *testing.T, s suite, scripts []script) {
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			db, reopen := s.open(t, Options{})
			dbs := []Store{db, reopen()}
			for i, st := range sc.steps {
				if err := st.do(t.Context(), dbs[st.on]); err != nil {
					t.Fatalf("step %d, handle %d: %s: %v", i, st.on, st.call, err)
				}
			}
		})
	}
}
