package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/chat"
)

// TestChecklistText: the header counts what is done and says what holds
// the task up; a plan longer than the platform's message drops its notes
// first, then its last items, counted, and always fits.
func TestChecklistText(t *testing.T) {
	two := task.Plan{Items: []task.Item{{Text: "build", Status: task.Done}, {Text: "ship", Status: task.InProgress, Note: "waiting on CI"}}}
	var long task.Plan
	for i := range 30 {
		long.Items = append(long.Items, task.Item{Text: fmt.Sprintf("item %d %s", i+1, strings.Repeat("x", 150)), Status: task.Pending, Note: strings.Repeat("n", 250)})
	}
	for _, tt := range []struct {
		name   string
		k      task.Task
		budget agent.StepBudget
		maxLen int
		want   string // the whole text, or a prefix ending in "…"
		suffix string
	}{
		{"running", task.Task{Plan: two, State: task.Running}, agent.StepBudget{}, 4000,
			"📋 Plan — 1 of 2 done\n☑ 1. build\n◐ 2. ship (in progress) — waiting on CI", ""},
		{"running, 12 steps taken", task.Task{Plan: two, State: task.Running}, agent.StepBudget{Step: 12, Limit: 60}, 4000,
			"📋 Plan — 1 of 2 done · 48 of 60 steps left\n…", ""},
		{"waiting, 59 steps taken", task.Task{Plan: two, State: task.WaitingApproval}, agent.StepBudget{Step: 59, Limit: 60}, 4000,
			"📋 Plan — 1 of 2 done · 1 of 60 steps left · waiting for approval\n…", ""},
		{"paused: no steps shown", task.Task{Plan: two, State: task.Paused}, agent.StepBudget{Step: 60, Limit: 60}, 4000,
			"📋 Plan — 1 of 2 done · ⏸ paused (reply continue or /resume)\n☑ 1. build\n◐ 2. ship (in progress) — waiting on CI", ""},
		{"waiting", task.Task{Plan: two, State: task.WaitingApproval}, agent.StepBudget{}, 4000,
			"📋 Plan — 1 of 2 done · waiting for approval\n…", ""},
		{"notes dropped", task.Task{Plan: two, State: task.Idle}, agent.StepBudget{}, 60,
			"📋 Plan — 1 of 2 done\n☑ 1. build\n◐ 2. ship (in progress)", ""},
		{"items cut", task.Task{Plan: long, State: task.Running}, agent.StepBudget{}, 2000,
			"📋 Plan — 0 of 30 done\n☐ 1. item 1 xxx…", "(/status)"},
		{"tiny", task.Task{Plan: two, State: task.Idle}, agent.StepBudget{}, 10, "📋 Plan — 1", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := checklistText(tt.k, tt.budget, chat.Capabilities{MaxLen: tt.maxLen})
			if n := utf8.RuneCountInString(got); n > tt.maxLen {
				t.Errorf("%d runes, more than %d", n, tt.maxLen)
			}
			if prefix, ok := strings.CutSuffix(tt.want, "…"); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("got %q, want it to start %q", got, prefix)
				}
			} else if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if !strings.HasSuffix(got, tt.suffix) || strings.Contains(got, "nnn") && tt.suffix != "" {
				t.Errorf("got %q, want it to end %q without notes", got, tt.suffix)
			}
		})
	}
}

// TestChecklistRef: a checklist's message survives being kept, thread
// and all; what cannot be read counts as no message.
func TestChecklistRef(t *testing.T) {
	ref := chat.MessageRef{Thread: chat.Thread{Platform: "slack", Space: "W", Chat: "C1", ID: "100.1"}, ID: "1700.5"}
	if got, ok := decodeChecklistRef(encodeChecklistRef(ref)); !ok || got != ref {
		t.Errorf("round trip: %+v %v", got, ok)
	}
	for _, s := range []string{"", "{", `{"p":"slack"}`} {
		if _, ok := decodeChecklistRef(s); ok {
			t.Errorf("%q reads as a message", s)
		}
	}
}

// recordingReply records what a turn shows.
type recordingReply struct{ calls []string }

func (r *recordingReply) Delta(_ context.Context, s string) error {
	r.calls = append(r.calls, "delta "+s)
	return nil
}
func (r *recordingReply) Reset(context.Context) error {
	r.calls = append(r.calls, "reset")
	return nil
}
func (r *recordingReply) Progress(_ context.Context, s string) error {
	r.calls = append(r.calls, "progress "+s)
	return nil
}
func (r *recordingReply) Finish(_ context.Context, s string) error {
	r.calls = append(r.calls, "finish "+s)
	return nil
}

// TestCheckStepShown: the answer streamed before a check step is not
// final: the reply drops it and says the plan is being checked.
func TestCheckStepShown(t *testing.T) {
	r := &recordingReply{}
	for _, ev := range []agent.Event{
		{Kind: agent.EventText, Text: "All done."},
		{Kind: agent.EventCheck, Text: "All done."},
		{Kind: agent.EventText, Text: "Checked."},
		{Kind: agent.EventDone, Text: "Checked."},
	} {
		if err := show(t.Context(), r, ev); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"delta All done.", "reset", "progress checking the plan…", "delta Checked.", "finish Checked."}
	if !slices.Equal(r.calls, want) {
		t.Errorf("shown %q, want %q", r.calls, want)
	}
}
