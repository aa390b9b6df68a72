package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/chat"
)

var taskTests = []test{
	{"Tasks", testTasks},
	{"Helpers", testHelpers},
	{"EditPlanConcurrent", testEditPlanConcurrent},
}

func testTasks(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	sid, err := db.SessionFor(ctx, chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"})
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

// A helper's sub-session lives in its parent's conversation — so what it
// asks there (an approval) shows in the parent's thread — but the thread
// stays bound to the parent, and the record keeps what the helper did.
func testHelpers(t *testing.T, s suite) {
	db := s.fresh(t) // a ticking clock
	ctx := t.Context()
	thread := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}
	parent, err := db.SessionFor(ctx, thread)
	if err != nil {
		t.Fatal(err)
	}
	h, err := db.AddHelper(ctx, task.Helper{Parent: parent, Item: 2, ItemText: "fix it", Instruction: "fix the config",
		Status: task.HelperPending, Call: "call1", Key: "helper:call1"})
	if err != nil {
		t.Fatal(err)
	}
	if h.ID == 0 || h.Session == "" || h.Session == parent || h.CreatedAt.IsZero() {
		t.Fatalf("added: %+v", h)
	}
	info, err := db.Session(ctx, h.Session)
	if err != nil || info.Thread != thread {
		t.Fatalf("the helper's session is in %+v (%v), want the parent's thread %+v", info.Thread, err, thread)
	}
	if bound, _, err := db.BoundSession(ctx, thread); err != nil || bound != parent {
		t.Fatalf("the thread is bound to %q (%v), want the parent %q", bound, err, parent)
	}
	if p, ok, err := db.HelperParent(ctx, h.Session); err != nil || !ok || p != parent {
		t.Fatalf("HelperParent = %q %v %v", p, ok, err)
	}
	if _, ok, err := db.HelperParent(ctx, parent); err != nil || ok {
		t.Fatalf("the parent is a helper: %v %v", ok, err)
	}

	h.Status, h.Result, h.Call, h.Instruction = task.HelperDone, "fixed: one line", "call2", "fix it again"
	if err := db.SaveHelper(ctx, h); err != nil {
		t.Fatal(err)
	}
	second, err := db.AddHelper(ctx, task.Helper{Parent: parent, Item: 1, ItemText: "read", Instruction: "read", Status: task.HelperRunning})
	if err != nil {
		t.Fatal(err)
	}
	all, err := db.Helpers(ctx, parent)
	if err != nil || len(all) != 2 {
		t.Fatalf("helpers: %+v %v", all, err)
	}
	got := all[0]
	if got.ID != h.ID || got.Status != task.HelperDone || got.Result != "fixed: one line" || got.Call != "call2" ||
		got.Instruction != "fix it again" || got.Key != "helper:call1" || got.Item != 2 || got.ItemText != "fix it" ||
		!got.UpdatedAt.After(got.CreatedAt) || all[1].ID != second.ID {
		t.Fatalf("helpers, oldest first: %+v", all)
	}

	if _, err := db.AddHelper(ctx, task.Helper{Parent: "nope", Item: 1, ItemText: "x", Status: task.HelperPending}); !s.notFound(err) {
		t.Errorf("a helper of an unknown session: %v, want not found", err)
	}
	if err := db.SaveHelper(ctx, task.Helper{ID: 999, Status: task.HelperDone}); !s.notFound(err) {
		t.Errorf("saving an unknown helper: %v, want not found", err)
	}
}

// Helpers update their own items at once, here through two handles (two
// processes); a transaction each, none loses another's change, and each
// writes its work log line with it.
func testEditPlanConcurrent(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	ctx := t.Context()
	sid, err := db.SessionFor(ctx, chat.Thread{Platform: "console", Chat: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EditPlan(ctx, sid, func(*task.Plan) ([]task.Entry, error) { return nil, nil }); !errors.Is(err, task.ErrNoPlan) {
		t.Fatalf("editing a session without a plan: %v, want ErrNoPlan", err)
	}
	const n = 8
	var p task.Plan
	for i := range n {
		p.Items = append(p.Items, task.Item{Text: fmt.Sprintf("item %d", i+1), Status: task.Pending})
	}
	if _, err := db.SavePlan(ctx, sid, "console:ana", p, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := dbs[i%2].EditPlan(ctx, sid, func(p *task.Plan) ([]task.Entry, error) {
				p.Items[i].Status, p.Items[i].Note = task.Done, "by helper"
				return []task.Entry{{At: epoch, Kind: "plan", Text: p.Items[i].Text}}, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	k, _, err := db.Task(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range k.Plan.Items {
		if it.Status != task.Done || it.Note != "by helper" {
			t.Errorf("lost an edit: %+v", it)
		}
	}
	if log, err := db.Log(ctx, sid, 100); err != nil || len(log) != n {
		t.Errorf("work log: %d lines (%v), want %d", len(log), err, n)
	}
	failing := errors.New("refused")
	if err := db.EditPlan(ctx, sid, func(p *task.Plan) ([]task.Entry, error) {
		p.Items[0].Status = task.Failed
		return nil, failing
	}); !errors.Is(err, failing) {
		t.Fatalf("a refused edit: %v", err)
	}
	if k, _, _ := db.Task(ctx, sid); k.Plan.Items[0].Status != task.Done {
		t.Errorf("a refused edit was kept: %+v", k.Plan.Items[0])
	}
}
