package evolve

import "context"

// Weights say how much each signal makes a run worth reflecting on
// (evolution.* keys). A run's score is its strongest signal's weight.
type Weights struct {
	Correction     float64 // the person corrected the run (0.9)
	SkillThenError float64 // it read a skill and still ended in a real error (0.85)
	Recovered      float64 // it recovered from a real error (0.8)
	Weakness       float64 // it hit a weakness the self-memo names (0.7)
	Complexity     float64 // it made more than ComplexToolCalls tool calls (0.5)
	// ComplexToolCalls is where a run counts as complex (default 8).
	ComplexToolCalls int
	// Threshold is the score from which reflection is warranted (0.7).
	Threshold float64
}

// DefaultWeights are the weights the agent design gives.
func DefaultWeights() Weights {
	return Weights{Correction: 0.9, SkillThenError: 0.85, Recovered: 0.8, Weakness: 0.7, Complexity: 0.5,
		ComplexToolCalls: 8, Threshold: 0.7}
}

// Score is how worth reflecting on a run is: the weight of its strongest
// signal, 0 with none. Transient errors never count for anything, and a
// stopped run is not an ineffective one.
func Score(s Signals, w Weights) float64 {
	score := 0.0
	take := func(ok bool, weight float64) {
		if ok {
			score = max(score, weight)
		}
	}
	take(s.Corrected, w.Correction)
	take(len(s.SkillsRead) > 0 && s.EndedInRealError && !s.Stopped, w.SkillThenError)
	take(s.Recovered, w.Recovered)
	take(s.Weakness, w.Weakness)
	take(w.ComplexToolCalls > 0 && s.ToolCalls > w.ComplexToolCalls, w.Complexity)
	return score
}

// Warranted reports whether a run's score calls for reflection.
func (w Weights) Warranted(score float64) bool { return score > 0 && score >= w.Threshold }

// Rates measure whether a skill helps, from counts over its scope's runs.
type Rates struct {
	Impressions  int // turns whose prompt listed it
	Invocations  int // runs that read it
	EditAfterHit int // of those, runs the person then corrected
	Ineffective  int // of those, runs that ended in a real error (stopped runs excluded)
}

// InvocationRate is invocations per impression.
func (r Rates) InvocationRate() float64 { return ratio(r.Invocations, r.Impressions) }

// EditAfterHitRate is the share of invocations the person corrected.
func (r Rates) EditAfterHitRate() float64 { return ratio(r.EditAfterHit, r.Invocations) }

// IneffectiveRate is the share of invocations in runs ending in a real
// error.
func (r Rates) IneffectiveRate() float64 { return ratio(r.Ineffective, r.Invocations) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// A skill is flagged ineffective once it has been read in at least
// IneffectiveUses runs and at least IneffectiveRate of them ended in a
// real error: few enough uses to act before it misleads for weeks, enough
// that one bad day does not condemn it. Reflection is told to rewrite or
// delete a flagged skill (the packet marks it).
const (
	IneffectiveUses = 5
	IneffectiveRate = 0.6
)

// Failing reports whether the skill stayed ineffective over enough uses
// to say so (IneffectiveUses, IneffectiveRate).
func (r Rates) Failing() bool {
	return r.Invocations >= IneffectiveUses && r.IneffectiveRate() >= IneffectiveRate
}

// Usefulness ranks skills for the index when its budget binds: how often
// a listing is read, times how often a read helps (neither corrected nor
// ended in a real error), each smoothed by one success and one failure so
// that a new skill ranks in the middle (0.25), a skill listed a hundred
// times and never read near 0, and a read, helpful one near 1.
func (r Rates) Usefulness() float64 {
	read := float64(r.Invocations+1) / float64(max(r.Impressions, r.Invocations)+2)
	helped := max(r.Invocations-r.EditAfterHit-r.Ineffective, 0)
	return read * float64(helped+1) / float64(r.Invocations+2)
}

// RateSource gives every skill's counts in a scope, by lowercased name
// (store.DB).
type RateSource interface {
	ScopeSkillRates(ctx context.Context, scope string) (map[string]Rates, error)
}
