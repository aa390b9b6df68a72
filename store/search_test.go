package store_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/store"
)

// TestSnippet: the words of the query marked wherever they are in the
// text — any case, whole words, CJK by pairs — in a piece around the
// first of them, plain text throughout.
func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler ", 40)
	tests := []struct {
		name, text, query string
		want              []store.SnippetPart
	}{
		{"a word in any case", "Deploy it, then deploy again", "DEPLOY",
			[]store.SnippetPart{{Text: "Deploy", Match: true}, {Text: " it, then "}, {Text: "deploy", Match: true}, {Text: " again"}}},
		{"whole words only", "redeploy the deployer; deploy", "deploy",
			[]store.SnippetPart{{Text: "redeploy the deployer; "}, {Text: "deploy", Match: true}}},
		{"CJK by its pairs", "申领设备的流程", "设备流程",
			[]store.SnippetPart{{Text: "申领"}, {Text: "设备", Match: true}, {Text: "的"}, {Text: "流程", Match: true}}},
		{"CJK glued to letters", "the设备list", "设备",
			[]store.SnippetPart{{Text: "the"}, {Text: "设备", Match: true}, {Text: "list"}}},
		{"nothing matched: the start", "a <b>b</b>", "zebra", []store.SnippetPart{{Text: "a <b>b</b>"}}},
		{"white space as one space", "a\n\n  b\tc", "b",
			[]store.SnippetPart{{Text: "a "}, {Text: "b", Match: true}, {Text: " c"}}},
		{"a piece around the first match", long + "needle " + long, "needle",
			// 60 characters before, 200 in all.
			[]store.SnippetPart{{Text: "…" + long[len(long)-60:]}, {Text: "needle", Match: true},
				{Text: (" " + long)[:200-60-len("needle")] + "…"}}},
		{"query syntax is words", `say "NEAR(x)" now`, `"NEAR(`,
			[]store.SnippetPart{{Text: `say "`}, {Text: "NEAR", Match: true}, {Text: `(x)" now`}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, store.Snippet(tt.text, tt.query)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
