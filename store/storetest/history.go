package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// history_search's reach (bot.HistoryIndex, bot.HistoryReach): the chats
// a person has written in are kept as their turns end; a search covers
// only what the person may see where they ask — their own private chats
// and the group chats they are still in, asked privately; only the chat
// itself, asked in a group — never another person's private chat, another
// workspace or another platform.

var historyTests = []test{
	{"ChatsOf", testHistoryChatsOf},
	{"ScopeMatrix", testHistoryScopeMatrix},
	{"WhoAndSince", testHistoryWhoAndSince},
	{"Prune", testHistoryPrune},
}

// finishIn ends a turn of u's in t (direct: u's private chat), at at.
func finishIn(t *testing.T, db Store, u chat.User, th chat.Thread, direct bool, name string, at time.Time) {
	t.Helper()
	rec := bot.TurnRecord{At: at, Outcome: bot.TurnAnswered, Where: bot.Where{Thread: th, User: u, Direct: direct}, ChatName: name}
	if err := db.FinishTurn(t.Context(), nil, rec); err != nil {
		t.Fatal(err)
	}
}

func testHistoryChatsOf(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ana := chat.User{Platform: "slack", ID: "UANA", Name: "ana"}
	eng := chat.Thread{Platform: "slack", Space: "T1", Chat: "CENG", ID: "1.1"}
	dm := chat.Thread{Platform: "slack", Space: "T1", Chat: "DANA"}
	finishIn(t, db, ana, eng, false, "eng", epoch)
	finishIn(t, db, ana, dm, true, "", epoch.Add(time.Minute))
	finishIn(t, db, ana, chat.Thread{Platform: "slack", Space: "T1", Chat: "CENG", ID: "2.2"}, false, "", epoch.Add(2*time.Minute))
	finishIn(t, db, chat.User{Platform: "telegram", ID: "UANA"}, chat.Thread{Platform: "telegram", Chat: "UANA"}, true, "", epoch)
	// A turn with no author (a scheduled run's) keeps no chat.
	if err := db.FinishTurn(t.Context(), nil, bot.TurnRecord{At: epoch, Outcome: bot.TurnAnswered, Where: bot.Where{Thread: eng}}); err != nil {
		t.Fatal(err)
	}
	for _, db := range []Store{db, reopen()} {
		got, err := db.ChatsOf(t.Context(), ana.Key(), "slack", 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []bot.ChatSeen{
			{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "CENG"}, Name: "eng", Last: epoch.Add(2 * time.Minute)},
			{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "DANA"}, Direct: true, Last: epoch.Add(time.Minute)},
		}
		if len(got) != len(want) {
			t.Fatalf("ChatsOf = %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i].Thread != want[i].Thread || got[i].Direct != want[i].Direct || got[i].Name != want[i].Name || !got[i].Last.Equal(want[i].Last) {
				t.Errorf("ChatsOf[%d] = %+v, want %+v", i, got[i], want[i])
			}
		}
		if one, err := db.ChatsOf(t.Context(), ana.Key(), "slack", 1); err != nil || len(one) != 1 {
			t.Errorf("ChatsOf limit 1 = %+v, %v", one, err)
		}
		if none, err := db.ChatsOf(t.Context(), "slack:UBO", "slack", 10); err != nil || len(none) != 0 {
			t.Errorf("bo's chats = %+v, %v; want none", none, err)
		}
	}
}

// historyWorld is the matrix's world: ana and bo on one Slack workspace,
// ana on a second, and ana on Telegram; every message holds "staging".
type historyWorld struct {
	db                 Store
	ana, bo, anaTG     chat.User
	eng, secret, left  chat.Thread // group chats of T1: both, bo only, ana left
	anaDM, boDM, other chat.Thread // DMs of T1; a channel of T2
	anaTGDM            chat.Thread
}

func newHistoryWorld(t *testing.T, s suite) historyWorld {
	db, _ := s.open(t, Options{})
	searchable(t, db)
	w := historyWorld{db: db,
		ana:   chat.User{Platform: "slack", ID: "UANA", Name: "ana"},
		bo:    chat.User{Platform: "slack", ID: "UBO", Name: "bo"},
		anaTG: chat.User{Platform: "telegram", ID: "501", Name: "ana"},
		eng:   chat.Thread{Platform: "slack", Space: "T1", Chat: "CENG"}, secret: chat.Thread{Platform: "slack", Space: "T1", Chat: "CSECRET"},
		left: chat.Thread{Platform: "slack", Space: "T1", Chat: "CLEFT"}, anaDM: chat.Thread{Platform: "slack", Space: "T1", Chat: "DANA"},
		boDM: chat.Thread{Platform: "slack", Space: "T1", Chat: "DBO"}, other: chat.Thread{Platform: "slack", Space: "T2", Chat: "COTHER"},
		anaTGDM: chat.Thread{Platform: "telegram", Chat: "501"},
	}
	say := func(u chat.User, th chat.Thread, id string, direct bool, text string) {
		th.ID = id
		if direct {
			th.ID = ""
		}
		sid := newSession(t, db, th)
		appendTo(t, db, sid, llm.Message{Role: llm.RoleUser, Text: text, Author: u.Name, Key: "k-" + th.Chat + "-" + id},
			assistant("noted about staging in "+th.Chat))
		finishIn(t, db, u, th, direct, strings.ToLower(th.Chat), epoch)
	}
	say(w.ana, w.eng, "1.1", false, "ana: the staging database moves to eng-db-2")
	say(w.bo, w.eng, "2.2", false, "bo: staging freeze on Friday")
	say(w.bo, w.secret, "3.3", false, "bo: staging secret plan")
	say(w.ana, w.left, "4.4", false, "ana: staging in the channel she left")
	say(w.ana, w.anaDM, "", true, "ana privately: my staging password hint")
	say(w.bo, w.boDM, "", true, "bo privately: staging salary talk")
	say(w.ana, w.other, "5.5", false, "ana: staging of the other workspace")
	say(w.anaTG, w.anaTGDM, "", true, "ana on telegram: staging notes")
	return w
}

// member is the platform's answer: everyone is in eng, bo in secret, no
// one in left any more, ana in other.
func (w historyWorld) member(_ context.Context, t chat.Thread, u chat.User) bool {
	switch t.Chat {
	case w.eng.Chat:
		return true
	case w.secret.Chat:
		return u.ID == w.bo.ID
	case w.other.Chat:
		return u.ID == w.ana.ID
	}
	return false
}

// search is what u finds asking in th (direct: their private chat).
func (w historyWorld) search(t *testing.T, u chat.User, th chat.Thread, direct bool, q agent.HistoryQuery) []agent.HistoryHit {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 50
	}
	reach := bot.HistoryReach{Index: w.db, Member: w.member,
		Link: func(_ context.Context, t chat.Thread, key string) string {
			return "link:" + t.Chat + ":" + t.ID + ":" + key
		}}
	hits, err := reach.Search(t.Context(), bot.Where{Thread: th, User: u, Direct: direct}, u.Name, q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// chatsOf are the chats hits come from, "this chat" included, sorted.
func chatsOf(hits []agent.HistoryHit) []string {
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.Where) {
			out = append(out, h.Where)
		}
	}
	slices.Sort(out)
	return out
}

func testHistoryScopeMatrix(t *testing.T, s suite) {
	w := newHistoryWorld(t, s)
	staging := agent.HistoryQuery{Query: "staging"}
	for _, tc := range []struct {
		name   string
		who    chat.User
		where  chat.Thread
		direct bool
		want   []string // chats found in, as hits name them
	}{
		// Privately: own DM, the shared channel; not the channel left, not
		// bo's channel or DM, not the other workspace or platform.
		{"ana in her DM", w.ana, w.anaDM, true, []string{"ceng", "this chat"}},
		// In a channel: that channel only, everyone's threads in it.
		{"ana in eng", w.ana, chat.Thread{Platform: "slack", Space: "T1", Chat: "CENG", ID: "9.9"}, false, []string{"this chat"}},
		{"bo in his DM", w.bo, w.boDM, true, []string{"ceng", "csecret", "this chat"}},
		// The second workspace's private chat sees its own channel only.
		{"ana in T2's DM", w.ana, chat.Thread{Platform: "slack", Space: "T2", Chat: "DANA2"}, true, []string{"cother"}},
		{"ana on telegram", w.anaTG, w.anaTGDM, true, []string{"this chat"}},
		// Someone who never wrote sees nothing but where they ask.
		{"cy in her DM", chat.User{Platform: "slack", ID: "UCY", Name: "cy"}, chat.Thread{Platform: "slack", Space: "T1", Chat: "DCY"}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := w.search(t, tc.who, tc.where, tc.direct, staging)
			if got := chatsOf(hits); !slices.Equal(got, tc.want) {
				t.Errorf("found in %q, want %q", got, tc.want)
			}
		})
	}
	// In eng, ana finds bo's thread too, with its link; her private hint
	// is not among them.
	hits := w.search(t, w.ana, chat.Thread{Platform: "slack", Space: "T1", Chat: "CENG", ID: "9.9"}, false, staging)
	var texts, links []string
	for _, h := range hits {
		texts, links = append(texts, h.Snippet), append(links, h.Link)
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "freeze on Friday") || strings.Contains(joined, "password") {
		t.Errorf("ana in eng found %q", texts)
	}
	if !slices.Contains(links, "link:CENG:2.2:k-CENG-2.2") || !slices.Contains(links, "link:CENG:2.2:") {
		t.Errorf("links = %q, want bo's message by its key and Parley's answer by its thread", links)
	}
}

func testHistoryWhoAndSince(t *testing.T, s suite) {
	w := newHistoryWorld(t, s)
	texts := func(hits []agent.HistoryHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Author+": "+h.Snippet)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name string
		q    agent.HistoryQuery
		want []string
	}{
		{"me", agent.HistoryQuery{Query: "staging", Who: "me"}, []string{
			"ana: ana privately: my **staging** password hint", "ana: ana: the **staging** database moves to eng-db-2"}},
		{"bo by name", agent.HistoryQuery{Query: "staging", Who: "@Bo"}, []string{"bo: bo: **staging** freeze on Friday"}},
		{"a name in another case", agent.HistoryQuery{Query: "staging", Who: "ANA"}, []string{
			"ana: ana privately: my **staging** password hint", "ana: ana: the **staging** database moves to eng-db-2"}},
		{"part of a word", agent.HistoryQuery{Query: "staging", Who: "an"}, nil},
		{"no word", agent.HistoryQuery{Query: "staging", Who: "!!"}, nil},
		{"parley", agent.HistoryQuery{Query: "staging", Who: "parley"}, []string{
			"Parley: noted about **staging** in CENG", "Parley: noted about **staging** in CENG", "Parley: noted about **staging** in DANA"}},
		{"later than all", agent.HistoryQuery{Query: "staging", Since: epoch.Add(24 * time.Hour)}, nil},
		{"limit", agent.HistoryQuery{Query: "staging", Who: "me", Limit: 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := w.search(t, w.ana, w.anaDM, true, tc.q)
			if tc.name == "limit" {
				if len(hits) != 1 {
					t.Errorf("limit 1: %d hits", len(hits))
				}
				return
			}
			if got := texts(hits); !slices.Equal(got, tc.want) {
				t.Errorf("found %q, want %q", got, tc.want)
			}
		})
	}
}

// testHistoryPrune: history.keep_days's prune deletes the conversations
// idle since before the cutoff, whole — transcript, search hits, who
// started it — more than one batch of them, and keeps the newer ones and
// one whose task still runs.
func testHistoryPrune(t *testing.T, s suite) {
	clk := newClock(epoch)
	db, reopen := s.open(t, Options{Now: clk.Now})
	searchable(t, db)
	ctx := t.Context()
	var old []string
	for i := range 130 {
		sid := newSession(t, db, chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: fmt.Sprintf("%d.1", i)})
		appendTo(t, db, sid, user(fmt.Sprintf("ancient pelican %d", i)))
		old = append(old, sid)
	}
	if err := db.Set(ctx, bot.StarterKey(old[0]), "slack:U1"); err != nil {
		t.Fatal(err)
	}
	busy := old[1]
	if _, err := db.SavePlan(ctx, busy, "slack:U1", task.Plan{Items: []task.Item{{Text: "wait", Status: task.InProgress}}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.SetState(ctx, busy, task.Running); err != nil {
		t.Fatal(err)
	}
	clk.Set(epoch.Add(40 * 24 * time.Hour))
	fresh := newSession(t, db, chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "fresh.1"})
	appendTo(t, db, fresh, user("recent pelican"))

	n, err := db.PruneConversations(ctx, clk.Now().Add(-30*24*time.Hour))
	if err != nil || n != len(old)-1 {
		t.Fatalf("PruneConversations = %d, %v; want %d", n, err, len(old)-1)
	}
	for _, db := range []Store{db, reopen()} {
		got := search(t, db, store.MessageSearch{Query: "pelican"})
		slices.Sort(got)
		if want := []string{"ancient pelican 1", "recent pelican"}; !slices.Equal(got, want) {
			t.Errorf("after the prune, pelican finds %q, want %q", got, want)
		}
		if _, err := db.Session(ctx, old[0]); !s.notFound(err) {
			t.Errorf("a pruned session: %v, want not found", err)
		}
		if _, ok, err := db.Get(ctx, bot.StarterKey(old[0])); ok || err != nil {
			t.Errorf("a pruned session's starter is kept: %v %v", ok, err)
		}
		if tr, err := db.Transcript(ctx, fresh); err != nil || len(tr) != 1 {
			t.Errorf("the recent conversation: %d messages, %v", len(tr), err)
		}
	}
	if n, err := db.PruneConversations(ctx, clk.Now().Add(-30*24*time.Hour)); err != nil || n != 0 {
		t.Errorf("a second prune deleted %d, %v; want none", n, err)
	}
}
