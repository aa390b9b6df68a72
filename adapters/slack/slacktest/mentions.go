package slacktest

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
)

// userMention is how a message names a person so that Slack notifies
// them: <@U123>, or <@U123|label>. Escaped (&lt;@U123&gt;) it is text.
var userMention = regexp.MustCompile(`<@([UW][A-Z0-9]+)(?:\|[^>]*)?>`)

// MentionedUsers returns the ids of the people m notifies, in order, each
// once: every <@U…> in its text, its markdown text and the mrkdwn of its
// blocks, as Slack reads them. It does not model link_names (@name).
func (m Message) MentionedUsers() []string {
	var ids []string
	for _, s := range append([]string{m.Text, m.MarkdownText}, mrkdwnTexts(m.Blocks)...) {
		for _, sm := range userMention.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(ids, sm[1]) {
				ids = append(ids, sm[1])
			}
		}
	}
	return ids
}

// mrkdwnTexts returns the text of every mrkdwn text object in blocks,
// wherever it is nested.
func mrkdwnTexts(blocks json.RawMessage) []string {
	var v any
	if len(blocks) == 0 || json.Unmarshal(blocks, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			if text, ok := v["text"].(string); ok && v["type"] == "mrkdwn" {
				out = append(out, text)
			}
			for _, k := range slices.Sorted(maps.Keys(v)) { // a stable order
				walk(v[k])
			}
		}
	}
	walk(v)
	return out
}
