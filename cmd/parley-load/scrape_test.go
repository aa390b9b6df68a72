package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseMetrics(t *testing.T) {
	const text = `# HELP parley_inbound_to_model_seconds From a platform event reaching the core to its turn's first model request being sent.
# TYPE parley_inbound_to_model_seconds histogram
parley_inbound_to_model_seconds_bucket{platform="telegram",le="0.001"} 50
parley_inbound_to_model_seconds_bucket{platform="telegram",le="0.002"} 90
parley_inbound_to_model_seconds_bucket{platform="telegram",le="0.005"} 98
parley_inbound_to_model_seconds_bucket{platform="telegram",le="0.01"} 100
parley_inbound_to_model_seconds_bucket{platform="telegram",le="+Inf"} 100
parley_inbound_to_model_seconds_sum{platform="telegram"} 0.15
parley_inbound_to_model_seconds_count{platform="telegram"} 100
parley_edits_total{platform="telegram"} 12
parley_edit_budget_total{platform="telegram"} 40
parley_edits_total{platform="slack"} 3
parley_store_waits_total{pool="readers"} 1
parley_store_waits_total{pool="writer"} 42
parley_store_wait_seconds_total{pool="writer"} 0.25
parley_store_commits_total 900
go_goroutines 20
`
	v, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := parleyView{InboundP50: millis(time.Millisecond), InboundP99: millis(10 * time.Millisecond), Within5ms: 0.98,
		Inbound: 100, Edits: 15, EditBudget: 40, WriterWaits: 42, WriterWaited: millis(250 * time.Millisecond), Commits: 900}
	if v != want {
		t.Fatalf("parseMetrics = %+v, want %+v", v, want)
	}
	// Two replicas' expositions, one after the other: the sums.
	v, err = parseMetrics(strings.NewReader(text + text))
	want.Inbound, want.Edits, want.EditBudget, want.WriterWaits, want.WriterWaited, want.Commits = 200, 30, 80, 84, millis(500*time.Millisecond), 1800
	if err != nil || v != want {
		t.Fatalf("two replicas: parseMetrics = %+v, %v; want %+v", v, err, want)
	}
	if v, err := parseMetrics(strings.NewReader("go_goroutines 3\n")); err != nil || v != (parleyView{}) {
		t.Fatalf("no Parley series: %+v, %v", v, err)
	}
}
