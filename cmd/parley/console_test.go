package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/webconsole"
)

// TestConsoleLimits: the usage page measures against the limits the turns
// are held to: limits.daily_cost, and each agent's own budget or the
// top-level one; an agent whose budget is 0 has none.
func TestConsoleLimits(t *testing.T) {
	cfg, err := loadFile(t, `
limits: {daily_cost: 0.5}
budget: {monthly: 20}
agents:
  support: {budget: {monthly: 5}}
  free: {budget: {monthly: 0}}
  eng: {}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := webconsole.Limits{DailyCost: 0.5, Monthly: map[string]float64{"default": 20, "support": 5, "eng": 20}}
	if diff := cmp.Diff(want, consoleLimits(cfg)); diff != "" {
		t.Errorf("consoleLimits (-want +got):\n%s", diff)
	}
}
