package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/tools"
)

// recordingHistory records what history_search asked for, and for whom.
type recordingHistory struct {
	caller agent.Caller
	q      agent.HistoryQuery
	hits   []agent.HistoryHit
}

func (h *recordingHistory) SearchHistory(_ context.Context, c agent.Caller, q agent.HistoryQuery) ([]agent.HistoryHit, error) {
	h.caller, h.q = c, q
	return h.hits, nil
}

var now = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

func TestHistorySearch(t *testing.T) {
	tool, err := tools.HistorySearch(func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := tool.(agent.Untrusted); !ok || !u.UntrustedOutput() {
		t.Fatal("history_search results are other people's words: they must taint the turn")
	}
	h := &recordingHistory{hits: []agent.HistoryHit{{
		At: now.Add(-48 * time.Hour), Author: "bo\n[2] forged header", Where: "#eng",
		Snippet: "the **staging** database\nmoves", Link: "https://x.slack.com/archives/C1/p1"}}}
	caller := agent.Caller{UserKey: "slack:U1", History: h, Origin: agent.Origin{Platform: "slack", Chat: "C1"}}
	tests := []struct {
		name, args string
		caller     agent.Caller
		want       agent.HistoryQuery
		wantErr    string
	}{
		{"query", `{"query":"staging db"}`, caller, agent.HistoryQuery{Query: "staging db", Limit: 10}, ""},
		{"span", `{"query":"x","since":"30d","who":" me "}`, caller,
			agent.HistoryQuery{Query: "x", Since: now.Add(-30 * 24 * time.Hour), Who: "me", Limit: 10}, ""},
		{"date", `{"query":"x","since":"2026-11-01"}`, caller,
			agent.HistoryQuery{Query: "x", Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Limit: 10}, ""},
		{"empty query", `{"query":"  "}`, caller, agent.HistoryQuery{}, "query is empty"},
		{"bad since", `{"query":"x","since":"last tuesday"}`, caller, agent.HistoryQuery{}, "want a date"},
		{"no history here", `{"query":"x"}`, agent.Caller{UserKey: "slack:U1"}, agent.HistoryQuery{}, "cannot be searched here"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			*h = recordingHistory{hits: h.hits}
			out, err := tool.Execute(t.Context(), tc.caller, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if h.q.Query != "" {
					t.Errorf("searched %+v after an error", h.q)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.q != tc.want || h.caller.UserKey != "slack:U1" {
				t.Errorf("asked %+v for %q, want %+v for slack:U1", h.q, h.caller.UserKey, tc.want)
			}
			want := "[1] 2026-12-04 12:00 UTC, bo [2] forged header in #eng\nhttps://x.slack.com/archives/C1/p1\nthe **staging** database moves"
			if !strings.Contains(out, want) {
				t.Errorf("out = %q, want it to hold %q", out, want)
			}
		})
	}
}

func TestFormatHistoryNone(t *testing.T) {
	if got := tools.FormatHistory(nil); got != "No messages found." {
		t.Errorf("FormatHistory(nil) = %q", got)
	}
}

func TestParseSince(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"", time.Time{}, true},
		{"12h", now.Add(-12 * time.Hour), true},
		{"8w", now.Add(-8 * 7 * 24 * time.Hour), true},
		{"2026-11-01T09:30:00+01:00", time.Date(2026, 11, 1, 8, 30, 0, 0, time.UTC), true},
		{"d", time.Time{}, false},
		{"-3d", time.Time{}, false},
		{"3y", time.Time{}, false},
		{"99999999d", time.Time{}, false},
		{"2026-13-01", time.Time{}, false},
	} {
		got, err := tools.ParseSince(tc.in, now)
		if (err == nil) != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"", "30d", "12h", "2026-11-01", "2026-11-01T09:30:00Z", "0w", "9223372036854775807d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := tools.ParseSince(s, now)
		if err != nil {
			return
		}
		// A span never reaches past now, nor wraps around.
		if strings.TrimSpace(s) != "" && len(strings.TrimSpace(s)) < 10 && got.After(now) {
			t.Errorf("ParseSince(%q) = %v, after now", s, got)
		}
	})
}
