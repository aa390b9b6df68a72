package format

import (
	"strings"
	"sync"
	"testing"
)

func TestNeutralizeMentions(t *testing.T) {
	const zwj = "\u200d"
	tests := []struct{ in, want string }{
		{"", ""},
		{"no mentions here", "no mentions here"},
		{"@everyone", "@" + zwj + "everyone"},
		{"hi @here and @channel!", "hi @" + zwj + "here and @" + zwj + "channel!"},
		{"@EVERYONE @Here", "@" + zwj + "EVERYONE @" + zwj + "Here"},
		{"@@everyone", "@@" + zwj + "everyone"},
		{"user@example.com @someone", "user@example.com @someone"},
		{"@" + zwj + "everyone", "@" + zwj + "everyone"},
	}
	for _, tc := range tests {
		if got := NeutralizeMentions(tc.in); got != tc.want {
			t.Errorf("NeutralizeMentions(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMassMentionsNeverPing(t *testing.T) {
	inputs := []string{
		"@everyone", "**@here**", "[@channel](https://x.io)", "`@everyone`", "```\n@here\n```",
		"<!channel> <!here> <!everyone|everyone>", "| @everyone |\n|---|\n| x |", "# @here",
		"![@everyone](https://x.io/@everyone.png)", "<https://x.io/@here>", "@\\everyone",
		"&#64;everyone", "@&#101;veryone",
	}
	for _, md := range inputs {
		if k := lowerHasMassMention(Slack(md), true); k != "" {
			t.Errorf("Slack(%q) = %q contains %s", md, Slack(md), k)
		}
		if k := lowerHasMassMention(Discord(md), false); k != "" {
			t.Errorf("Discord(%q) = %q contains %s", md, Discord(md), k)
		}
	}
	if got := TelegramHTML("@everyone"); got != "@everyone" {
		t.Errorf("Telegram should leave @everyone alone, got %q", got)
	}
}

// TestTelegramUserLinks: a tg://user link would notify that person, so
// Markdown never becomes one, in whatever spelling; other tg links stay.
func TestTelegramUserLinks(t *testing.T) {
	for _, md := range []string{
		"[Ana](tg://user?id=101)", "<tg://user?id=101>", "![Ana](tg://user?id=101)", "[Ana](TG://USER?ID=101)",
		"[Ana](tg:user?id=101)", "[Ana](tg:///user?id=101)", "[Ana](tg://%75ser?id=101)", "[Ana](tg://user/?id=101)",
	} {
		if got := TelegramHTML(md); strings.Contains(strings.ToLower(got), "<a href") {
			t.Errorf("TelegramHTML(%q) = %q, a link that mentions", md, got)
		}
	}
	if got, want := TelegramHTML("[join](tg://join?invite=x)"), `<a href="tg://join?invite=x">join</a>`; got != want {
		t.Errorf("TelegramHTML(tg://join) = %q, want %q", got, want)
	}
}

// TestParserConcurrent renders from many goroutines at once: with -race it
// checks that sharing the package-level goldmark parser is safe.
func TestParserConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				tc := goldenCases[(g*7+i)%len(goldenCases)]
				if got := TelegramHTML(tc.md); got != tc.telegram {
					t.Errorf("concurrent TelegramHTML(%q) = %q", tc.md, got)
				}
				if got := Discord(tc.md); got != tc.discord {
					t.Errorf("concurrent Discord(%q) = %q", tc.md, got)
				}
				_ = Split(tc.md+strings.Repeat(" x", 30), 20, MeasureSlack)
			}
		})
	}
	wg.Wait()
}
