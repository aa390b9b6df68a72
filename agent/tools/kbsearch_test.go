package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/tools"
)

// recordingSearcher records what kb_search asked for.
type recordingSearcher struct {
	scopes []string
	query  string
	k      int
}

func (s *recordingSearcher) Search(_ context.Context, scopes []string, q string, k int) ([]kb.Result, error) {
	s.scopes, s.query, s.k = scopes, q, k
	return []kb.Result{{Source: "runbook.md", Start: 12, End: 18, Text: "Promote the replica.\n", Score: 0.0325}}, nil
}

func TestKBSearch(t *testing.T) {
	s := &recordingSearcher{}
	tool, err := tools.KBSearch(s)
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := tool.(agent.Untrusted); !ok || !u.UntrustedOutput() {
		t.Fatal("kb_search results must taint the turn")
	}
	caller := agent.Caller{UserKey: "slack:U1", Scopes: []string{"operator", "space:slack:T1"}}
	tests := []struct {
		name, args string
		caller     agent.Caller
		wantK      int
		wantErr    string
	}{
		{name: "default k", args: `{"query":"failover"}`, caller: caller, wantK: 5},
		{name: "k capped", args: `{"query":"failover","k":500}`, caller: caller, wantK: 20},
		{name: "the model cannot name a scope", args: `{"query":"failover","scopes":["person:slack:U2"]}`, caller: caller, wantErr: "additional properties"},
		{name: "empty query", args: `{"query":"  "}`, caller: caller, wantErr: "empty"},
		{name: "no scopes, no search", args: `{"query":"x"}`, caller: agent.Caller{UserKey: "slack:U1"}, wantErr: "not available"},
		{name: "query missing", args: `{}`, caller: caller, wantErr: "query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			*s = recordingSearcher{}
			out, err := tool.Execute(t.Context(), tt.caller, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.k != tt.wantK || !slices.Equal(s.scopes, tt.caller.Scopes) {
				t.Errorf("searched k=%d scopes=%v, want k=%d scopes=%v", s.k, s.scopes, tt.wantK, tt.caller.Scopes)
			}
			if !strings.HasPrefix(out, "[1] runbook.md:12-18 (score 0.0325)\nPromote the replica.") {
				t.Errorf("output:\n%s", out)
			}
		})
	}
}
