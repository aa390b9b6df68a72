package bot_test

import (
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

func place(t *testing.T, s string) chat.PlaceSet {
	t.Helper()
	p, err := chat.ParsePlaceSet(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentsResolveEachPlace binds each place form alone and asks, for a
// conversation in it and one outside it, which agent answers.
func TestAgentsResolveEachPlace(t *testing.T) {
	t.Parallel()
	slackThread := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}
	slackDM := chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}
	tgGroup := chat.Thread{Platform: "telegram", Chat: "-1001", ID: "55"}
	tgTopic := chat.Thread{Platform: "telegram", Chat: "-1001", ID: "topic:7"}
	tgDM := chat.Thread{Platform: "telegram", Chat: "42"}
	dcThread := chat.Thread{Platform: "discord", Space: "G1", Chat: "100", ID: "200"}
	dcDM := chat.Thread{Platform: "discord", Chat: "300"}
	console := chat.Thread{Platform: "console", Chat: "ana"}
	tests := []struct {
		place     string
		in        chat.Thread
		inDirect  bool
		out       chat.Thread
		outDirect bool
	}{
		{"slack:channel:C1", slackThread, false, chat.Thread{Platform: "slack", Space: "T1", Chat: "C2", ID: "1"}, false},
		{"slack:workspace:T1", slackThread, false, chat.Thread{Platform: "slack", Space: "T2", Chat: "C1", ID: "1"}, false},
		{"slack:workspace:T1", slackDM, true, chat.Thread{Platform: "slack", Space: "T2", Chat: "D1"}, true},
		{"slack:dm", slackDM, true, slackThread, false},
		{"telegram:chat:-1001", tgGroup, false, chat.Thread{Platform: "telegram", Chat: "-1002", ID: "55"}, false},
		{"telegram:chat:-1001", tgTopic, false, tgDM, true},
		{"telegram:topic:-1001/7", tgTopic, false, tgGroup, false},
		{"telegram:topic:-1001/7", tgTopic, false, chat.Thread{Platform: "telegram", Chat: "-1001", ID: "topic:8"}, false},
		{"telegram:dm", tgDM, true, tgGroup, false},
		{"discord:channel:100", dcThread, false, chat.Thread{Platform: "discord", Space: "G1", Chat: "101", ID: "200"}, false},
		{"discord:server:G1", dcThread, false, dcDM, true},
		{"discord:dm", dcDM, true, dcThread, false},
		{"console", console, true, dcDM, true},
		{"slack:dm", slackDM, true, dcDM, true}, // another platform's DM
	}
	for _, tt := range tests {
		// discord:server:G1 is not a snowflake: bind it by hand.
		p := chat.PlaceSet{Kind: chat.PlaceSpace, Platform: "discord", ID: "G1"}
		if tt.place != "discord:server:G1" {
			p = place(t, tt.place)
		}
		a := agents(t, bot.Binding{Place: p, Agent: "bound"})
		in, _, ok := a.Resolve(bot.Where{Thread: tt.in, Direct: tt.inDirect})
		if in.Name != "bound" || !ok {
			t.Errorf("%s: %v answered by %q (bound %v); want bound", tt.place, tt.in, in.Name, ok)
		}
		out, _, ok := a.Resolve(bot.Where{Thread: tt.out, Direct: tt.outDirect})
		if out.Name != bot.DefaultAgent || ok {
			t.Errorf("%s: %v answered by %q (bound %v); want the default", tt.place, tt.out, out.Name, ok)
		}
	}
	// "*" holds everything.
	a := agents(t, bot.Binding{Place: place(t, "*"), Agent: "bound"})
	for _, th := range []chat.Thread{slackThread, slackDM, tgTopic, dcDM, console} {
		if got, _, _ := a.Resolve(bot.Where{Thread: th}); got.Name != "bound" {
			t.Errorf("*: %v answered by %q", th, got.Name)
		}
	}
}

// TestAgentsMostSpecificFirst: whatever order the bindings are written
// in, topic beats chat, channel beats workspace, workspace beats the
// platform's DMs, which beat *, which beats the default.
func TestAgentsMostSpecificFirst(t *testing.T) {
	t.Parallel()
	bindings := []bot.Binding{
		{Place: place(t, "*"), Agent: "all"},
		{Place: place(t, "slack:dm"), Agent: "dm"},
		{Place: place(t, "slack:workspace:T1"), Agent: "space"},
		{Place: place(t, "slack:channel:C1"), Agent: "channel"},
		{Place: place(t, "telegram:dm"), Agent: "dm"},
		{Place: place(t, "telegram:chat:-1001"), Agent: "channel"},
		{Place: place(t, "telegram:topic:-1001/7"), Agent: "topic"},
	}
	tests := []struct {
		th     chat.Thread
		direct bool
		want   string
		by     string
	}{
		{chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1"}, false, "channel", "slack:channel:C1"},
		{chat.Thread{Platform: "slack", Space: "T1", Chat: "C2", ID: "1"}, false, "space", "slack:workspace:T1"},
		{chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}, true, "space", "slack:workspace:T1"},
		{chat.Thread{Platform: "slack", Space: "T2", Chat: "D1"}, true, "dm", "slack:dm"},
		{chat.Thread{Platform: "slack", Space: "T2", Chat: "C1", ID: "1"}, false, "channel", "slack:channel:C1"},
		{chat.Thread{Platform: "slack", Space: "T2", Chat: "C9", ID: "1"}, false, "all", "*"},
		{chat.Thread{Platform: "telegram", Chat: "-1001", ID: "topic:7"}, false, "topic", "telegram:topic:-1001/7"},
		{chat.Thread{Platform: "telegram", Chat: "-1001", ID: "topic:8"}, false, "channel", "telegram:chat:-1001"},
		{chat.Thread{Platform: "telegram", Chat: "42"}, true, "dm", "telegram:dm"},
		{chat.Thread{Platform: "discord", Chat: "300"}, true, "all", "*"},
	}
	// Forwards and backwards: the order written does not matter.
	for _, order := range [][]bot.Binding{bindings, reversed(bindings)} {
		a := agents(t, order...)
		for _, tt := range tests {
			got, by, ok := a.Resolve(bot.Where{Thread: tt.th, Direct: tt.direct})
			if got.Name != tt.want || !ok || by.Place.String() != tt.by {
				t.Errorf("%v: %q by %s (%v); want %q by %s", tt.th, got.Name, by.Place, ok, tt.want, tt.by)
			}
		}
	}
	// No bindings: the default everywhere.
	if got, _, ok := agents(t).Resolve(bot.Where{Thread: tests[0].th}); got.Name != bot.DefaultAgent || ok {
		t.Errorf("no bindings: %q (%v); want the default", got.Name, ok)
	}
}

func TestNewAgentsRefuses(t *testing.T) {
	t.Parallel()
	r := &agent.Runner{}
	for _, tt := range []struct {
		name     string
		agents   []bot.Agent
		bindings []bot.Binding
		want     string
	}{
		{"no default", []bot.Agent{{Name: "a", Runner: r}}, nil, `no agent "default"`},
		{"no runner", []bot.Agent{{Name: "default"}}, nil, "no runner"},
		{"unknown agent", []bot.Agent{{Name: "default", Runner: r}}, []bot.Binding{{Place: place(t, "*"), Agent: "x"}}, `no agent "x"`},
		{"twice", []bot.Agent{{Name: "default", Runner: r}}, []bot.Binding{{Place: place(t, "slack:dm"), Agent: "default"}, {Place: place(t, "slack:dm"), Agent: "default"}}, "bound twice"},
	} {
		if _, err := bot.NewAgents(tt.agents, tt.bindings); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want %q", tt.name, err, tt.want)
		}
	}
}

// agents are the default and every agent bindings name, over them.
func agents(t *testing.T, bindings ...bot.Binding) *bot.Agents {
	t.Helper()
	r := &agent.Runner{}
	list := []bot.Agent{{Name: bot.DefaultAgent, Runner: r}}
	seen := map[string]bool{bot.DefaultAgent: true}
	for _, b := range bindings {
		if !seen[b.Agent] {
			seen[b.Agent] = true
			list = append(list, bot.Agent{Name: b.Agent, Runner: r})
		}
	}
	a, err := bot.NewAgents(list, bindings)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func reversed(b []bot.Binding) []bot.Binding {
	out := make([]bot.Binding, len(b))
	for i, x := range b {
		out[len(b)-1-i] = x
	}
	return out
}

// TestAgentsStoredBindings: a binding an admin stored in chat wins over a
// configured one as specific; a more specific configured place still
// wins over it; one naming an agent that is gone is passed over.
func TestAgentsStoredBindings(t *testing.T) {
	t.Parallel()
	a := agents(t,
		bot.Binding{Place: place(t, "telegram:chat:-1001"), Agent: "configured"},
		bot.Binding{Place: place(t, "telegram:topic:-1001/7"), Agent: "topic"},
		bot.Binding{Place: place(t, "*"), Agent: "all"})
	stored := []bot.Binding{
		{Place: place(t, "telegram:chat:-1001"), Agent: "topic", Stored: true},
		{Place: place(t, "telegram:chat:-1002"), Agent: "gone", Stored: true},
	}
	tests := []struct {
		th     chat.Thread
		want   string
		stored bool
	}{
		{chat.Thread{Platform: "telegram", Chat: "-1001", ID: "9"}, "topic", true},
		{chat.Thread{Platform: "telegram", Chat: "-1001", ID: "topic:7"}, "topic", false},
		{chat.Thread{Platform: "telegram", Chat: "-1002", ID: "9"}, "all", false},
	}
	for _, tt := range tests {
		got, by, _ := a.Resolve(bot.Where{Thread: tt.th}, stored...)
		if got.Name != tt.want || by.Stored != tt.stored {
			t.Errorf("%v: %q (stored %v); want %q (stored %v)", tt.th, got.Name, by.Stored, tt.want, tt.stored)
		}
	}
	if got := a.Names(); strings.Join(got, " ") != "default all configured topic" {
		t.Errorf("Names() = %v", got)
	}
}
