package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// report is what a run measured.
type report struct {
	Platform        string `json:"platform"`
	Users           int    `json:"users"`
	MessagesPerUser int    `json:"messages_per_user"`
	// The load ran in Rounds of Users fresh people each (-rounds, or
	// enough rounds to send TurnsTotal questions: -turns-total), unless
	// Cut says the run's -duration ran out first (RoundsRun ran).
	TurnsTotal    int    `json:"turns_total,omitempty"`
	Rounds        int    `json:"rounds"`
	RoundsRun     int    `json:"rounds_run"`
	Cut           string `json:"cut_short_by,omitempty"`
	ModelDelay    millis `json:"model_delay_ms"`
	ModelLatency  millis `json:"model_latency_ms"`
	AnswerChars   int    `json:"answer_chars"`
	MaxConcurrent int    `json:"max_concurrent,omitempty"` // 0: Parley's default
	RateLimits    bool   `json:"rate_limits"`
	Ramp          millis `json:"ramp_ms,omitempty"` // first messages spread over this long
	// Replicas is how many `parley run` processes shared the Store
	// ("sqlite", or "postgres": a fresh database on -postgres's server).
	// With more than one, the memory, CPU, exit and log figures below are
	// the replicas' totals (peaks: the sum of each one's peak), and
	// PerReplica has each one's.
	Replicas   int              `json:"replicas"`
	Store      string           `json:"store"`
	PerReplica []replicaFigures `json:"per_replica,omitempty"`

	Sent              int          `json:"sent"`
	Answered          int          `json:"answered"`
	Lost              int          `json:"lost"`
	Duplicates        int          `json:"duplicates"`
	Unexpected        int          `json:"unexpected"`
	UnexpectedSamples []string     `json:"unexpected_samples,omitempty"`
	Wall              millis       `json:"wall_ms"`
	AnswersPerSecond  float64      `json:"answers_per_second"`
	Latency           latencyStats `json:"latency"` // posted → answer visible, whole
	// BotAdded is the bot's share of the latency: from the model fake
	// finishing an answer to the platform fake showing it whole.
	BotAdded latencyStats `json:"bot_added_latency"`
	// InboundToModel is from the person posting (the platform fake taking
	// the event) to the model fake receiving its request.
	InboundToModel latencyStats `json:"inbound_to_model"`
	// Parley is what its own /metrics said, when it could be read.
	Parley *parleyView `json:"parley,omitempty"`

	RateLimited int `json:"rate_limited_429s"`
	APICalls    int `json:"api_calls"`
	Edits       int `json:"edits"` // edits, drafts and stream appends the platform accepted

	Memory memReport `json:"memory"`
	// Connected is exec → Parley connected to the fake (for Telegram, its
	// first getUpdates) in the measured run; ColdStarts are -restarts'.
	Connected  millis      `json:"connected_since_exec_ms"`
	ColdStarts []coldStart `json:"cold_starts,omitempty"`

	PeakRSS  int64      `json:"peak_rss_bytes"`
	FinalRSS int64      `json:"final_rss_bytes"`
	CPU      millis     `json:"cpu_ms"`   // user + system, whole run
	DBBytes  int64      `json:"db_bytes"` // SQLite's file, or pg_database_size
	WALBytes int64      `json:"wal_bytes"`
	Exit     string     `json:"exit"`            // "ok", or how Parley ended
	Error    string     `json:"error,omitempty"` // what cut the load short
	Log      logSummary `json:"log"`
	LogPath  string     `json:"log_path,omitempty"`
	Dir      string     `json:"dir,omitempty"` // the run directory, when kept
}

// memReport is Parley's memory over the run: private (RssAnon, what it
// allocated) and resident (VmRSS, private plus the mapped pages of its
// binary and libraries, which depend on the page cache).
type memReport struct {
	Idle  memFigures `json:"idle"`  // connected, before the first message
	Peak  memFigures `json:"peak"`  // private: the highest sampled; resident: VmHWM
	Final memFigures `json:"final"` // -settle after the last answer
	// AfterTurns are readings at the end of the rounds that reached a
	// multiple of -mem-every answers and of the last round (no turn in
	// flight; in a run of several rounds, after -mem-settle).
	AfterTurns []memCheckpoint `json:"after_turns,omitempty"`
}

type memFigures struct {
	Private  int64 `json:"private_bytes"`
	Resident int64 `json:"resident_bytes"`
}

type memCheckpoint struct {
	Turns int `json:"turns"`
	memFigures
}

func figures(m memory) memFigures { return memFigures{Private: m.Anon, Resident: m.Current} }

// failed reports whether the run found a fault: a message lost or answered
// twice, a load cut short, or a Parley that did not stop cleanly. Never a
// timing: those depend on the machine.
func (r *report) failed() bool {
	if r == nil {
		return true
	}
	want := r.Users * r.MessagesPerUser * max(r.Rounds, 1)
	if r.Cut != "" {
		want = r.Users * r.MessagesPerUser * r.RoundsRun // bounded by -duration
	}
	return r.Lost > 0 || r.Duplicates > 0 || r.Error != "" || r.Exit != "ok" || r.Sent < want
}

// millis is a duration that reads as milliseconds in JSON.
type millis time.Duration

func (m millis) MarshalJSON() ([]byte, error) {
	return json.Marshal(float64(m) / float64(time.Millisecond))
}

func (m millis) String() string { return roundDuration(time.Duration(m)).String() }

func (l latencyStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]millis{
		"p50_ms": millis(l.P50), "p90_ms": millis(l.P90), "p99_ms": millis(l.P99),
		"max_ms": millis(l.Max), "mean_ms": millis(l.Mean),
	})
}

// line is the figures of one latency row.
func (l latencyStats) line() string {
	return fmt.Sprintf("p50 %v  p90 %v  p99 %v  max %v  mean %v",
		millis(l.P50), millis(l.P90), millis(l.P99), millis(l.Max), millis(l.Mean))
}

// roundDuration keeps three significant-ish digits: 1.234s, 56.7ms.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeTable prints the report for a person: one line per concern.
func (r *report) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	verdict := "PASS"
	if r.failed() {
		verdict = "FAIL"
	}
	concurrency := "default"
	if r.MaxConcurrent > 0 {
		concurrency = fmt.Sprint(r.MaxConcurrent)
	}
	limits := "off"
	if r.RateLimits {
		limits = "on"
	}
	shape := fmt.Sprintf("%d users × %d messages", r.Users, r.MessagesPerUser)
	if r.Rounds > 1 {
		shape += fmt.Sprintf(" × %d rounds of fresh people", r.Rounds)
		if r.TurnsTotal > 0 {
			shape += fmt.Sprintf(" (-turns-total %d)", r.TurnsTotal)
		}
		if r.Cut != "" {
			shape += fmt.Sprintf(", cut short by -%s after %d", r.Cut, r.RoundsRun)
		}
	}
	if r.Ramp > 0 {
		shape += fmt.Sprintf(", ramp %v", r.Ramp)
	}
	if r.Replicas > 1 {
		shape += fmt.Sprintf(", %d replicas", r.Replicas)
	}
	if r.Store == "postgres" {
		shape += " on PostgreSQL"
	}
	rows := [][2]string{
		{"run", fmt.Sprintf("%s: %s, model latency %v, delay %v, answers of %s, max concurrent %s, rate limits %s",
			r.Platform, shape, r.ModelLatency, r.ModelDelay, answerLength(r.AnswerChars), concurrency, limits)},
		{"messages", fmt.Sprintf("%d sent, %d answered, %d lost, %d duplicated, %d unexpected",
			r.Sent, r.Answered, r.Lost, r.Duplicates, r.Unexpected)},
		{"throughput", fmt.Sprintf("%.1f answers/s over %v", r.AnswersPerSecond, r.Wall)},
		{"latency", "end to end " + r.Latency.line()},
		{"bot-added", "model done → visible " + r.BotAdded.line()},
		{"inbound", "posted → model asked " + r.InboundToModel.line()},
	}
	if v := r.Parley; v != nil {
		rows = append(rows, [2]string{"parley says", fmt.Sprintf("inbound → model p50 ≤ %v  p99 ≤ %v, %.1f%% within 5ms (%d requests); edits %d of %d allowed; %d commits, the writer waited for %d times, %v in all",
			v.InboundP50, v.InboundP99, 100*v.Within5ms, v.Inbound, v.Edits, v.EditBudget, v.Commits, v.WriterWaits, v.WriterWaited)})
	}
	m := r.Memory
	rows = append(rows, [][2]string{
		{"platform", fmt.Sprintf("%d API calls, %d answered 429, %d edits", r.APICalls, r.RateLimited, r.Edits)},
		{"memory", fmt.Sprintf("private idle %s, peak %s, final %s; resident idle %s, peak %s, final %s",
			size(m.Idle.Private), size(m.Peak.Private), size(m.Final.Private), size(m.Idle.Resident), size(m.Peak.Resident), size(m.Final.Resident))},
	}...)
	for _, c := range m.AfterTurns {
		rows = append(rows, [2]string{"after turns", fmt.Sprintf("%d: private %s, resident %s", c.Turns, size(c.Private), size(c.Resident))})
	}
	for i, p := range r.PerReplica {
		pm := p.Memory
		rows = append(rows, [2]string{fmt.Sprintf("replica %d", i), fmt.Sprintf("private idle %s, peak %s, final %s; resident peak %s; CPU %v, exit %s, %d errors, %d warnings",
			size(pm.Idle.Private), size(pm.Peak.Private), size(pm.Final.Private), size(pm.Peak.Resident), p.CPU, p.Exit, p.Log.Errors, p.Log.Warnings)})
	}
	rows = append(rows, [2]string{"start", r.startLine()})
	rows = append(rows, [][2]string{
		{"parley", fmt.Sprintf("peak RSS %s, final RSS %s, CPU %v, exit %s", size(r.PeakRSS), size(r.FinalRSS), r.CPU, r.Exit)},
		r.storeRow(),
		{"log", fmt.Sprintf("%d errors, %d warnings  %s", r.Log.Errors, r.Log.Warnings, r.LogPath)},
	}...)
	if r.Error != "" {
		rows = append(rows, [2]string{"error", r.Error})
	}
	for _, s := range r.UnexpectedSamples {
		rows = append(rows, [2]string{"unexpected", s})
	}
	for _, s := range r.Log.Samples {
		rows = append(rows, [2]string{"log line", s})
	}
	if r.Dir != "" {
		rows = append(rows, [2]string{"kept", r.Dir})
	}
	rows = append(rows, [2]string{"result", verdict})
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", row[0], strings.ReplaceAll(row[1], "\t", " "))
	}
	return tw.Flush()
}

// storeRow is the database's size.
func (r *report) storeRow() [2]string {
	if r.Store == "postgres" {
		return [2]string{"postgres", size(r.DBBytes) + " (pg_database_size)"}
	}
	return [2]string{"sqlite", fmt.Sprintf("%s (WAL %s)", size(r.DBBytes), size(r.WALBytes))}
}

// size prints bytes in binary units.
func size(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v, suffix := float64(b), ""
	for _, s := range []string{"KiB", "MiB", "GiB"} {
		v /= unit
		suffix = s
		if v < unit {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}

// startLine is exec → connected, and each -restarts start.
func (r *report) startLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec → connected %v", r.Connected)
	for _, c := range r.ColdStarts {
		db := "existing"
		if c.NewDatabase {
			db = "new"
		}
		fmt.Fprintf(&b, "; cold start, %s database %v", db, c.SinceExec)
	}
	return b.String()
}

// answerLength names the answers' length in the report.
func answerLength(chars int) string {
	if chars == 0 {
		return "one line"
	}
	return fmt.Sprintf("%d characters", chars)
}
