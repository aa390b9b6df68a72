package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/store/postgres/pgtest"
)

// TestEndToEnd runs the whole tool, flags to exit code, against the real
// parley binary (built once) on a small load. It is CI's load run: it
// fails on a lost or duplicated answer, a missing figure or an unclean
// exit, never on how fast anything was.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the parley binary")
	}
	// Failed runs keep their directory; keep it inside the test's.
	t.Setenv("TMPDIR", t.TempDir())
	bin, err := buildParley(t.Context(), t.TempDir(), t.Output())
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "footprint.csv")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantSent int
		wantLost int
		// what else the report must hold: memory readings after turns
		// (0: any), cold starts, Parley's /metrics
		wantAfterTurns, wantColdStarts int
		noMetrics                      bool
		// postgres runs on a fresh database on PARLEY_TEST_POSTGRES_URL's
		// server (skipped without it, failing under CI) with replicas
		// processes; 0 replicas: SQLite, one process.
		postgres bool
		replicas int
	}{
		{name: "telegram", args: []string{"-platform", "telegram", "-users", "5", "-messages", "2"}, wantSent: 10},
		{name: "discord", args: []string{"-platform", "discord", "-users", "3", "-messages", "2"}, wantSent: 6},
		{name: "slack", args: []string{"-platform", "slack", "-users", "3", "-messages", "2"}, wantSent: 6},
		// Two replicas on one PostgreSQL database, each with its own
		// Socket Mode connection, over which the fake spreads the events.
		{name: "slack replicas", args: []string{"-platform", "slack", "-users", "4", "-messages", "2", "-replicas", "2"},
			wantSent: 8, postgres: true, replicas: 2},
		// A soak in miniature: 12 questions in two rounds of 2 fresh
		// people × 3 messages, memory kept every 5 answers: after each
		// round (6, 12).
		{name: "soak", args: []string{"-platform", "telegram", "-users", "2", "-messages", "3", "-turns-total", "12", "-mem-every", "5"},
			wantSent: 12, wantAfterTurns: 2},
		// The footprint and delivery flags: two cold starts first (a new
		// database, then the existing one), two rounds, a CSV line after
		// each.
		{name: "footprint", args: []string{"-platform", "telegram", "-users", "2", "-messages", "2", "-rounds", "2", "-restarts", "2",
			"-mem-every", "3", "-footprint-csv", csv, "-bot-added", "-env", "PARLEY_LIMITS_TURNS_PER_MINUTE=0"},
			wantSent: 8, wantAfterTurns: 2, wantColdStarts: 2},
		// Parley as deployed by default: no http.listen, no /metrics.
		{name: "without metrics", args: []string{"-platform", "telegram", "-users", "2", "-messages", "1", "-metrics=false"},
			wantSent: 2, noMetrics: true},
		// Nobody waits: every answer counts as lost and the run fails.
		{name: "impatient people", args: []string{"-users", "2", "-messages", "1", "-timeout", "1ns"}, wantCode: 1, wantSent: 2, wantLost: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-bin", bin, "-json", "-settle", "300ms", "-idle", "100ms", "-mem-settle", "100ms"}, tt.args...)
			if tt.postgres {
				args = append(args, "-postgres", pgtest.URL(t))
			}
			var stdout, stderr bytes.Buffer
			code := realMain(t.Context(), args, &stdout, &stderr)
			var got struct {
				Sent, Answered, Lost, Duplicates, Unexpected int
				Exit                                         string
				Latency                                      struct {
					P50 float64 `json:"p50_ms"`
					Max float64 `json:"max_ms"`
				}
				BotAdded struct {
					Max float64 `json:"max_ms"`
				} `json:"bot_added_latency"`
				PeakRSS    int64   `json:"peak_rss_bytes"`
				FinalRSS   int64   `json:"final_rss_bytes"`
				DBBytes    int64   `json:"db_bytes"`
				APICalls   int     `json:"api_calls"`
				Connected  float64 `json:"connected_since_exec_ms"`
				ColdStarts []struct {
					NewDatabase bool    `json:"new_database"`
					SinceExec   float64 `json:"since_exec_ms"`
				} `json:"cold_starts"`
				Parley *struct {
					Inbound int `json:"inbound_to_model_count"`
					Commits int `json:"store_commits"`
				} `json:"parley"`
				Memory struct {
					Idle, Peak, Final struct {
						Private  int64 `json:"private_bytes"`
						Resident int64 `json:"resident_bytes"`
					}
					AfterTurns []struct {
						Turns int `json:"turns"`
					} `json:"after_turns"`
				} `json:"memory"`
				Replicas   int
				Store      string
				PerReplica []struct {
					Exit   string
					Memory struct {
						Idle, Peak struct {
							Private int64 `json:"private_bytes"`
						}
					}
				} `json:"per_replica"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("exit %d, stdout not a JSON report (%v):\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
			}
			t.Logf("%+v", got)
			if code != tt.wantCode || got.Sent != tt.wantSent || got.Lost != tt.wantLost ||
				got.Answered != tt.wantSent-tt.wantLost || got.Duplicates != 0 || got.Exit != "ok" {
				t.Fatalf("exit %d (want %d), report %+v: want %d sent, %d lost, no duplicates, clean exit\nstderr:\n%s",
					code, tt.wantCode, got, tt.wantSent, tt.wantLost, stderr.String())
			}
			if tt.wantLost == 0 && (got.Latency.P50 <= 0 || got.Latency.Max < got.Latency.P50 || got.Unexpected != 0 || got.BotAdded.Max <= 0) {
				t.Fatalf("implausible latency or unexpected messages: %+v", got)
			}
			if got.PeakRSS <= 0 || got.FinalRSS <= 0 || got.DBBytes <= 0 || got.APICalls <= 0 || got.Connected <= 0 {
				t.Fatalf("missing figures: %+v", got)
			}
			m := got.Memory
			if m.Idle.Private <= 0 || m.Peak.Private < m.Idle.Private || m.Final.Private <= 0 ||
				m.Idle.Resident <= 0 || m.Peak.Resident <= 0 || len(m.AfterTurns) == 0 ||
				tt.wantAfterTurns > 0 && len(m.AfterTurns) != tt.wantAfterTurns {
				t.Fatalf("memory figures %+v: want %d readings after turns (0: any)", m, tt.wantAfterTurns)
			}
			// A message a replica accepted while another held its session
			// is run by the replica that adopts it, which does not observe
			// its inbound → model: with replicas, some answers may be
			// missing from the histogram, never all.
			wantInbound := got.Answered
			if tt.replicas > 1 {
				wantInbound = 1
			}
			if tt.noMetrics != (got.Parley == nil) || got.Parley != nil && (got.Parley.Inbound < wantInbound || got.Parley.Commits <= 0) {
				t.Fatalf("Parley's /metrics %+v: want read unless -metrics=false, with a model request per answer (at least one with replicas) and commits", got.Parley)
			}
			wantStore, wantReplicas := "sqlite", max(tt.replicas, 1)
			if tt.postgres {
				wantStore = "postgres"
			}
			if got.Store != wantStore || got.Replicas != wantReplicas || len(got.PerReplica) != tt.replicas {
				t.Fatalf("store %q, %d replicas, %d reported apart: want %s, %d, %d", got.Store, got.Replicas, len(got.PerReplica), wantStore, wantReplicas, tt.replicas)
			}
			for i, r := range got.PerReplica {
				if r.Exit != "ok" || r.Memory.Idle.Private <= 0 || r.Memory.Peak.Private < r.Memory.Idle.Private {
					t.Fatalf("replica %d: %+v", i, r)
				}
			}
			if len(got.ColdStarts) != tt.wantColdStarts || tt.wantColdStarts > 0 &&
				(!got.ColdStarts[0].NewDatabase || got.ColdStarts[1].NewDatabase || got.ColdStarts[1].SinceExec <= 0) {
				t.Fatalf("cold starts %+v, want %d: the first on a new database, the others not", got.ColdStarts, tt.wantColdStarts)
			}
		})
	}
	// The footprint run's CSV: a line per round.
	if data, err := os.ReadFile(csv); err != nil || strings.Count(string(data), "\n") != 2 {
		t.Fatalf("-footprint-csv wrote %q, %v: want a line per round", data, err)
	}
}
