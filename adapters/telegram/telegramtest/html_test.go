package telegramtest_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

func TestHTMLThroughSendMessage(t *testing.T) {
	tests := []struct {
		name      string
		html      string
		wantErr   string // description prefix after "Bad Request: can't parse entities: "
		visible   string
		bold      []string
		code      []string
		entityLen []int // lengths of the entities, in order
	}{
		{name: "plain escapes", html: "a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#x27;", visible: `a <b> & "c" 'd'`},
		{name: "bare ampersand", html: "fish & chips", visible: "fish & chips"},
		{name: "bold and strong", html: "<b>one</b> and <strong>two</strong>", visible: "one and two", bold: []string{"one", "two"}, entityLen: []int{3, 3}},
		{name: "nested bold counts once", html: "<b>a <i>b</i> <strong>c</strong></b>", visible: "a b c", bold: []string{"a b c"}, entityLen: []int{5, 1, 1}},
		{name: "pre with language", html: `<pre><code class="language-go">x := 1</code></pre>`, visible: "x := 1", code: []string{"x := 1"}, entityLen: []int{6}},
		{name: "inline code", html: "run <code>ls &amp;&amp; pwd</code>", visible: "run ls && pwd", code: []string{"ls && pwd"}, entityLen: []int{9}},
		{name: "emoji counts two units", html: "<b>😀</b>", visible: "😀", bold: []string{"😀"}, entityLen: []int{2}},
		{name: "all supported tags", html: `<i>i</i><em>e</em><u>u</u><ins>n</ins><s>s</s><strike>k</strike><del>d</del><span class="tg-spoiler">p</span><tg-spoiler>q</tg-spoiler><a href="https://x.y/?a=1&amp;b=2">l</a><blockquote expandable>z</blockquote><tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>`,
			visible: "ieunskdpqlz👍", entityLen: []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}},
		{name: "upper case tags", html: "<B>x</B>", visible: "x", bold: []string{"x"}, entityLen: []int{1}},
		{name: "unsupported tag", html: "a<br>b", wantErr: `Unsupported start tag "br" at byte offset 1`},
		{name: "unclosed tag", html: "<b>x", wantErr: `Can't find end tag corresponding to start tag "b"`},
		{name: "mismatched tag", html: "<b><i>x</b></i>", wantErr: `Unmatched end tag at byte offset 7, expected "</i>", found "</b>"`},
		{name: "unexpected end tag", html: "x</b>", wantErr: "Unexpected end tag at byte offset 1"},
		{name: "unknown entity", html: "a &foo; b", wantErr: `Unsupported HTML entity "&foo;" at byte offset 2`},
		{name: "stray less-than", html: "1 < 2", wantErr: `Unexpected character "<" at byte offset 2`},
		{name: "span without spoiler", html: "<span>x</span>", wantErr: `Tag "span" must have class "tg-spoiler"`},
		{name: "unclosed start tag", html: `<a href="x`, wantErr: "Unclosed start tag at byte offset 0"},
	}
	srv, bot := newServer(t, telegramtest.WithoutRateLimits())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := tgbotapi.NewMessage(alice, tt.html)
			msg.ParseMode = tgbotapi.ModeHTML
			sent, err := bot.Send(msg)
			if tt.wantErr != "" {
				te := wantAPIError(t, err, 400, "")
				if want := "Bad Request: can't parse entities: " + tt.wantErr; !strings.HasPrefix(te.Message, want) {
					t.Fatalf("description = %q, want prefix %q", te.Message, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lens []int
			for _, e := range sent.Entities {
				lens = append(lens, e.Length)
			}
			if sent.Text != tt.visible || !cmp.Equal(lens, tt.entityLen) {
				t.Errorf("sent text %q entities %v, want %q %v", sent.Text, lens, tt.visible, tt.entityLen)
			}
			msgs := srv.BotMessages(alice)
			got := msgs[len(msgs)-1]
			want := telegramtest.Message{Text: tt.html, Visible: tt.visible, Bold: tt.bold, Code: tt.code}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(telegramtest.Message{}, "ID", "Chat", "From", "FromBot", "ParseMode", "Entities", "Previews")); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreLanguageEntity(t *testing.T) {
	p, err := telegramtest.ParseHTML(`<pre><code class="language-go">x</code></pre>`)
	if err != nil {
		t.Fatal(err)
	}
	want := []telegramtest.Entity{{Type: "pre", Offset: 0, Length: 1, Language: "go"}}
	if diff := cmp.Diff(want, p.Entities); diff != "" {
		t.Errorf("entities (-want +got):\n%s", diff)
	}
}

func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// FuzzHTML checks the parser never panics, that escaped plain text reads
// back as itself, and that entities stay inside the visible text.
func FuzzHTML(f *testing.F) {
	for _, seed := range []string{
		"", "plain", "<b>bold</b>", "a &amp; b", "&#128512;", "&#xD800;", "<a href='x'>l</a>",
		"<pre><code class=\"language-go\">x</code></pre>", "<b><i>x</b></i>", "<", "&", "&;", "<b", "</", "😀<b>é</b>",
		"<tg-emoji emoji-id=1>x</tg-emoji>", "<blockquote expandable>q</blockquote>", "\xff<b>\xfe</b>",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := telegramtest.ParseHTML(src)
		if err == nil {
			n := utf16Units(p.Visible)
			for _, e := range p.Entities {
				if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > n {
					t.Fatalf("entity %+v outside %d units of %q", e, n, p.Visible)
				}
			}
		}
		if !utf8.ValidString(src) {
			return
		}
		plain, err := telegramtest.ParseHTML(escapeHTML(src))
		if err != nil {
			t.Fatalf("escaped text %q: %v", src, err)
		}
		if plain.Visible != src || len(plain.Entities) != 0 {
			t.Fatalf("escaped round trip = %q %v, want %q", plain.Visible, plain.Entities, src)
		}
	})
}

func utf16Units(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// TestTextMentions: an HTML tg://user link and a plain text's text_mention
// entity both mention the person by id, as Telegram returns them; a link
// elsewhere, a mention written as text and a tg://user link without an id
// mention nobody.
func TestTextMentions(t *testing.T) {
	srv, bot := newServer(t, telegramtest.WithoutRateLimits())
	tests := []struct {
		name string
		msg  tgbotapi.MessageConfig
		ids  []int64
	}{
		{"html link", tgbotapi.MessageConfig{Text: `<a href="tg://user?id=43">Bob</a> and <a href="TG://USER?ID=42">Alice</a>, twice <a href="tg://user?id=43">Bob</a>`,
			ParseMode: tgbotapi.ModeHTML}, []int64{43, 42}},
		{"plain entity", tgbotapi.MessageConfig{Text: "Bob, standup", Entities: []tgbotapi.MessageEntity{
			{Type: "text_mention", Offset: 0, Length: 3, User: &tgbotapi.User{ID: 43}}}}, []int64{43}},
		{"no mention", tgbotapi.MessageConfig{Text: `<a href="https://t.me/bob">Bob</a> @bob <a href="tg://user?id=x">x</a> &lt;@43&gt;`,
			ParseMode: tgbotapi.ModeHTML}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.msg.ChatID = group
			sent, err := bot.Send(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			var returned []int64
			for _, e := range sent.Entities {
				if e.Type == "text_mention" && e.User != nil {
					returned = append(returned, e.User.ID)
				}
			}
			msgs := srv.BotMessages(group)
			if got := msgs[len(msgs)-1].MentionedIDs(); !cmp.Equal(got, tt.ids) {
				t.Errorf("MentionedIDs = %v, want %v", got, tt.ids)
			}
			if len(tt.ids) > 0 && (len(returned) == 0 || returned[0] != tt.ids[0]) {
				t.Errorf("the message Telegram returned has text mentions of %v, want %v", returned, tt.ids)
			}
		})
	}
}
