package evolve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
)

func TestRatesJudgeASkill(t *testing.T) {
	tests := []struct {
		name    string
		r       Rates
		failing bool
		useful  float64
	}{
		{"new", Rates{}, false, 0.25},
		{"listed a hundred times, never read", Rates{Impressions: 100}, false, 1.0 / 102 * 0.5},
		{"read and helpful", Rates{Impressions: 10, Invocations: 8}, false, 9.0 / 12 * 9.0 / 10},
		{"four bad uses are too few to say", Rates{Impressions: 10, Invocations: 4, Ineffective: 4}, false, 5.0 / 12 * 1.0 / 6},
		{"ineffective over five uses", Rates{Impressions: 10, Invocations: 5, Ineffective: 3}, true, 6.0 / 12 * 3.0 / 7},
		{"five uses, mostly fine", Rates{Impressions: 10, Invocations: 5, Ineffective: 2}, false, 6.0 / 12 * 4.0 / 7},
		{"corrected and failed on the same run", Rates{Impressions: 6, Invocations: 6, EditAfterHit: 6, Ineffective: 6}, true, 7.0 / 8 * 1.0 / 8},
	}
	for _, tt := range tests {
		if got := tt.r.Failing(); got != tt.failing {
			t.Errorf("%s: Failing = %v, want %v", tt.name, got, tt.failing)
		}
		if got := tt.r.Usefulness(); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", tt.useful) {
			t.Errorf("%s: Usefulness = %.6f, want %.6f", tt.name, got, tt.useful)
		}
	}
}

// fixedRates are a scope's rates as the store would give them.
type fixedRates map[string]map[string]Rates

func (f fixedRates) ScopeSkillRates(_ context.Context, scope string) (map[string]Rates, error) {
	return f[scope], nil
}

// TestSkillIndexEvictsTheLeastUseful: past the budget, among skills
// equally related to the message, the ones never read though often
// listed, or read and failing, are left out first, whatever their age.
func TestSkillIndexEvictsTheLeastUseful(t *testing.T) {
	f := Skills{Store: SkillFiles{Dir: t.TempDir()}, Max: 500, Now: clockAt(t0)}
	scope := "space:slack:T1"
	desc := strings.Repeat("a routine procedure of this team ", 3)
	rates := map[string]Rates{}
	const n = 40
	for i := range n {
		name := fmt.Sprintf("Procedure %02d", i)
		f.Create(t.Context(), scope, name, desc, "steps")
		// The newest half are dead weight: listed often, never read, or
		// read and failing; the oldest half are read and help.
		switch {
		case i >= n/2 && i%2 == 0:
			rates[strings.ToLower(name)] = Rates{Impressions: 200}
		case i >= n/2:
			rates[strings.ToLower(name)] = Rates{Impressions: 50, Invocations: 10, Ineffective: 9}
		default:
			rates[strings.ToLower(name)] = Rates{Impressions: 50, Invocations: 20}
		}
	}
	tests := []struct {
		name       string
		rates      RateSource
		wantUseful bool // every listed skill one of the helpful half
	}{
		{"by rates", fixedRates{scope: rates}, true},
		{"without rates, the newest", nil, false},
	}
	for _, tt := range tests {
		list, err := Index{Files: f, Rates: tt.rates, BudgetTokens: 300}.SkillIndex(t.Context(), agent.Caller{Learned: []string{scope}}, "hello")
		if err != nil {
			t.Fatal(err)
		}
		if list.More == 0 || len(list.Listed) == 0 {
			t.Fatalf("%s: the budget does not bind: %d listed, %d more", tt.name, len(list.Listed), list.More)
		}
		allUseful := true
		for _, s := range list.Listed {
			var i int
			fmt.Sscanf(s.Name, "Procedure %d", &i)
			allUseful = allUseful && i < n/2
		}
		if allUseful != tt.wantUseful {
			t.Errorf("%s: listed %v", tt.name, list.Listed)
		}
	}
}
