package main

// Team notes end to end on Slack (docs/team-notes.md): the real adapter
// against slacktest, the whole runtime, SQLite, llmtest as the model and
// as the memory judge.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// botSaid waits until the bot's message text stands in channel (in the
// thread rooted at root, or anywhere in the channel for ""), finished.
func botSaid(t *testing.T, ctx context.Context, slk *slacktest.Server, channel, root, text string) {
	t.Helper()
	msgs := func() []slacktest.Message { return slk.Messages(channel) }
	if root != "" {
		msgs = func() []slacktest.Message { return slk.Thread(channel, root) }
	}
	if err := slk.WaitFor(ctx, func() bool {
		for _, m := range msgs() {
			if m.BotID != "" && m.Visible() == text && !m.Streaming {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no %q in %s: %v; %+v", text, channel, err, msgs())
	}
}

// askTeamNote has user ask Parley, in C1, to keep note for the team: the
// model writes it, the judge finds it safe, the model answers; it returns
// the thread's root once the answer stands.
func askTeamNote(t *testing.T, ctx context.Context, slk *slacktest.Server, model *llmtest.Server, user, note, answer string) string {
	t.Helper()
	model.Enqueue(llmtest.ToolCall("m1", "memory", `{"action":"add","target":"team","content":"`+note+`"}`),
		llmtest.Text("SAFE"), // the memory judge
		llmtest.Text(answer))
	root := slk.PostUserMessage("C1", user, "<@"+slk.BotUserID()+"> remember for the team: "+note, "")
	botSaid(t, ctx, slk, "C1", root, answer)
	return root
}

// TestSlackTeamNoteReachesTheTeam: ana's team note, kept through the
// judge, is in bo's next prompt in the same channel and in another channel
// of the workspace, and not in bo's direct chat with Parley.
func TestSlackTeamNoteReachesTheTeam(t *testing.T) {
	slk, model := startSlack(t, nil)
	slk.AddChannel("C2", "ops", slacktest.Public)
	slk.AddChannel("D2", "bo", slacktest.IM)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang, not a timing assertion
	defer cancel()

	askTeamNote(t, ctx, slk, model, "U1", "the release train leaves on Tuesdays", "Noted for the team.")

	mention := "<@" + slk.BotUserID() + "> when do we deploy?"
	for _, p := range []struct {
		name, channel, text string
		sees                bool
	}{
		{"same channel", "C1", mention, true},
		{"other channel of the workspace", "C2", mention, true},
		{"direct chat", "D2", "when do we deploy?", false},
	} {
		model.Enqueue(llmtest.Text("Answer in " + p.channel + "."))
		before := len(model.Requests())
		r := slk.PostUserMessage(p.channel, "U2", p.text, "")
		if p.channel == "D2" {
			r = "" // a direct chat is answered in place
		}
		botSaid(t, ctx, slk, p.channel, r, "Answer in "+p.channel+".")
		reqs := model.Requests()
		if len(reqs) != before+1 {
			t.Fatalf("%s: %d model calls, want 1", p.name, len(reqs)-before)
		}
		if got := strings.Contains(string(reqs[before].Body), "the release train leaves on Tuesdays"); got != p.sees {
			t.Errorf("%s: the team note in bo's prompt = %v, want %v", p.name, got, p.sees)
		}
	}
}

// TestSlackTeamNoteWaitsForAnAdmin: with memory.team.writers admins, bo's
// team note is posted with buttons; bo's own click is refused, the
// admin's saves it, and /parley memory team shows it to bo.
func TestSlackTeamNoteWaitsForAnAdmin(t *testing.T) {
	slk, model := startSlack(t, map[string]string{"PARLEY_MEMORY_TEAM_WRITERS": "admins", "PARLEY_ACCESS_ADMINS": "slack:U1"})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang, not a timing assertion
	defer cancel()

	root := askTeamNote(t, ctx, slk, model, "U2", "staging is eu-west-2", "Asked an admin.")
	var ts string
	var buttons []slackButton
	for _, m := range slk.Thread("C1", root) {
		if b := blockButtons(t, m.Blocks); len(b) == 2 && strings.Contains(m.Visible(), "suggests a team note") {
			ts, buttons = m.TS, b
		}
	}
	if len(buttons) != 2 {
		t.Fatalf("no suggestion with buttons in the thread: %+v", slk.Thread("C1", root))
	}

	told := func(user string, n int) string {
		t.Helper()
		if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals(user)) >= n }); err != nil {
			t.Fatalf("%s was not told anything: %v", user, err)
		}
		return slk.Ephemerals(user)[n-1].Text
	}
	slk.Click("C1", ts, buttons[0].ActionID, buttons[0].Value, "U2")
	if got := told("U2", 1); !strings.Contains(got, "Only an admin") {
		t.Fatalf("bo's own Save was answered %q", got)
	}
	slk.Click("C1", ts, buttons[0].ActionID, buttons[0].Value, "U1")
	if got := told("U1", 1); !strings.Contains(got, "Saved for the team") {
		t.Fatalf("the admin's Save was answered %q", got)
	}
	slk.SlashCommand("/parley", "memory team", "U2", "C1")
	if got := told("U2", 2); !strings.Contains(got, "1. staging is eu-west-2") {
		t.Fatalf("/parley memory team answered bo %q", got)
	}
}
