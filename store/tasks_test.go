package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
)

func TestTasks(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	sid, err := db.SessionFor(ctx, bot.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := db.Task(ctx, sid); ok || err != nil {
		t.Fatalf("a session without a plan has a task: %v %v", ok, err)
	}
	if err := db.SetState(ctx, sid, task.Paused); err != nil {
		t.Fatal(err) // nothing to set, no error
	}
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	p1 := task.Plan{Items: []task.Item{{Text: "read the logs", Status: task.InProgress}, {Text: "fix it", Status: task.Pending}}}
	if old, err := db.SavePlan(ctx, sid, "slack:U1", p1, []task.Entry{{At: t0, Kind: "plan", Text: "item 1 added"}}); err != nil || len(old.Items) != 0 {
		t.Fatalf("first plan: %v %+v", err, old)
	}
	p2 := task.Plan{Items: []task.Item{{Text: "read the logs", Status: task.Done}, {Text: "fix it", Status: task.InProgress, Note: "the config"}}}
	old, err := db.SavePlan(ctx, sid, "slack:U2", p2, []task.Entry{{At: t0.Add(time.Minute), Kind: "plan", Text: "item 1 done"}})
	if err != nil || !slices.Equal(old.Items, p1.Items) {
		t.Fatalf("second plan: %v %+v", err, old)
	}
	if err := db.SetState(ctx, sid, task.Paused); err != nil {
		t.Fatal(err)
	}
	if err := db.SetChecklist(ctx, sid, "slack:T1:C1:1.2"); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.Task(ctx, sid)
	if err != nil || !ok || !slices.Equal(got.Plan.Items, p2.Items) || got.State != task.Paused ||
		got.Author != "slack:U1" || got.Checklist != "slack:T1:C1:1.2" {
		t.Fatalf("task: %+v %v %v (the author is the first plan's)", got, ok, err)
	}
	for i := range 5 {
		if err := db.AppendLog(ctx, sid, task.Entry{At: t0.Add(time.Duration(i+2) * time.Minute), Kind: "tool", Text: string(rune('a' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	log, err := db.Log(ctx, sid, 3)
	if err != nil || len(log) != 3 || log[0].Text != "c" || log[2].Text != "e" || !log[2].At.Equal(t0.Add(6*time.Minute)) {
		t.Fatalf("the last 3 lines, oldest first: %+v %v", log, err)
	}
}
