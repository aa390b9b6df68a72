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
	}{
		{"Slack channel", bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}, User: ann("slack")},
			"space:slack:T1", []string{"operator", "space:slack:T1"}},
		{"Slack DM", bot.Where{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}, User: ann("slack"), Direct: true},
			"person:slack:ann", []string{"operator", "space:slack:T1", "person:slack:ann"}},
		{"Discord server thread", bot.Where{Thread: chat.Thread{Platform: "discord", Space: "G1", Chat: "C9", ID: "T7"}, User: ann("discord")},
			"space:discord:G1", []string{"operator", "space:discord:G1"}},
		{"Discord DM", bot.Where{Thread: chat.Thread{Platform: "discord", Chat: "DM5"}, User: ann("discord"), Direct: true},
			"person:discord:ann", []string{"operator", "person:discord:ann"}},
		{"Telegram group", bot.Where{Thread: chat.Thread{Platform: "telegram", Chat: "-100", ID: "42"}, User: ann("telegram")},
			"space:telegram:-100", []string{"operator", "space:telegram:-100"}},
		{"Telegram private chat", bot.Where{Thread: chat.Thread{Platform: "telegram", Chat: "77"}, User: ann("telegram"), Direct: true},
			"person:telegram:ann", []string{"operator", "person:telegram:ann"}},
		{"terminal", bot.Where{Thread: chat.Thread{Platform: "console", Chat: "ann"}, User: ann("console"), Direct: true},
			"person:console:ann", []string{"operator", "person:console:ann"}},
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
