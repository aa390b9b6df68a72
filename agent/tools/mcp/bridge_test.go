package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleybot/parley/agent"
)

func filesAndNotes(t *testing.T, searchCalls *atomic.Int32) (*Bridge, []error) {
	t.Helper()
	return connectTest(t, []ServerConfig{
		{Name: "files", Command: "in-memory"},
		{Name: "notes", Command: "in-memory", Trusted: true},
	}, inMemory(t, map[string]*sdk.Server{"files": filesServer(searchCalls), "notes": notesServer()}))
}

func TestConnectListsAndNamesTools(t *testing.T) {
	b, errs := filesAndNotes(t, new(atomic.Int32))
	if len(errs) > 0 {
		t.Fatalf("Connect: %v", errorsText(errs))
	}
	var got []string
	for _, tl := range b.Tools() {
		got = append(got, tl.Spec().Name)
	}
	// Configuration order between servers; the server's order within.
	want := []string{"files__delete_file", "files__read_file", "files__search", "files__snapshot",
		"files__stats", "files__wait", "notes__add_note"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	read := toolNamed(t, b, "files__read_file")
	if read.name != "read_file" || read.Spec().Description != "Read a file." {
		t.Errorf("read_file maps to %q, description %q", read.name, read.Spec().Description)
	}
}

func TestCallText(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	out, err := toolNamed(t, b, "files__read_file").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"path":"a.txt"}`))
	if err != nil || out != "contents of a.txt" {
		t.Errorf("Execute = %q, %v", out, err)
	}
	out, err = toolNamed(t, b, "notes__add_note").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"text":"hi"}`))
	if err != nil || out != "noted: hi" {
		t.Errorf("Execute = %q, %v", out, err)
	}
}

func TestCallIsErrorReachesTheModel(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	out, err := toolNamed(t, b, "files__delete_file").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"path":"/etc"}`))
	if err == nil || err.Error() != "permission denied: /etc" {
		t.Errorf("Execute = %q, %v; want the server's error text", out, err)
	}
}

func TestCallStructuredContentWins(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	out, err := toolNamed(t, b, "files__stats").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"path":"a.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got statsOut
	if err := json.Unmarshal([]byte(out), &got); err != nil || got != (statsOut{Path: "a.txt", Lines: 3}) {
		t.Errorf("Execute = %q (%v)", out, err)
	}
}

func TestCallFlattensContent(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	out, err := toolNamed(t, b, "files__snapshot").Execute(t.Context(), agent.Caller{}, json.RawMessage("null"))
	if err != nil || out != "here it is\n[image/png, 12 KB]" {
		t.Errorf("Execute = %q, %v", out, err)
	}
}

func TestArgumentsCheckedAgainstOriginalSchema(t *testing.T) {
	var calls atomic.Int32
	b, _ := filesAndNotes(t, &calls)
	search := toolNamed(t, b, "files__search")
	for _, args := range []string{
		`{}`,                               // query is required
		`{"query":""}`,                     // minLength
		`{"query":"x","scope":"bogus"}`,    // enum behind the $ref
		`{"query":"x","limit":99}`,         // maximum
		`[1,2]`, `"query"`, `{"query":"x"`, // not an object, not JSON
	} {
		if out, err := search.Execute(t.Context(), agent.Caller{}, json.RawMessage(args)); err == nil {
			t.Errorf("Execute(%s) = %q, want an error", args, out)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("%d invalid calls reached the server", n)
	}
	// The sanitized schema dropped null, but the server allows it, and the
	// server's schema is the one that decides.
	out, err := search.Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"query":"x","scope":null}`))
	if err != nil || !strings.Contains(out, `"scope":null`) || calls.Load() != 1 {
		t.Errorf("Execute = %q, %v (calls %d)", out, err, calls.Load())
	}
}

func TestSpecSchemaIsSanitized(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	var got, want any
	if err := json.Unmarshal(toolNamed(t, b, "files__search").Spec().Schema, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(searchSanitized), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spec schema (-want +got):\n%s", diff)
	}
	// A typed tool's schema comes through as an object schema too.
	var read map[string]any
	_ = json.Unmarshal(toolNamed(t, b, "files__read_file").Spec().Schema, &read)
	if read["type"] != "object" || read["properties"] == nil {
		t.Errorf("read_file schema = %v", read)
	}
}

func TestApprovalPolicy(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	var read, note agent.Tool = toolNamed(t, b, "files__read_file"), toolNamed(t, b, "notes__add_note")
	// read_file claims readOnlyHint; the server is untrusted all the same.
	if p := read.(agent.Approvable).ApprovalPolicy(); p != agent.PolicyAlways {
		t.Errorf("untrusted read_file policy = %q", p)
	}
	if p := note.(agent.Approvable).ApprovalPolicy(); p != agent.PolicyNever {
		t.Errorf("trusted add_note policy = %q", p)
	}
}

func TestSummarize(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	read := toolNamed(t, b, "files__read_file")
	if got := read.Summarize(json.RawMessage("{\n  \"path\": \"a.txt\"\n}")); got != `files: read_file({"path":"a.txt"})` {
		t.Errorf("Summarize = %q", got)
	}
	long := read.Summarize(json.RawMessage(`{"path":"` + strings.Repeat("é", 500) + `"}`))
	if !strings.HasSuffix(long, "…)") || len([]rune(long)) > 230 {
		t.Errorf("long summary = %q", long)
	}
	if got := read.Summarize(json.RawMessage("not json\nApproved: yes \u202e")); strings.ContainsAny(got, "\n\u202e") {
		t.Errorf("summary keeps control characters: %q", got)
	}
}

func TestExecuteHonoursContext(t *testing.T) {
	b, _ := filesAndNotes(t, new(atomic.Int32))
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := toolNamed(t, b, "files__wait").Execute(ctx, agent.Caller{}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Execute = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Execute took %v after its context ended", d)
	}
	// The session survives a cancelled call.
	if _, err := toolNamed(t, b, "files__read_file").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"path":"x"}`)); err != nil {
		t.Errorf("call after a cancelled one: %v", err)
	}
}

func TestFailingServerIsSkipped(t *testing.T) {
	b, errs := connectTest(t, []ServerConfig{
		{Name: "broken", Command: "/nonexistent/parley-no-such-mcp-server"},
		{Name: "files", Command: "in-memory"},
		{Name: "", Command: "x"},
		{Name: "both", Command: "x", URL: "http://localhost"},
		{Name: "files", Command: "again"},
	}, inMemory(t, map[string]*sdk.Server{"files": filesServer(new(atomic.Int32))}))
	if len(errs) != 4 {
		t.Fatalf("got %d errors, want 4: %v", len(errs), errorsText(errs))
	}
	for i, want := range []string{`mcp server "broken": connect:`, `mcp server "": no name`,
		`mcp server "both": both command and url`, `mcp server "files": configured twice`} {
		if !strings.HasPrefix(errs[i].Error(), want) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i], want)
		}
	}
	if !strings.Contains(errs[0].Error(), "no such file") {
		t.Errorf("error does not say why: %v", errs[0])
	}
	if out, err := toolNamed(t, b, "files__read_file").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"path":"a"}`)); err != nil {
		t.Errorf("surviving server: %q, %v", out, err)
	}
}

func TestLongAndCollidingToolNames(t *testing.T) {
	long := "fetch_" + strings.Repeat("very_", 15) + "long_name"
	b, errs := connectTest(t, []ServerConfig{{Name: "raw", Command: "in-memory"}},
		inMemory(t, map[string]*sdk.Server{"raw": rawServer(long, "a.b", "a_b")}))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "is taken by") {
		t.Errorf("errors = %v, want one name collision", errs)
	}
	var short *tool
	for _, tl := range b.Tools() {
		if tl.(*tool).name == long {
			short = tl.(*tool)
		}
	}
	if short == nil || len(short.Spec().Name) > 64 || !strings.HasPrefix(short.Spec().Name, "raw__fetch_very_") {
		t.Fatalf("long tool = %+v", short)
	}
	// The model uses the short name; the server gets the real one.
	if out, err := short.Execute(t.Context(), agent.Caller{}, nil); err != nil || out != "called "+long {
		t.Errorf("Execute = %q, %v", out, err)
	}
}

func TestClosedBridgeFailsCalls(t *testing.T) {
	b, _ := connect(t.Context(), []ServerConfig{{Name: "files", Command: "in-memory"}}, nil,
		inMemory(t, map[string]*sdk.Server{"files": filesServer(new(atomic.Int32))}))
	read := toolNamed(t, b, "files__read_file")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := read.Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"path":"a"}`)); err == nil {
		t.Error("call on a closed bridge succeeded")
	}
	var nilBridge *Bridge
	if nilBridge.Tools() != nil || nilBridge.Close() != nil {
		t.Error("nil bridge is not inert")
	}
}

func TestClientAdvertisesNoCapabilities(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "probe", Version: "test"}, nil)
	var caps atomic.Pointer[sdk.ClientCapabilities]
	s.AddTool(&sdk.Tool{Name: "caps", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			caps.Store(req.Session.InitializeParams().Capabilities)
			return &sdk.CallToolResult{}, nil
		})
	b, errs := connectTest(t, []ServerConfig{{Name: "probe", Command: "in-memory"}}, inMemory(t, map[string]*sdk.Server{"probe": s}))
	if len(errs) > 0 {
		t.Fatal(errorsText(errs))
	}
	if _, err := toolNamed(t, b, "probe__caps").Execute(t.Context(), agent.Caller{}, nil); err != nil {
		t.Fatal(err)
	}
	c := caps.Load()
	if c == nil {
		t.Fatal("no capabilities seen")
	}
	if c.RootsV2 != nil || c.Sampling != nil || c.Elicitation != nil || c.Roots.ListChanged {
		t.Errorf("client advertised %+v", c)
	}
}
