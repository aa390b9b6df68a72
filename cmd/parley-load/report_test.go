package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestSummariseSortsAndLeavesInputAlone(t *testing.T) {
	in := []time.Duration{ms(30), ms(10), ms(20), ms(40)}
	got := summarise(in)
	want := latencyStats{P50: ms(20), P90: ms(40), P99: ms(40), Max: ms(40), Mean: ms(25)}
	if got != want {
		t.Fatalf("summarise = %+v, want %+v", got, want)
	}
	if diff := cmp.Diff([]time.Duration{ms(30), ms(10), ms(20), ms(40)}, in); diff != "" {
		t.Fatalf("summarise changed its input (-want +got):\n%s", diff)
	}
	if (summarise(nil) != latencyStats{}) {
		t.Fatal("summarise(nil) is not zero")
	}
}

func TestParseStatus(t *testing.T) {
	const status = "Name:\tparley\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\n" +
		"RssAnon:\t    6144 kB\nRssFile:\t   34816 kB\nThreads:\t9\n"
	tests := []struct {
		name    string
		in      string
		want    memory
		wantErr bool
	}{
		{"real layout", status, memory{Peak: 51200 * 1024, Current: 40960 * 1024, Anon: 6144 * 1024, File: 34816 * 1024}, false},
		{"a kernel without RssAnon", "VmHWM:\t 2 kB\nVmRSS:\t 1 kB\n", memory{Peak: 2048, Current: 1024}, false},
		{"no memory lines (a kernel thread)", "Name:\tkthreadd\nThreads:\t1\n", memory{}, true},
		{"only one of them", "VmRSS:\t 1 kB\nRssAnon:\t 1 kB\n", memory{}, true},
		{"a malformed RssAnon", "VmHWM:\t 2 kB\nVmRSS:\t 1 kB\nRssAnon:\tlots kB\n", memory{}, true},
		{"not a number", "VmHWM:\t x kB\nVmRSS:\t 1 kB\n", memory{}, true},
		{"other unit", "VmHWM:\t 1 MB\nVmRSS:\t 1 kB\n", memory{}, true},
		{"empty", "", memory{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatus(strings.NewReader(tt.in))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("parseStatus = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestMemorySamplerReadsItself(t *testing.T) {
	s := &memorySampler{pid: os.Getpid()}
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // one sample, then return
	s.run(ctx, time.Hour)
	m, peakAnon, err := s.latest()
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if m.Peak <= 0 || m.Current <= 0 || m.Current > m.Peak || m.Anon <= 0 || m.Anon > m.Current || peakAnon != m.Anon {
		t.Fatalf("implausible memory %+v, private peak %d", m, peakAnon)
	}
	gone := &memorySampler{pid: -1}
	gone.update()
	if _, _, err := gone.latest(); err == nil {
		t.Fatal("a process that does not exist has memory figures")
	}
}

func TestScanLog(t *testing.T) {
	log := `time=t level=INFO msg="parley started"
time=t level=WARN msg="edit failed" err="429"
time=t level=ERROR msg="send failed" err=boom
time=t level=INFO msg="level=ERROR in a message is" note="still counted: slog quotes it only in msg"
`
	got, err := scanLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if got.Errors != 2 || got.Warnings != 1 || len(got.Samples) != 3 {
		t.Fatalf("scanLog = %+v, want 2 errors, 1 warning, 3 samples", got)
	}
}

func passing() *report {
	return &report{
		Platform: "telegram", Users: 2, MessagesPerUser: 3, Sent: 6, Answered: 6, Exit: "ok",
		Wall: millis(1500 * time.Millisecond), AnswersPerSecond: 4,
		Latency:        latencyStats{P50: ms(12), P90: ms(1010), P99: ms(2003), Max: ms(2003), Mean: ms(700)},
		BotAdded:       latencyStats{P50: ms(40), P90: ms(90), P99: ms(120), Max: ms(120), Mean: ms(50)},
		InboundToModel: latencyStats{P50: ms(2), P90: ms(3), P99: ms(4), Max: ms(4), Mean: ms(2)},
		Parley:         &parleyView{InboundP50: millis(ms(1)), InboundP99: millis(ms(4)), Within5ms: 1, Inbound: 6, Edits: 9, EditBudget: 30},
		RateLimited:    7, APICalls: 40, Edits: 9, PeakRSS: 50 << 20, FinalRSS: 45 << 20, CPU: millis(2500 * time.Millisecond), DBBytes: 106496,
		Connected: millis(ms(12)), ColdStarts: []coldStart{{NewDatabase: true, SinceExec: millis(ms(15))}, {SinceExec: millis(ms(9))}},
		Memory: memReport{Idle: memFigures{Private: 4 << 20, Resident: 30 << 20}, Peak: memFigures{Private: 9 << 20, Resident: 50 << 20},
			Final: memFigures{Private: 8 << 20, Resident: 45 << 20}, AfterTurns: []memCheckpoint{{Turns: 6, memFigures: memFigures{Private: 8 << 20, Resident: 45 << 20}}}},
		Log: logSummary{Errors: 1, Samples: []string{"level=ERROR msg=boom"}},
	}
}

func TestReportFailed(t *testing.T) {
	tests := []struct {
		name   string
		change func(*report)
		want   bool
	}{
		{"clean run", func(*report) {}, false},
		{"log errors alone do not fail", func(r *report) { r.Log.Errors = 3 }, false},
		{"lost", func(r *report) { r.Lost, r.Answered = 1, 5 }, true},
		{"duplicated", func(r *report) { r.Duplicates = 1 }, true},
		{"parley died", func(r *report) { r.Error = "parley exited before it was stopped" }, true},
		{"unclean exit", func(r *report) { r.Exit = "exit status 1" }, true},
		{"cut short", func(r *report) { r.Sent = 4 }, true},
		{"soak done", func(r *report) { r.TurnsTotal, r.Rounds, r.RoundsRun, r.Sent = 12, 2, 2, 12 }, false},
		{"soak cut short", func(r *report) { r.TurnsTotal, r.Rounds, r.RoundsRun, r.Sent = 12, 2, 2, 8 }, true},
		{"soak bounded by -duration", func(r *report) { r.TurnsTotal, r.Rounds, r.RoundsRun, r.Sent, r.Cut = 12, 2, 1, 6, "duration" }, false},
		{"a round bounded by -duration still sends everything", func(r *report) { r.TurnsTotal, r.Rounds, r.RoundsRun, r.Sent, r.Cut = 12, 2, 1, 5, "duration" }, true},
		{"slow answers do not fail", func(r *report) { r.BotAdded.P99, r.InboundToModel.P99 = time.Hour, time.Hour }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := passing()
			tt.change(r)
			if got := r.failed(); got != tt.want {
				t.Fatalf("failed() = %v, want %v for %+v", got, tt.want, r)
			}
		})
	}
	if !(*report)(nil).failed() {
		t.Fatal("no report counts as passed")
	}
}

// tableHas checks that r's table holds each of wants.
func tableHas(t *testing.T, r *report, wants ...string) {
	t.Helper()
	var buf bytes.Buffer
	if err := r.writeTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteTable(t *testing.T) {
	tableHas(t, passing(),
		"telegram: 2 users × 3 messages",
		"6 sent, 6 answered, 0 lost, 0 duplicated",
		"4.0 answers/s over 1.5s",
		"p50 12ms  p90 1.01s  p99 2.003s  max 2.003s",
		"40 API calls, 7 answered 429, 9 edits",
		"model done → visible p50 40ms  p90 90ms  p99 120ms",
		"posted → model asked p50 2ms  p90 3ms  p99 4ms",
		"inbound → model p50 ≤ 1ms  p99 ≤ 4ms, 100.0% within 5ms (6 requests); edits 9 of 30 allowed",
		"private idle 4.0 MiB, peak 9.0 MiB, final 8.0 MiB; resident idle 30.0 MiB, peak 50.0 MiB, final 45.0 MiB",
		"6: private 8.0 MiB, resident 45.0 MiB",
		"exec → connected 12ms; cold start, new database 15ms; cold start, existing database 9ms",
		"peak RSS 50.0 MiB, final RSS 45.0 MiB, CPU 2.5s, exit ok",
		"104.0 KiB",
		"level=ERROR msg=boom",
		"PASS",
	)
}

// TestWriteTableReplicas: a run of several replicas says so, with each
// one's figures, and the PostgreSQL database's size.
func TestWriteTableReplicas(t *testing.T) {
	r := passing()
	r.Replicas, r.Store, r.DBBytes = 2, "postgres", 8<<20
	for i := range 2 {
		r.PerReplica = append(r.PerReplica, replicaFigures{
			Memory: memReport{Idle: memFigures{Private: 4 << 20}, Peak: memFigures{Private: 6 << 20, Resident: 40 << 20}, Final: memFigures{Private: int64(5+i) << 20}},
			CPU:    millis(time.Second), Exit: "ok",
		})
	}
	tableHas(t, r,
		"2 users × 3 messages, 2 replicas on PostgreSQL",
		"replica 0    private idle 4.0 MiB, peak 6.0 MiB, final 5.0 MiB; resident peak 40.0 MiB; CPU 1s, exit ok",
		"replica 1    private idle 4.0 MiB, peak 6.0 MiB, final 6.0 MiB",
		"postgres     8.0 MiB (pg_database_size)",
	)
}

func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := passing().writeJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Sent    int     `json:"sent"`
		WallMS  float64 `json:"wall_ms"`
		Latency struct {
			P50 float64 `json:"p50_ms"`
			P99 float64 `json:"p99_ms"`
		} `json:"latency"`
		PeakRSS  int64 `json:"peak_rss_bytes"`
		BotAdded struct {
			P99 float64 `json:"p99_ms"`
		} `json:"bot_added_latency"`
		Parley struct {
			P99       float64 `json:"inbound_to_model_p99_ms_at_most"`
			Within5ms float64 `json:"inbound_to_model_within_5ms"`
		} `json:"parley"`
		Memory struct {
			Idle struct {
				Private int64 `json:"private_bytes"`
			} `json:"idle"`
			AfterTurns []struct {
				Turns    int   `json:"turns"`
				Resident int64 `json:"resident_bytes"`
			} `json:"after_turns"`
		} `json:"memory"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v in\n%s", err, buf.String())
	}
	if got.Sent != 6 || got.WallMS != 1500 || got.Latency.P50 != 12 || got.Latency.P99 != 2003 || got.PeakRSS != 50<<20 ||
		got.BotAdded.P99 != 120 || got.Parley.P99 != 4 || got.Parley.Within5ms != 1 || got.Memory.Idle.Private != 4<<20 ||
		len(got.Memory.AfterTurns) != 1 || got.Memory.AfterTurns[0].Turns != 6 || got.Memory.AfterTurns[0].Resident != 45<<20 {
		t.Fatalf("decoded %+v from\n%s", got, buf.String())
	}
}
