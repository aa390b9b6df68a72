package bot_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot"
)

func TestUniqueMentions(t *testing.T) {
	ana := bot.User{Platform: "slack", ID: "U1", Name: "Ana"}
	bo := bot.User{Platform: "telegram", Name: "@bo_builder"}
	tests := []struct {
		name string
		in   []bot.User
		want []bot.User
	}{
		{"none", nil, nil},
		{"in order", []bot.User{bo, ana}, []bot.User{bo, ana}},
		{"the same id twice", []bot.User{ana, {ID: "U1", Name: "Ana L."}, bo}, []bot.User{ana, bo}},
		{"the same username, with or without @, any case", []bot.User{bo, {Name: "Bo_Builder"}}, []bot.User{bo}},
		{"an id and a name are different people", []bot.User{{ID: "Ana"}, {Name: "Ana"}}, []bot.User{{ID: "Ana"}, {Name: "Ana"}}},
		{"nothing to show", []bot.User{{}, {Name: "@"}, ana}, []bot.User{ana}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, bot.Out{Mentions: tt.in}.UniqueMentions()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestWithMentions(t *testing.T) {
	at := func(u bot.User) string { return "@" + u.Name }
	ana, bo := bot.User{ID: "1", Name: "Ana"}, bot.User{ID: "2", Name: "Bo"}
	tests := []struct {
		out  bot.Out
		text string
		want string
	}{
		{bot.Out{}, "standup", "standup"},
		{bot.Out{Mentions: []bot.User{}}, "", ""},
		{bot.Out{Mentions: []bot.User{ana, bo, ana}}, "standup in 5 minutes", "@Ana @Bo standup in 5 minutes"},
		{bot.Out{Mentions: []bot.User{bo}}, "", "@Bo"},
	}
	for _, tt := range tests {
		if got := tt.out.WithMentions(tt.text, at); got != tt.want {
			t.Errorf("WithMentions(%v, %q) = %q, want %q", tt.out.Mentions, tt.text, got, tt.want)
		}
	}
}
