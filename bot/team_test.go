package bot_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// The place the team tests happen in: workspace W's channel C1.
const teamW = "space:slack:W"

// teamCall is the model writing a team note with the memory tool.
func teamCall(id, action, content, old string) llm.Response {
	args := `{"action":"` + action + `","target":"team","content":"` + content + `","old_text":"` + old + `"}`
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: id, Name: "memory", Arguments: []byte(args)}}}
}

// said is the model answering with text.
func said(text string) llm.Response { return llm.Response{Text: text} }

// teamWorld is the core with the memory tool and team notes as team says
// (its Store the world's), admins as given; extra adapters join the slack
// fake.
func teamWorld(t *testing.T, team bot.TeamConfig, admins []string, limits agent.MemoryLimits, extra []chat.Adapter, ts []agent.Tool, script ...llm.Response) *coreWorld {
	t.Helper()
	caps := chat.Capabilities{MaxLen: 4000, Buttons: true, Ephemeral: true}
	w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: caps, LimitEvery: -1}))
	w.tools, w.memory = ts, true
	w.access = bot.Access{Admins: admins}
	w.setup = func(cfg *bot.CoreConfig, db *store.DB) {
		cfg.Runner.Team, cfg.Runner.MemoryLimits, cfg.MemoryLimits = db, limits, limits
		team.Store = db
		cfg.Team = &team
		for _, a := range extra {
			cfg.Adapters = append(cfg.Adapters, a)
			cfg.Access.Platforms[a.Platform()] = bot.AccessList{Open: true}
		}
	}
	w.start(t, script...)
	return w
}

// inChannel is user's mention in chat of space on platform.
func inChannel(platform, space, chatID, user, key, text string) chat.Message {
	m := msg(platform, chatID, key, user, key, text)
	m.Thread.Space, m.Mentioned = space, true
	return m
}

// teamNotes are the stored notes of place.
func (w *coreWorld) teamNotes(t *testing.T, place string) []agent.TeamNote {
	t.Helper()
	notes, err := w.db.TeamNotes(t.Context(), place)
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

// TestTeamNoteReachesTheTeam: Alice's team note, written in a channel of
// workspace W, is in Bob's next prompt in that channel and in every
// channel of W — after Bob's own memory — and in no prompt in another
// workspace, on another platform with the same ids, or in a direct chat
// (even one inside W).
func TestTeamNoteReachesTheTeam(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		discord := bottest.New(bottest.Config{Platform: "discord", Capabilities: chat.Capabilities{MaxLen: 2000, Buttons: true}, LimitEvery: -1})
		w := teamWorld(t, bot.TeamConfig{}, nil, agent.MemoryLimits{}, []chat.Adapter{discord}, nil,
			teamCall("m1", "add", "we deploy on Tuesdays", ""), said("Noted for the team."),
			said("Hi."), said("Hi."), said("Hi."), said("Hi."), said("Hi."))
		defer w.stop(t)
		if err := w.db.EditMemory(t.Context(), "slack:bob", agent.Facts, func([]string) ([]string, error) { return []string{"likes tea"}, nil }); err != nil {
			t.Fatal(err)
		}
		inject(t, w, inChannel("slack", "W", "C1", "alice", "a1", "remember for the team: we deploy on Tuesdays"))
		synctest.Wait()
		if notes := w.teamNotes(t, teamW); len(notes) != 1 || notes[0].Content != "we deploy on Tuesdays" || notes[0].Author != "slack:alice" {
			t.Fatalf("team notes of W: %+v", notes)
		}
		places := []struct {
			name string
			send func()
			sees bool
		}{
			{"same channel", func() { inject(t, w, inChannel("slack", "W", "C1", "bob", "b1", "when do we deploy?")) }, true},
			{"other channel, same workspace", func() { inject(t, w, inChannel("slack", "W", "C2", "bob", "b2", "when do we deploy?")) }, true},
			{"other workspace", func() { inject(t, w, inChannel("slack", "W2", "C1", "bob", "b3", "when do we deploy?")) }, false},
			{"direct chat in the workspace", func() { inject(t, w, dm("bob", 4, "when do we deploy?")) }, false},
			{"other platform, same ids", func() {
				if err := discord.InjectMessage(t.Context(), inChannel("discord", "W", "C1", "bob", "b5", "when do we deploy?")); err != nil {
					t.Fatal(err)
				}
			}, false},
		}
		for _, p := range places {
			before := len(w.model.requests())
			p.send()
			synctest.Wait()
			reqs := w.model.requests()
			if len(reqs) != before+1 {
				t.Fatalf("%s: %d model calls, want 1", p.name, len(reqs)-before)
			}
			sys := reqs[before].System
			if got := strings.Contains(sys, "we deploy on Tuesdays"); got != p.sees {
				t.Errorf("%s: the team note in Bob's prompt = %v, want %v:\n%s", p.name, got, p.sees, sys)
			}
			if p.sees && strings.Index(sys, "we deploy on Tuesdays") < strings.Index(sys, "- likes tea") {
				t.Errorf("%s: the team note comes before Bob's own memory:\n%s", p.name, sys)
			}
		}
		log, err := w.db.AuditEntries(t.Context(), bot.AuditFilter{Action: "team."}, 10)
		if err != nil || len(log) != 1 || log[0].Action != "team.write" || log[0].Actor != "slack:alice" || log[0].Target != teamW ||
			!strings.Contains(log[0].Detail, "we deploy on Tuesdays") {
			t.Fatalf("audit log: %+v, %v", log, err)
		}
	})
}

// clicker clicks buttons in a thread of the world's slack fake.
func clicker(t *testing.T, w *coreWorld) func(key, user string, th chat.Thread, data string) string {
	return func(key, user string, th chat.Thread, data string) string {
		t.Helper()
		var told string
		act := chat.Action{Key: key, Thread: th, User: chat.User{Platform: "slack", ID: user, Name: user}, Data: data,
			Respond: func(_ context.Context, text string) error { told = text; return nil }}
		if err := w.fake.InjectAction(t.Context(), act); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		return told
	}
}

// suggestion is the message in th with the Save / Discard buttons of a
// team suggestion.
func suggestion(t *testing.T, w *coreWorld, th chat.Thread) bottest.Msg {
	t.Helper()
	for _, m := range w.fake.Messages(th) {
		if len(m.Buttons) == 2 && strings.Contains(m.Text, "suggests a team note") {
			return m
		}
	}
	t.Fatalf("no team suggestion in %v: %+v", th, w.fake.Messages(th))
	return bottest.Msg{}
}

// TestNonWriterTeamNoteWaitsForAnAdmin: with memory.team.writers admins,
// Bob's team note is not saved; it is shown in the conversation with
// buttons only an admin may press, only in that place, once, before it
// expires; a forged payload is refused. The note saved is Bob's.
func TestNonWriterTeamNoteWaitsForAnAdmin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := teamWorld(t, bot.TeamConfig{Writers: bot.TeamWriters{AdminsOnly: true}}, []string{"slack:boss"}, agent.MemoryLimits{}, nil, nil,
			teamCall("m1", "add", "staging is eu-west-2", ""), said("Asked an admin."),
			teamCall("m2", "add", "the VPN is wg0", ""), said("Asked an admin."))
		defer w.stop(t)
		ask := inChannel("slack", "W", "C1", "bob", "b1", "remember for the team: staging is eu-west-2")
		inject(t, w, ask)
		synctest.Wait()
		if notes := w.teamNotes(t, teamW); len(notes) != 0 {
			t.Fatalf("a non-writer's note was saved at once: %+v", notes)
		}
		sug := suggestion(t, w, ask.Thread)
		if !strings.Contains(strings.ReplaceAll(sug.Text, "\u200b", ""), "staging is eu-west-2") {
			t.Fatalf("the suggestion does not show the note: %q", sug.Text)
		}
		click := clicker(t, w)
		elsewhere := chat.Thread{Platform: "slack", Space: "W2", Chat: "C9", ID: "9.9"}
		for _, c := range []struct {
			name, key, user string
			th              chat.Thread
			data, want      string
		}{
			{"the author", "c1", "bob", ask.Thread, sug.Buttons[0].Data, "Only an admin"},
			{"another member", "c2", "carol", ask.Thread, sug.Buttons[0].Data, "Only an admin"},
			{"a forged token", "c3", "boss", ask.Thread, "ts:forged", "no longer valid"},
			{"another place", "c4", "boss", elsewhere, sug.Buttons[0].Data, "no longer valid"},
		} {
			if told := click(c.key, c.user, c.th, c.data); !strings.Contains(told, c.want) {
				t.Errorf("%s: told %q, want %q", c.name, told, c.want)
			}
		}
		if notes := w.teamNotes(t, teamW); len(notes) != 0 {
			t.Fatalf("a refused click saved the note: %+v", notes)
		}
		if told := click("c5", "boss", ask.Thread, sug.Buttons[0].Data); !strings.Contains(told, "Saved for the team") {
			t.Fatalf("the admin's Save was answered %q", told)
		}
		if notes := w.teamNotes(t, teamW); len(notes) != 1 || notes[0].Content != "staging is eu-west-2" || notes[0].Author != "slack:bob" {
			t.Fatalf("after the admin's Save: %+v", notes)
		}
		if told := click("c6", "boss", ask.Thread, sug.Buttons[1].Data); !strings.Contains(told, "no longer valid") {
			t.Errorf("a replayed button was answered %q", told)
		}
		// A second suggestion left past its expiry.
		again := inChannel("slack", "W", "C1", "bob", "b2", "remember for the team: the VPN is wg0")
		inject(t, w, again)
		synctest.Wait()
		late := suggestion(t, w, again.Thread)
		time.Sleep(25 * time.Hour)
		if told := click("c7", "boss", again.Thread, late.Buttons[0].Data); !strings.Contains(told, "no longer valid") {
			t.Errorf("an expired suggestion was answered %q", told)
		}
		if notes := w.teamNotes(t, teamW); len(notes) != 1 {
			t.Fatalf("an expired suggestion was saved: %+v", notes)
		}
		log, err := w.db.AuditEntries(t.Context(), bot.AuditFilter{Action: "team."}, 10)
		if err != nil || len(log) != 1 || log[0].Action != "team.confirm" || log[0].Actor != "slack:boss" || log[0].Target != teamW {
			t.Fatalf("audit log: %+v, %v", log, err)
		}
	})
}
