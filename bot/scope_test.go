package bot_test

import (
	"slices"
	"testing"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// TestScopeMatrix: for each place a person can write from, where what they
// create there lives, and which scopes a lookup there covers — and that no
// lookup ever covers another space or another person.
func TestScopeMatrix(t *testing.T) {
	ann := func(p string) chat.User { return chat.User{Platform: p, ID: "ann", Name: "Ann"} }
	tests := []struct {
		name    string
		where   bot.Where
		home    string
		visible []string
		team    string // the place whose team notes it sees; "" none
	}{
		{"Slack channel", bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}, User: ann("slack")},
			"space:slack:T1", []string{"operator", "space:slack:T1"}, "space:slack:T1"},
		{"Slack DM", bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}, User: ann("slack"), Direct: true},
			"person:slack:ann", []string{"operator", "space:slack:T1", "person:slack:ann"}, ""},
		{"Discord server thread", bot.Where{Thread: chat.Thread{Platform: "discord", Space: "G1", Chat: "C9", ID: "T7"}, User: ann("discord")},
			"space:discord:G1", []string{"operator", "space:discord:G1"}, "space:discord:G1"},
		{"Discord DM", bot.Where{Thread: chat.Thread{Platform: "discord", Chat: "DM5"}, User: ann("discord"), Direct: true},
			"person:discord:ann", []string{"operator", "person:discord:ann"}, ""},
		{"Telegram group", bot.Where{Thread: chat.Thread{Platform: "telegram", Chat: "-100", ID: "42"}, User: ann("telegram")},
			"space:telegram:-100", []string{"operator", "space:telegram:-100"}, "space:telegram:-100"},
		{"Telegram private chat", bot.Where{Thread: chat.Thread{Platform: "telegram", Chat: "77"}, User: ann("telegram"), Direct: true},
			"person:telegram:ann", []string{"operator", "person:telegram:ann"}, ""},
		{"terminal", bot.Where{Thread: chat.Thread{Platform: "console", Chat: "ann"}, User: ann("console"), Direct: true},
			"person:console:ann", []string{"operator", "person:console:ann"}, ""},
	}
	others := []string{"space:slack:T2", "space:discord:G2", "space:telegram:-200", "person:slack:bob", "person:telegram:bob"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.where.Home().Key(); got != tt.home {
				t.Errorf("home = %s, want %s", got, tt.home)
			}
			got := tt.where.VisibleKeys()
			if !slices.Equal(got, tt.visible) {
				t.Errorf("visible = %v, want %v", got, tt.visible)
			}
			if !slices.Contains(got, tt.where.Home().Key()) {
				t.Errorf("what is created here (%s) is not visible here", tt.where.Home().Key())
			}
			team, ok := tt.where.Team()
			if (ok && team.Key() != tt.team) || ok != (tt.team != "") {
				t.Errorf("team = %v (%v), want %q", team, ok, tt.team)
			}
			for _, o := range others {
				if slices.Contains(got, o) {
					t.Errorf("a lookup here covers %s", o)
				}
			}
		})
	}
}

func TestParseScope(t *testing.T) {
	tests := []struct {
		in      string
		want    bot.Scope
		wantErr bool
	}{
		{in: "operator", want: bot.OperatorScope()},
		{in: "space:slack:T1", want: bot.Scope{Kind: bot.ScopeSpace, ID: "slack:T1"}},
		{in: "person:telegram:42", want: bot.Scope{Kind: bot.ScopePerson, ID: "telegram:42"}},
		{in: "space:slack", wantErr: true},
		{in: "team:slack:T1", wantErr: true},
		{in: "", wantErr: true},
		{in: "person::42", wantErr: true},
	}
	for _, tt := range tests {
		got, err := bot.ParseScope(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseScope(%q) = %+v, %v", tt.in, got, err)
		}
		if err == nil && got.Key() != tt.in {
			t.Errorf("ParseScope(%q).Key() = %q", tt.in, got.Key())
		}
	}
}

// TestSearchedKeys: an agent's kb.scopes only ever narrow what a lookup
// here covers — by kind or by key — and a scope not visible here stays
// unsearched whatever the list names.
func TestSearchedKeys(t *testing.T) {
	ann := chat.User{Platform: "slack", ID: "ann", Name: "Ann"}
	channel := bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}, User: ann}
	dm := bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}, User: ann, Direct: true}
	tests := []struct {
		name  string
		where bot.Where
		only  []string
		want  []string
	}{
		{"unset: every visible scope", channel, nil, []string{"operator", "space:slack:T1"}},
		{"unset, in a DM", dm, nil, []string{"operator", "space:slack:T1", "person:slack:ann"}},
		{"none", dm, []string{}, []string{}},
		{"the operator's only", dm, []string{"operator"}, []string{"operator"}},
		{"the space's by kind", channel, []string{"space"}, []string{"space:slack:T1"}},
		{"the space's by key", channel, []string{"operator", "space:slack:T1"}, []string{"operator", "space:slack:T1"}},
		{"another space's key", channel, []string{"operator", "space:slack:T2"}, []string{"operator"}},
		{"the person's kind outside a DM", channel, []string{"person"}, []string{}},
		{"the person's kind in a DM", dm, []string{"person"}, []string{"person:slack:ann"}},
		{"another person's key", dm, []string{"person:slack:bob"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.where.SearchedKeys(tt.only)
			if !slices.Equal(got, tt.want) || got == nil {
				t.Errorf("SearchedKeys(%q) = %#v, want %#v", tt.only, got, tt.want)
			}
			for _, k := range got {
				if !slices.Contains(tt.where.VisibleKeys(), k) {
					t.Errorf("searches %s, which is not visible here", k)
				}
			}
		})
	}
}

// TestLearnedKeys: two agents in the same two places learn apart; the
// default agent keeps the keys it had before there were agents.
func TestLearnedKeys(t *testing.T) {
	ann := chat.User{Platform: "slack", ID: "ann", Name: "Ann"}
	help := bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}, User: ann}
	dm := bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}, User: ann, Direct: true}
	tests := []struct {
		agent string
		where bot.Where
		home  string
		seen  []string
	}{
		{bot.DefaultAgent, help, "space:slack:T1", []string{"operator", "space:slack:T1"}},
		{bot.DefaultAgent, dm, "person:slack:ann", []string{"operator", "space:slack:T1", "person:slack:ann"}},
		{"eng", help, "agent:eng:space:slack:T1", []string{"agent:eng:operator", "agent:eng:space:slack:T1"}},
		{"eng", dm, "agent:eng:person:slack:ann", []string{"agent:eng:operator", "agent:eng:space:slack:T1", "agent:eng:person:slack:ann"}},
		{"support", help, "agent:support:space:slack:T1", []string{"agent:support:operator", "agent:support:space:slack:T1"}},
		{"support", dm, "agent:support:person:slack:ann", []string{"agent:support:operator", "agent:support:space:slack:T1", "agent:support:person:slack:ann"}},
	}
	for _, tt := range tests {
		if got := tt.where.Home().Of(tt.agent).Key(); got != tt.home {
			t.Errorf("%s: home %s, want %s", tt.agent, got, tt.home)
		}
		if got := tt.where.LearnedKeys(tt.agent); !slices.Equal(got, tt.seen) {
			t.Errorf("%s: learned %v, want %v", tt.agent, got, tt.seen)
		}
		for _, o := range tests {
			if o.agent != tt.agent && slices.Contains(o.where.LearnedKeys(o.agent), tt.home) {
				t.Errorf("%s sees what %s learnt (%s)", o.agent, tt.agent, tt.home)
			}
		}
		s, err := bot.ParseScope(tt.home)
		if err != nil || s.Key() != tt.home {
			t.Errorf("ParseScope(%q) = %+v, %v", tt.home, s, err)
		}
	}
	for _, bad := range []string{"agent:eng", "agent::operator", "agent:eng:agent:x:operator", "agent:eng:team:x"} {
		if _, err := bot.ParseScope(bad); err == nil {
			t.Errorf("ParseScope(%q) took it", bad)
		}
	}
}
