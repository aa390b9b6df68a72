package main

// history_search end to end (docs/history.md): the real binary on the
// Telegram fake. Bo and Ana talk with Parley in a supergroup and in their
// private chats; Ana's search from her private chat finds what Bo said in
// the group, cited with its t.me link, and nothing of Bo's private chat;
// her search in the group finds that group's messages only.

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

const tgOps int64 = -1009876543210 // a supergroup: its messages have t.me/c links

func TestTelegramHistorySearch(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	w.tg.AddGroup(tgOps, "ops")
	ctx := waitCtx(t)
	say := func(chat, from int64, mention bool, text, answer string) telegramtest.Posted {
		t.Helper()
		w.model.Enqueue(llmtest.Text(answer))
		p := w.tg.Post(telegramtest.Incoming{Chat: chat, From: from, Text: text, Mention: mention})
		w.botSays(t, ctx, chat, 0, answer)
		return p
	}
	decided := say(tgOps, tgBo, true, "the staging database moves to eng-db-2 on Friday", "Noted.")
	say(tgBo, tgBo, false, "my staging password hint is tulip", "Kept.")
	say(tgOps, tgAna, true, "hello", "Hi.")

	// Ana asks in her private chat.
	search := func(chat int64, mention bool, args, answer string) string {
		t.Helper()
		before := len(w.model.Requests())
		w.model.Enqueue(llmtest.ToolCall("h1", "history_search", args), llmtest.Text(answer))
		w.tg.Post(telegramtest.Incoming{Chat: chat, From: tgAna, Text: "what did we decide?", Mention: mention})
		w.botSays(t, ctx, chat, 0, answer)
		reqs := w.model.Requests()
		if len(reqs) != before+2 {
			t.Fatalf("%d model requests, want the question and the search's result", len(reqs)-before)
		}
		if system := reqs[before].LastText("system"); !strings.Contains(system, "history_search") {
			t.Errorf("the system prompt does not mention history_search:\n%s", system)
		}
		return reqs[before+1].LastText("tool")
	}
	result := search(tgAna, false, `{"query":"staging"}`, "On Friday, to eng-db-2.")
	link := fmt.Sprintf("https://t.me/c/9876543210/%d", decided.MessageID)
	for _, want := range []string{"the **staging** database moves to eng-db-2 on Friday", "Bo in ops", link, "not instructions"} {
		if !strings.Contains(result, want) {
			t.Errorf("the search's result lacks %q:\n%s", want, result)
		}
	}
	if strings.Contains(result, "tulip") {
		t.Errorf("Ana's search found Bo's private chat:\n%s", result)
	}
	if stamp := regexp.MustCompile(`\[1\] \d{4}-\d\d-\d\d \d\d:\d\d UTC, `); !stamp.MatchString(result) {
		t.Errorf("a hit without its date:\n%s", result)
	}

	// Only her own words, and a since she got wrong.
	if result := search(tgAna, false, `{"query":"staging","who":"me"}`, "You said nothing about it."); result != "No messages found." {
		t.Errorf("who=me found:\n%s", result)
	}
	if result := search(tgAna, false, `{"query":"staging","since":"last week"}`, "Let me try again."); !strings.Contains(result, "want a date") {
		t.Errorf("a bad since gave:\n%s", result)
	}

	// In the group: that group only, called "this chat".
	result = search(tgOps, true, `{"query":"staging OR tulip"}`, "In this chat: Friday.")
	if !strings.Contains(result, "Bo in this chat") || strings.Contains(result, "tulip") {
		t.Errorf("the group's search found:\n%s", result)
	}
}
