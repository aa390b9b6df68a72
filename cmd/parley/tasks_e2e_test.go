package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/task"
)

// TestTelegramTaskChecklist: end to end on Telegram (the real adapter
// against telegramtest, whose groups allow 20 messages a minute and answer
// 429 past it), with tasks on by default: a plan of five items, worked
// through a step each and checked, is shown in one checklist message in
// the forum topic, edited in place to its end, with the final answer in
// the same topic and no 429.
func TestTelegramTaskChecklist(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	topic := w.tg.AddTopic(tgForum, "release")
	items := []string{"tag", "build", "test", "publish", "announce"}
	for done := range len(items) + 1 {
		var plan task.TodoArgs
		for i, it := range items {
			s := task.Pending
			switch {
			case i < done:
				s = task.Done
			case i == done:
				s = task.InProgress
			}
			plan.Items = append(plan.Items, task.Item{Text: it, Status: s})
		}
		args, _ := json.Marshal(plan)
		w.model.Enqueue(llmtest.ToolCall(fmt.Sprint("p", done), "todo", string(args)))
	}
	w.model.Enqueue(llmtest.Text("Released."), llmtest.Text("Checked: tagged, built, tested, published and announced."))
	w.tg.Post(telegramtest.Incoming{Chat: tgForum, Topic: topic, From: tgAna, Text: "release 1.2", Mention: true})

	w.botSays(t, ctx, tgForum, topic, "Checked: tagged, built, tested, published and announced.")
	want := "📋 Plan — 5 of 5 done\n☑ 1. tag\n☑ 2. build\n☑ 3. test\n☑ 4. publish\n☑ 5. announce"
	list := w.botSays(t, ctx, tgForum, topic, want) // its last edit may follow the answer
	if list.Edits < 1 {
		t.Errorf("the checklist was never edited: %+v", list)
	}
	var lists int
	for _, m := range w.tg.BotMessages(tgForum) {
		if strings.HasPrefix(m.Visible, "📋 Plan") {
			lists++
		}
		if m.Topic != topic {
			t.Errorf("a bot message outside the topic: %+v", m)
		}
	}
	if lists != 1 {
		t.Errorf("%d checklist messages, want 1: %+v", lists, w.tg.BotMessages(tgForum))
	}
	if n := w.tg.RateLimited(); n != 0 {
		t.Errorf("Telegram answered %d 429s", n)
	}
	if n := len(w.model.Requests()); n != 8 {
		t.Errorf("%d model calls, want 8 (six plans, an answer, the checked answer)", n)
	}
}
