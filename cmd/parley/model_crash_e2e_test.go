package main

import (
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestModelSwitchSurvivesKill9: the real binary on fake Telegram; Ana
// switches her conversation with /model, Parley is killed with SIGKILL
// the moment the switch is confirmed, and the restarted process answers
// her next message with the model she chose.
func TestModelSwitchSurvivesKill9(t *testing.T) {
	t.Parallel()
	ctx := waitCtx(t)
	bin := binaryOnTelegram(t, ctx, "PARLEY_LLM_SWITCHABLE=openai/gpt-other")
	tg, model, start, logs := bin.tg, bin.model, bin.start, bin.logs
	w := &tgWorld{tg: tg}

	first := start()
	model.Enqueue(llmtest.Text("Hello, Ana."))
	tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "hi"})
	w.botSays(t, ctx, tgAna, 0, "Hello, Ana.")
	before := model.Requests()[0].Model()
	if before == "gpt-other" {
		t.Fatal("the conversation starts on the model it is to be switched to")
	}

	tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "/model openai/gpt-other"})
	if err := tg.WaitFor(ctx, func() bool {
		for _, m := range tg.BotMessages(tgAna) {
			if strings.Contains(m.Visible, "answered by openai/gpt-other from the next answer on") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the switch was never confirmed: %v; the chat shows %+v\n%s", err, tg.BotMessages(tgAna), logs.String())
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL: no shutdown at all
		t.Fatal(err)
	}
	first.Wait()

	second := start()
	t.Cleanup(func() { second.Process.Kill(); second.Wait() })
	model.Enqueue(llmtest.Text("Still here, on the other model."))
	tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "are you there?"})
	w.botSays(t, ctx, tgAna, 0, "Still here, on the other model.")
	reqs := model.Requests()
	if got := reqs[len(reqs)-1].Model(); got != "gpt-other" {
		t.Fatalf("after the kill the model asked was %q, want gpt-other (before the switch: %q)\n%s", got, before, logs.String())
	}
}
