package discordtest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzComputePings checks the mention parser and allowed_mentions rules on
// arbitrary content: no panics, no duplicate pings, nothing beyond what the
// content names, and an empty parse list pings nobody.
func FuzzComputePings(f *testing.F) {
	for _, seed := range []string{
		"", "@everyone", "@here <@1> <@!2> <@&3>", "<@", "<@!>", "<@&12", "@everyone@everyone", "<@<@1>>", "é<@9>",
	} {
		f.Add(seed, "users,everyone", true)
	}
	f.Fuzz(func(t *testing.T, content, parse string, replied bool) {
		known := func(string) bool { return true }
		am := &AllowedMentions{Parse: strings.Split(parse, ","), RepliedUser: replied}
		for _, r := range []pingResult{
			computePings(content, nil, "author", "replied", known),
			computePings(content, am, "author", "replied", known),
		} {
			seen := map[string]bool{}
			for _, p := range r.pings {
				if seen[p] {
					t.Fatalf("duplicate ping %q in %v", p, r.pings)
				}
				seen[p] = true
				id := p[strings.IndexByte(p, ':')+1:]
				if p != "everyone" && p != "here" && p != "user:replied" && !strings.Contains(content, id) {
					t.Fatalf("ping %q not named in %q", p, content)
				}
				if p == "user:author" {
					t.Fatal("author pinged themself")
				}
			}
		}
		if r := computePings(content, &AllowedMentions{}, "author", "replied", known); len(r.pings) != 0 {
			t.Fatalf("empty allowed_mentions pinged %v", r.pings)
		}
	})
}

// FuzzParseComponents checks that whatever components JSON is accepted
// respects Discord's limits.
func FuzzParseComponents(f *testing.F) {
	for _, seed := range []string{
		`null`, `[]`, `{}`, `[{"type":1,"components":[{"type":2,"style":1,"label":"a","custom_id":"x"}]}]`,
		`[{"type":1,"components":[{"type":2,"style":5,"label":"a","url":"https://x"}]}]`,
		`[{"type":1,"components":[{"type":3,"custom_id":"s"},{"type":2,"style":1,"label":"a","custom_id":"x"}]}]`,
		`[{"type":1,"components":[{"type":2,"style":1,"label":"a","custom_id":"x"},{"type":2,"style":2,"label":"b","custom_id":"x"}]}]`,
		`[{"type":2}]`, `[1,2]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		rows, errs := parseComponents(json.RawMessage(raw), 0)
		if len(errs) > 0 {
			if e := errs.apiError(); e == nil || e.Code != codeInvalidFormBody || !json.Valid(e.Errors) {
				t.Fatalf("errors %v render as %+v", errs, e)
			}
			return
		}
		if len(rows) > maxRows {
			t.Fatalf("%d rows accepted", len(rows))
		}
		var ids []string
		for _, row := range rows {
			if len(row) > maxPerRow {
				t.Fatalf("%d buttons in a row accepted", len(row))
			}
			for _, b := range row {
				if utf8.RuneCountInString(b.CustomID) > maxCustomID || utf8.RuneCountInString(b.Label) > maxLabel {
					t.Fatalf("oversized button accepted: %+v", b)
				}
				if b.CustomID != "" {
					if slices.Contains(ids, b.CustomID) {
						t.Fatalf("duplicate custom_id %q accepted", b.CustomID)
					}
					ids = append(ids, b.CustomID)
				}
			}
		}
	})
}
