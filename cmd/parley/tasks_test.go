package main

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
)

// TestTaskParts: tasks.* reach the runner — the todo tool, the plans, the
// step budget, and max_checks 0 meaning no check step (the runner reads
// its own 0 as the default).
func TestTaskParts(t *testing.T) {
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct {
		cfg        config.Tasks
		wantChecks int
	}{
		{config.Tasks{Enabled: true, MaxSteps: 60, MaxChecks: 2, MaxConcurrentHelpers: 4}, 2},
		{config.Tasks{Enabled: true, MaxSteps: 7, MaxChecks: 0, MaxConcurrentHelpers: 1}, -1},
	} {
		pauses := &pauseRelay{}
		p, err := newTaskParts(db, tt.cfg, pauses, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		a := &app{cfg: &config.Config{Tasks: tt.cfg}, db: db, model: llmtest.NewInstant()}
		r, err := a.newRunner(p.tools, p)
		if err != nil {
			t.Fatal(err)
		}
		if pauses.asked("s1") {
			t.Error("a task pauses before the core runs")
		}
		pauses.set(func(sid string) bool { return sid == "s1" })
		if !pauses.asked("s1") || pauses.asked("s2") {
			t.Error("the relay does not ask the core")
		}
		if len(r.Tools) != 3 || r.Tools[0].Spec().Name != "todo" || r.Tools[1].Spec().Name != "delegate" || r.Tools[2].Spec().Name != "wait" || r.Plans == nil ||
			r.TaskSteps != tt.cfg.MaxSteps || r.MaxChecks != tt.wantChecks {
			t.Errorf("%+v: tools %d, plans %v, steps %d, checks %d", tt.cfg, len(r.Tools), r.Plans != nil, r.TaskSteps, r.MaxChecks)
		}
	}
}
