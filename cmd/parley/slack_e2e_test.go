package main

// End to end on Slack: the real adapter and slack-go's socketmode client
// against slacktest, through the whole runtime (router, delivery, SQLite,
// llmtest as the model).

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

func TestSlackMentionAnsweredInThread(t *testing.T) {
	slk := slacktest.NewServer()
	defer slk.Close()
	slk.AddUser("U1", "ana")
	slk.AddChannel("C1", "general", slacktest.Public)
	model := llmtest.NewServer()
	defer model.Close()
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), model, map[string]string{
		"PARLEY_SLACK_ENABLED":   "true",
		"PARLEY_SLACK_BOT_TOKEN": slk.BotToken(),
		"PARLEY_SLACK_APP_TOKEN": slk.AppToken(),
		"PARLEY_SLACK_API_URL":   slk.URL + "/",
	})
	adapters, err := platformAdapters(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, cfg, adapters[0])
	defer stop()

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()
	// botReplies returns the bot's messages in the thread rooted at root.
	botReplies := func(root string) []slacktest.Message {
		var out []slacktest.Message
		for _, m := range slk.Thread("C1", root) {
			if m.BotID != "" && m.TS != root {
				out = append(out, m)
			}
		}
		return out
	}
	answered := func(root, text string) func() bool {
		return func() bool {
			for _, m := range botReplies(root) {
				if m.Visible() == text && !m.Streaming {
					return true
				}
			}
			return false
		}
	}

	model.Enqueue(llmtest.Text("Hello ", "from Parley."))
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> hi there", "")
	if err := slk.WaitFor(ctx, answered(root, "Hello from Parley.")); err != nil {
		t.Fatalf("no threaded answer to the mention: %v; thread %+v", err, slk.Thread("C1", root))
	}

	// A follow-up in the thread, without a mention, continues the session.
	model.Enqueue(llmtest.Text("Still here."))
	slk.PostUserMessage("C1", "U1", "and now?", root)
	if err := slk.WaitFor(ctx, answered(root, "Still here.")); err != nil {
		t.Fatalf("no answer to the follow-up: %v; thread %+v", err, slk.Thread("C1", root))
	}
	if n := len(botReplies(root)); n != 2 {
		t.Fatalf("%d bot messages in the thread, want exactly 2: %+v", n, botReplies(root))
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls: the mention (message + app_mention) must be answered once", len(reqs))
	}
}
