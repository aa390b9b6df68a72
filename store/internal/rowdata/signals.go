package rowdata

import (
	"time"

	"github.com/parleybot/parley/agent/evolve"
)

// AddActivity folds one run into out, the activity of every scope with
// runs, given rows ordered by scope then time: scope's last reflection
// (zero: never), the run's time and its signals. A scope's Since is its
// oldest run after its last reflection, and Best the best score (w) of
// the runs since.
func AddActivity(out []evolve.Activity, scope string, lastReflected, at time.Time, s evolve.Signals, w evolve.Weights) []evolve.Activity {
	if len(out) == 0 || out[len(out)-1].Scope != scope {
		out = append(out, evolve.Activity{Scope: scope, LastReflected: lastReflected})
	}
	a := &out[len(out)-1]
	a.LastActivity = at
	if at.After(a.LastReflected) {
		if a.Since.IsZero() {
			a.Since = at
		}
		a.Best = max(a.Best, evolve.Score(s, w))
	}
	return out
}
