package slack

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// blockJSON is the part of Block Kit the tests look at.
type blockJSON struct {
	Type    string `json:"type"`
	BlockID string `json:"block_id"`
	Text    *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"text"`
	Elements []struct {
		Type     string `json:"type"`
		ActionID string `json:"action_id"`
		Value    string `json:"value"`
		URL      string `json:"url"`
		Style    string `json:"style"`
		Text     struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"text"`
	} `json:"elements"`
}

func marshalBlocks(t *testing.T, r rendered) []blockJSON {
	t.Helper()
	b, err := json.Marshal(r.blocks)
	if err != nil {
		t.Fatalf("marshal blocks: %v", err)
	}
	var out []blockJSON
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return out
}

func TestRenderApprovalButtons(t *testing.T) {
	long := strings.Repeat("x", maxButtonValue)
	r, err := renderOut(chat.Out{Text: "May I run **deploy**?", Buttons: []chat.Button{
		{Label: "Approve", Style: chat.ButtonPrimary, Data: long},
		{Label: "Deny", Style: chat.ButtonDanger, Data: "d:1"},
		{Label: "Later", Data: "l:1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r.text != "May I run *deploy*?" {
		t.Errorf("fallback text %q", r.text)
	}
	blocks := marshalBlocks(t, r)
	if len(blocks) != 2 || blocks[0].Type != "section" || blocks[0].Text == nil || blocks[0].Text.Type != "mrkdwn" || blocks[0].Text.Text != r.text {
		t.Fatalf("blocks %+v; want a mrkdwn section with the text, then actions", blocks)
	}
	acts := blocks[1]
	if acts.Type != "actions" || len(acts.Elements) != 3 {
		t.Fatalf("actions block %+v", acts)
	}
	want := []struct{ label, style, value string }{{"Approve", "primary", long}, {"Deny", "danger", "d:1"}, {"Later", "", "l:1"}}
	for i, w := range want {
		e := acts.Elements[i]
		if e.Type != "button" || e.Text.Type != "plain_text" || e.Text.Text != w.label || e.Style != w.style || e.Value != w.value || e.ActionID != fmt.Sprintf("parley_button_%d", i) {
			t.Errorf("button %d = %+v; want %+v", i, e, w)
		}
	}
}

func TestRenderButtonRows(t *testing.T) {
	var buttons []chat.Button
	for i := range 12 {
		buttons = append(buttons, chat.Button{Label: fmt.Sprint("b", i), Data: fmt.Sprint(i)})
	}
	r, err := renderOut(chat.Out{Text: "pick", Buttons: buttons})
	if err != nil {
		t.Fatal(err)
	}
	blocks := marshalBlocks(t, r)
	seen := map[string]bool{}
	total := 0
	for _, b := range blocks[1:] {
		if b.Type != "actions" || len(b.Elements) > buttonsPerRow || len(b.Elements) == 0 {
			t.Errorf("actions block with %d elements: %+v", len(b.Elements), b)
		}
		for _, e := range b.Elements {
			if seen[e.ActionID] {
				t.Errorf("action_id %q repeats", e.ActionID)
			}
			seen[e.ActionID] = true
			total++
		}
	}
	if total != 12 || len(blocks) != 4 {
		t.Errorf("%d buttons in %d blocks; want 12 in 1 section + 3 rows", total, len(blocks))
	}
}

func TestRenderRejects(t *testing.T) {
	tests := []struct {
		name string
		out  chat.Out
	}{
		{"value too long", chat.Out{Text: "x", Buttons: []chat.Button{{Label: "a", Data: strings.Repeat("v", maxButtonValue+1)}}}},
		{"text too long", chat.Out{Text: strings.Repeat("a", maxLen+1)}},
		{"text too long once rendered", chat.Out{Text: strings.Repeat("<", maxLen/4+1)}},
	}
	for _, tt := range tests {
		if _, err := renderOut(tt.out); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if _, err := renderOut(chat.Out{Text: strings.Repeat("a", maxLen)}); err != nil {
		t.Errorf("exactly maxLen: %v", err)
	}
}

func TestRenderLongTextWithButtons(t *testing.T) {
	text := strings.Repeat("word ", 790) + "end" // 3,953 characters
	r, err := renderOut(chat.Out{Text: text, Buttons: []chat.Button{{Label: strings.Repeat("L", 100), Data: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	blocks := marshalBlocks(t, r)
	var joined string
	for _, b := range blocks {
		if b.Type == "section" {
			if n := format.UTF16Len(b.Text.Text); n > maxSectionText {
				t.Errorf("section of %d characters", n)
			}
			joined += b.Text.Text
		}
		if b.Type == "actions" {
			if n := utf8.RuneCountInString(b.Elements[0].Text.Text); n > maxButtonLabel {
				t.Errorf("label of %d characters", n)
			}
		}
	}
	if joined != r.text {
		t.Error("the sections do not add up to the text")
	}
}

func TestRenderPlainAndMentions(t *testing.T) {
	tests := []struct {
		out     chat.Out
		want    string
		notHave []string
	}{
		{chat.Out{Text: "**hi** <!channel> @here"}, "*hi* &lt;!channel&gt; @\u200dhere", nil},
		{chat.Out{Text: "**hi** <!channel> @everyone", Plain: true}, "", []string{"<!channel>", "**", "@everyone"}},
	}
	for _, tt := range tests {
		got := renderText(tt.out)
		if tt.want != "" && got != tt.want {
			t.Errorf("renderText(%+v) = %q, want %q", tt.out, got, tt.want)
		}
		for _, s := range tt.notHave {
			if strings.Contains(got, s) {
				t.Errorf("renderText(%+v) = %q contains %q", tt.out, got, s)
			}
		}
	}
}

func TestChunkUTF16(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("😀", 10), "aaaa\nbbbb cccc", strings.Repeat("x", 25)} {
		chunks := chunkUTF16(s, 6)
		if strings.Join(chunks, "") != s {
			t.Errorf("chunks of %q do not add up: %q", s, chunks)
		}
		for _, c := range chunks {
			if format.UTF16Len(c) > 6 || c == "" || !utf8.ValidString(c) {
				t.Errorf("bad chunk %q of %q", c, s)
			}
		}
	}
}
