package format

import (
	"strings"
	"testing"
)

func TestUTF16Len(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 1}, {"日本", 2}, {"😀", 2},
		{"👨\u200d👩\u200d👧\u200d👦", 11}, {"🇯🇵", 4}, {"\xff", 1}, {"a\xffb", 3},
	}
	for _, tc := range tests {
		if got := UTF16Len(tc.s); got != tc.want {
			t.Errorf("UTF16Len(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestTelegramVisible(t *testing.T) {
	tests := []struct {
		html, want string
		n          int
	}{
		{"", "", 0},
		{"<b>a &lt; b</b> &amp;&amp; c &gt; d", "a < b && c > d", 14},
		{`<a href="https://x.io/?a=1&amp;b=2">link</a>`, "link", 4},
		{`<pre><code class="language-go">x</code></pre>`, "x", 1},
		{"&#128512; &quot;q&quot;", "😀 \"q\"", 6},
		{"a & b < c", "a & b < c", 9}, // not markup: counted as text
	}
	for _, tc := range tests {
		if got := TelegramVisible(tc.html); got != tc.want {
			t.Errorf("TelegramVisible(%q) = %q, want %q", tc.html, got, tc.want)
		}
		if got := TelegramVisibleLen(tc.html); got != tc.n {
			t.Errorf("TelegramVisibleLen(%q) = %d, want %d", tc.html, got, tc.n)
		}
	}
}

func TestMeasures(t *testing.T) {
	md := "**bold** [link](https://example.com/long/path) a < b 😀"
	if got, want := MeasureTelegram(md), UTF16Len("bold link a < b 😀"); got != want {
		t.Errorf("MeasureTelegram = %d, want %d", got, want)
	}
	if got, want := MeasureSlack(md), UTF16Len(Slack(md)); got != want {
		t.Errorf("MeasureSlack = %d, want %d", got, want)
	}
	if got, want := MeasureDiscord(md), UTF16Len(Discord(md)); got != want {
		t.Errorf("MeasureDiscord = %d, want %d", got, want)
	}
	for _, tg := range targets() {
		if tg.splitLen >= tg.maxLen {
			t.Errorf("%s splits at %d, not below its limit %d", tg.name, tg.splitLen, tg.maxLen)
		}
	}
}

// target is one platform's rendering as the adapters use it: how to
// render, how to measure the rendering, the limit and the split budget.
type target struct {
	name             string
	render           func(md string) string
	measure          func(md string) int
	maxLen, splitLen int
}

func targets() []target {
	return []target{
		{"slack", Slack, MeasureSlack, SlackMaxLen, SlackSplitLen},
		{"telegram", TelegramHTML, MeasureTelegram, TelegramMaxLen, TelegramSplitLen},
		{"discord", Discord, MeasureDiscord, DiscordMaxLen, DiscordSplitLen},
	}
}

// TelegramVisible is the text Telegram displays for a message in HTML
// parse mode: tags removed, character references decoded.
func TelegramVisible(html string) string {
	var b strings.Builder
	visitTelegramText(html, func(s string) { b.WriteString(s) })
	return b.String()
}
