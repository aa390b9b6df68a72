package discord

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

func TestRenderOut(t *testing.T) {
	tests := []struct {
		name    string
		out     chat.Out
		content string
		styles  [][]discordgo.ButtonStyle
		wantErr string
	}{
		{name: "markdown", out: chat.Out{Text: "**done** with `make`"}, content: "**done** with `make`"},
		{name: "mass mentions defused", out: chat.Out{Text: "hi @everyone"}, content: "hi @\u200deveryone"},
		{name: "plain", out: chat.Out{Text: "**x** @here", Plain: true}, content: "x @\u200dhere"},
		{name: "exactly the limit", out: chat.Out{Text: strings.Repeat("a", maxLen)}, content: strings.Repeat("a", maxLen)},
		{name: "over the limit", out: chat.Out{Text: strings.Repeat("a", maxLen+1)}, wantErr: "exceeds the 2000"},
		{name: "button styles", out: chat.Out{Text: "ok?", Buttons: []chat.Button{
			{Label: "Approve", Style: chat.ButtonPrimary, Data: "a:1"},
			{Label: "Deny", Style: chat.ButtonDanger, Data: "d:1"},
			{Label: "Later", Data: "l:1"},
		}}, content: "ok?", styles: [][]discordgo.ButtonStyle{{discordgo.SuccessButton, discordgo.DangerButton, discordgo.SecondaryButton}}},
		{name: "rows of five", out: chat.Out{Text: "pick", Buttons: buttons(7)}, content: "pick",
			styles: [][]discordgo.ButtonStyle{
				{discordgo.SecondaryButton, discordgo.SecondaryButton, discordgo.SecondaryButton, discordgo.SecondaryButton, discordgo.SecondaryButton},
				{discordgo.SecondaryButton, discordgo.SecondaryButton}}},
		{name: "too many buttons", out: chat.Out{Text: "pick", Buttons: buttons(26)}, wantErr: "26 buttons"},
		{name: "custom_id over 100", out: chat.Out{Text: "x", Buttons: []chat.Button{{Label: "A", Data: strings.Repeat("x", 101)}}},
			wantErr: "101 bytes"},
		{name: "empty custom_id", out: chat.Out{Text: "x", Buttons: []chat.Button{{Label: "A"}}}, wantErr: "0 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := renderOut(tt.out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("renderOut error = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("renderOut: %v", err)
			}
			if strings.TrimSpace(r.content) != tt.content {
				t.Errorf("content = %q, want %q", r.content, tt.content)
			}
			var styles [][]discordgo.ButtonStyle
			for _, row := range r.components {
				var s []discordgo.ButtonStyle
				for _, c := range row.(discordgo.ActionsRow).Components {
					b := c.(discordgo.Button)
					if b.CustomID == "" {
						t.Errorf("button %q without custom_id", b.Label)
					}
					s = append(s, b.Style)
				}
				styles = append(styles, s)
			}
			if diff := cmp.Diff(tt.styles, styles); diff != "" {
				t.Errorf("button styles (-want +got):\n%s", diff)
			}
		})
	}
}

func buttons(n int) []chat.Button {
	bs := make([]chat.Button, n)
	for i := range bs {
		bs[i] = chat.Button{Label: "b", Data: "d:" + strings.Repeat("x", i+1)}
	}
	return bs
}

// Every message the adapter writes notifies nobody, whatever its text.
func TestNoMentionsOnTheWire(t *testing.T) {
	b, err := json.Marshal(noMentions())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"parse":[],"replied_user":false}`; got != want {
		t.Errorf("allowed_mentions = %s, want %s", got, want)
	}
}

// TestNoMentionsRenderAsBefore: without Mentions (nil or empty) the
// content is what it was before they existed, and pings nobody.
func TestNoMentionsRenderAsBefore(t *testing.T) {
	for _, md := range []string{"", "**done** with `make`", "<@1> <@!2> <@&3> @here & more", "> quote\n- item"} {
		for _, plain := range []bool{false, true} {
			want := format.Discord(md)
			if plain {
				want = format.NeutralizeMentions(format.Plain(md))
			}
			for _, mentions := range [][]chat.User{nil, {}} {
				r, err := renderOut(chat.Out{Text: md, Plain: plain, Mentions: mentions})
				if err != nil {
					t.Fatal(err)
				}
				if r.content != want || !cmp.Equal(r.allowed, noMentions()) {
					t.Errorf("renderOut(%q, plain %v, mentions %v) = %q allowing %+v, want %q allowing nobody", md, plain, mentions, r.content, r.allowed, want)
				}
			}
		}
	}
}

func TestThreadName(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tt := range []struct{ in, want string }{
		{"  deploy the\nstaging box ", "deploy the staging box"},
		{"", "Parley"},
		{long, strings.TrimSpace(long[:100])},
		{strings.Repeat("x", 150), strings.Repeat("x", 100)},
	} {
		got := threadName(tt.in)
		if got != tt.want || len([]rune(got)) > maxThreadName {
			t.Errorf("threadName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
