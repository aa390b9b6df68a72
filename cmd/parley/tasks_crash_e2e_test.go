package main

// The real binary on fake Telegram, killed with SIGKILL in the middle of a
// task's step: the restart resumes the task where it stood, edits the same
// checklist message to the end and gives one final answer.

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/task"
)

func TestTaskSurvivesKill9(t *testing.T) {
	ctx := waitCtx(t)
	bin := binaryOnTelegram(t, ctx)
	tg, model, sb, start, logs := bin.tg, bin.model, bin.sb, bin.start, bin.logs
	plan := func(id string, statuses ...task.Status) llmtest.Reply {
		var items []task.Item
		for i, s := range statuses {
			items = append(items, task.Item{Text: []string{"collect", "compare", "report"}[i], Status: s})
		}
		args, _ := json.Marshal(task.TodoArgs{Items: items})
		return llmtest.ToolCall(id, "todo", string(args))
	}

	// The task plans, finishes its first item, and dies thinking about
	// the second.
	model.Enqueue(plan("p1", task.InProgress, task.Pending, task.Pending),
		plan("p2", task.Done, task.InProgress, task.Pending), llmtest.Stall("Comparing"))
	first := start()
	tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "collect, compare and report", Mention: true})
	checklist := func() []telegramtest.Message {
		var out []telegramtest.Message
		for _, m := range tg.BotMessages(tgGroup) {
			if strings.HasPrefix(m.Visible, "📋 Plan") {
				out = append(out, m)
			}
		}
		return out
	}
	if err := tg.WaitFor(ctx, func() bool { return len(checklist()) == 1 && len(model.Requests()) == 3 }); err != nil {
		t.Fatalf("no checklist and stalled step: %v\n%s", err, logs.String())
	}
	// Kill once the task knows its checklist's message, as it does a
	// moment after the post (a kill in between would post a second one:
	// no platform makes a send safe to repeat).
	waitForChecklistRef(t, ctx, filepath.Join(sb.dir, "data", "parley.db"))
	if err := first.Process.Kill(); err != nil { // SIGKILL: no shutdown at all
		t.Fatal(err)
	}
	first.Wait()

	model.Enqueue(plan("p3", task.Done, task.Done, task.Done), llmtest.Text("Reported."), llmtest.Text("Checked: collected, compared, reported."))
	second := start()
	t.Cleanup(func() { second.Process.Kill(); second.Wait() })
	w := &tgWorld{tg: tg}
	w.botSays(t, ctx, tgGroup, 0, "Checked: collected, compared, reported.")

	// The checklist is edited as the chat's budget allows, never waited
	// for by the turn: its last edit may land just after the answer (the
	// recovered turn's first edit, dropping the old step count, spent the
	// chat's call of that second).
	done := func() bool {
		lists := checklist()
		return len(lists) == 1 && strings.Contains(lists[0].Visible, "3 of 3 done")
	}
	if err := tg.WaitFor(ctx, done); err != nil || len(checklist()) != 1 {
		t.Fatalf("want one checklist, edited to the end: %+v", checklist())
	}
	answers := 0
	for _, m := range tg.BotMessages(tgGroup) {
		if strings.HasPrefix(m.Visible, "Checked:") || m.Visible == "Reported." {
			answers++
		}
	}
	if answers != 1 {
		t.Fatalf("%d final answers, want 1: %+v", answers, tg.BotMessages(tgGroup))
	}
	reqs := model.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6 (three before the kill, three after)", len(reqs))
	}
	if body := string(reqs[3].Body); !strings.Contains(body, "☑ 1. collect") || !strings.Contains(body, "◐ 2. compare") {
		t.Fatalf("the resumed step does not carry the plan as it stood: %s", body)
	}
}

// waitForChecklistRef waits until the running process has recorded its
// task's checklist message, reading its database from outside (WAL).
func waitForChecklistRef(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for {
		var ref string
		err := db.QueryRowContext(ctx, `SELECT checklist FROM tasks`).Scan(&ref)
		if err == nil && ref != "" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the checklist's message was never recorded: %v", err)
		case <-time.After(20 * time.Millisecond): // another process's write gives no signal here
		}
	}
}
