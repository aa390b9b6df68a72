package main

import (
	"bytes"
	"encoding/json"
	"testing"
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
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantSent int
		wantLost int
	}{
		{"telegram", []string{"-platform", "telegram", "-users", "5", "-messages", "2"}, 0, 10, 0},
		{"discord", []string{"-platform", "discord", "-users", "3", "-messages", "2"}, 0, 6, 0},
		{"slack", []string{"-platform", "slack", "-users", "3", "-messages", "2"}, 0, 6, 0},
		// A soak in miniature: 12 questions in two rounds of 2 fresh
		// people × 3 messages, memory read every 5 answers.
		{"soak", []string{"-platform", "telegram", "-users", "2", "-messages", "3", "-turns-total", "12", "-mem-every", "5"}, 0, 12, 0},
		// Nobody waits: every answer counts as lost and the run fails.
		{"impatient people", []string{"-users", "2", "-messages", "1", "-timeout", "1ns"}, 1, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-bin", bin, "-json", "-settle", "300ms", "-idle", "100ms"}, tt.args...)
			var stdout, stderr bytes.Buffer
			code := realMain(t.Context(), args, &stdout, &stderr)
			var got struct {
				Sent, Answered, Lost, Duplicates, Unexpected int
				Exit                                         string
				Latency                                      struct {
					P50 float64 `json:"p50_ms"`
					Max float64 `json:"max_ms"`
				}
				PeakRSS  int64 `json:"peak_rss_bytes"`
				FinalRSS int64 `json:"final_rss_bytes"`
				DBBytes  int64 `json:"db_bytes"`
				APICalls int   `json:"api_calls"`
				Parley   *struct {
					Inbound int `json:"inbound_to_model_count"`
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
			if tt.wantLost == 0 && (got.Latency.P50 <= 0 || got.Latency.Max < got.Latency.P50 || got.Unexpected != 0) {
				t.Fatalf("implausible latency or unexpected messages: %+v", got)
			}
			if got.PeakRSS <= 0 || got.FinalRSS <= 0 || got.DBBytes <= 0 || got.APICalls <= 0 {
				t.Fatalf("missing figures: %+v", got)
			}
			m := got.Memory
			if m.Idle.Private <= 0 || m.Peak.Private < m.Idle.Private || m.Final.Private <= 0 ||
				m.Idle.Resident <= 0 || m.Peak.Resident <= 0 || len(m.AfterTurns) == 0 {
				t.Fatalf("missing memory figures: %+v", m)
			}
			if got.Parley == nil || got.Parley.Inbound < got.Answered {
				t.Fatalf("Parley's /metrics not read, or it counted fewer model requests than answers: %+v", got.Parley)
			}
			if tt.name == "soak" {
				if turns := []int{}; len(m.AfterTurns) != 3 {
					for _, c := range m.AfterTurns {
						turns = append(turns, c.Turns)
					}
					t.Fatalf("memory read after %v answers, want 5, 10 and 12", turns)
				}
			}
		})
	}
}
