package chat_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/chat"
)

func TestUniqueMentions(t *testing.T) {
	ana := chat.User{Platform: "slack", ID: "U1", Name: "Ana"}
	bo := chat.User{Platform: "telegram", Name: "@bo_builder"}
	tests := []struct {
		name string
		in   []chat.User
		want []chat.User
	}{
		{"none", nil, nil},
		{"in order", []chat.User{bo, ana}, []chat.User{bo, ana}},
		{"the same id twice", []chat.User{ana, {ID: "U1", Name: "Ana L."}, bo}, []chat.User{ana, bo}},
		{"the same username, with or without @, any case", []chat.User{bo, {Name: "Bo_Builder"}}, []chat.User{bo}},
		{"an id and a name are different people", []chat.User{{ID: "Ana"}, {Name: "Ana"}}, []chat.User{{ID: "Ana"}, {Name: "Ana"}}},
		{"nothing to show", []chat.User{{}, {Name: "@"}, ana}, []chat.User{ana}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, chat.Out{Mentions: tt.in}.UniqueMentions()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestWithMentions(t *testing.T) {
	at := func(u chat.User) string { return "@" + u.Name }
	ana, bo := chat.User{ID: "1", Name: "Ana"}, chat.User{ID: "2", Name: "Bo"}
	tests := []struct {
		out  chat.Out
		text string
		want string
	}{
		{chat.Out{}, "standup", "standup"},
		{chat.Out{Mentions: []chat.User{}}, "", ""},
		{chat.Out{Mentions: []chat.User{ana, bo, ana}}, "standup in 5 minutes", "@Ana @Bo standup in 5 minutes"},
		{chat.Out{Mentions: []chat.User{bo}}, "", "@Bo"},
	}
	for _, tt := range tests {
		if got := tt.out.WithMentions(tt.text, at); got != tt.want {
			t.Errorf("WithMentions(%v, %q) = %q, want %q", tt.out.Mentions, tt.text, got, tt.want)
		}
	}
}
