package evolve_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/tools/shell"
	"github.com/parleybot/parley/agent/tools/webfetch"
)

// TestMain lets the shell tool re-execute this test binary as its sandbox.
func TestMain(m *testing.M) {
	shell.MaybeRunSandbox()
	os.Exit(m.Run())
}

type approveAll struct{}

func (approveAll) Approve(_ context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	return agent.Decision{Approved: true, By: "test", Summary: req.Summary}, nil
}

// transcript is an agent.SessionStore and an empty agent.MemoryStore.
type transcript struct{ msgs []llm.Message }

func (s *transcript) Messages(context.Context, string) ([]llm.Message, error) { return s.msgs, nil }
func (s *transcript) AppendMessages(_ context.Context, _ string, m ...llm.Message) error {
	s.msgs = append(s.msgs, m...)
	return nil
}
func (s *transcript) ReplaceMessages(_ context.Context, _ string, m []llm.Message) error {
	s.msgs = m
	return nil
}
func (s *transcript) Memory(context.Context, string) (agent.Memory, error) {
	return agent.Memory{}, nil
}
func (s *transcript) EditMemory(context.Context, string, agent.MemoryTarget, func([]string) ([]string, error)) error {
	return nil
}

// observe runs one turn in which the model calls tool with args once, and
// returns the run's signals and the tool's result as the model saw it.
func observe(t *testing.T, tool agent.Tool, args string) (evolve.Signals, llm.Message) {
	t.Helper()
	st := &transcript{}
	r, err := agent.NewRunner(agent.RunnerConfig{
		Provider: llmtest.NewInstant(
			llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: tool.Spec().Name, Arguments: json.RawMessage(args)}}, StopReason: llm.StopToolUse},
			llm.Response{Text: "done", StopReason: llm.StopEnd}),
		Sessions: st, Memory: st, Tools: []agent.Tool{tool}, ContextWindow: 128000,
	})
	if err != nil {
		t.Fatal(err)
	}
	var o evolve.Observer
	var runErr error
	for ev, err := range r.Run(t.Context(), agent.Turn{SessionID: "s1", Caller: agent.Caller{UserKey: "slack:U1", Approve: approveAll{}}, Text: "go"}) {
		if err != nil {
			runErr = err
			break
		}
		o.Observe(ev)
	}
	for _, m := range st.msgs {
		if m.Role == llm.RoleTool {
			return o.End(runErr, false), m
		}
	}
	t.Fatalf("no tool result in %+v", st.msgs)
	return evolve.Signals{}, llm.Message{}
}

// TestRealFailuresCount: the real tools' real failures, through the real
// runner — a command exiting 1 is a real error the model still reads
// with its status; a web server answering 503 or dropping the connection
// is the environment's; words like those in normal output count for
// nothing.
func TestRealFailuresCount(t *testing.T) {
	sh, err := shell.New(shell.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			http.Error(w, "try later", http.StatusServiceUnavailable)
		case "/limited":
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "/missing":
			http.NotFound(w, r)
		case "/drop":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // no answer at all
			}
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("build log: error at line 512: unexpected EOF; the upstream timed out with HTTP 503\n"))
		}
	}))
	defer srv.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + closed.Addr().String() + "/"
	closed.Close() // nothing listens there now: connection refused
	fetch, err := webfetch.New(webfetch.Options{Timeout: 5 * time.Second,
		AllowAddr: func(a netip.Addr) bool { return a.IsLoopback() }})
	if err != nil {
		t.Fatal(err)
	}
	url := func(path string) string { return `{"url":"` + srv.URL + path + `"}` }

	tests := []struct {
		name          string
		tool          agent.Tool
		args          string
		real, transit int
		isError       bool
		result        []string // what the model reads
	}{
		{"a command exiting 1", sh, `{"command":"echo 'cannot open deploy.yaml' >&2; exit 1"}`, 1, 0, true,
			[]string{"exit status 1", "cannot open deploy.yaml"}},
		{"a command exiting 1 that prints network words", sh, `{"command":"echo 'curl: (28) timed out; HTTP 503; EOF'; exit 1"}`, 1, 0, true,
			[]string{"exit status 1", "timed out"}},
		{"a command that worked and printed failure words", sh, `{"command":"echo 'line 512: unexpected EOF, timed out, 503'"}`, 0, 0, false,
			[]string{"line 512"}},
		{"a page that reads like a failure", fetch, url("/log"), 0, 0, false, []string{"line 512"}},
		{"a server answering 503", fetch, url("/busy"), 0, 1, true, []string{"HTTP 503"}},
		{"a server answering 429", fetch, url("/limited"), 0, 1, true, []string{"HTTP 429"}},
		{"a server closing the connection", fetch, url("/drop"), 0, 1, true, []string{"fetch failed"}},
		{"a refused connection", fetch, `{"url":"` + refused + `"}`, 0, 1, true, []string{"fetch failed"}},
		{"a page that is not there", fetch, url("/missing"), 1, 0, true, []string{"HTTP 404"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, res := observe(t, tt.tool, tt.args)
			if s.RealErrors != tt.real || s.TransientErrors != tt.transit {
				t.Errorf("real %d, transient %d; want %d, %d (result %q)", s.RealErrors, s.TransientErrors, tt.real, tt.transit, res.Text)
			}
			if res.IsError != tt.isError {
				t.Errorf("the model saw IsError %v, want %v: %q", res.IsError, tt.isError, res.Text)
			}
			for _, want := range tt.result {
				if !strings.Contains(res.Text, want) {
					t.Errorf("the model read %q, want it to say %q", res.Text, want)
				}
			}
		})
	}
}
