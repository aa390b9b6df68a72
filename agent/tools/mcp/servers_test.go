package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fake MCP servers, run in-process with the SDK's server side.

// searchSchema is what a pydantic-based (FastMCP) server publishes: $defs,
// a $ref and nullable unions.
const searchSchema = `{"$defs":{"Scope":{"enum":["name","content"],"type":"string"}},
	"properties":{"query":{"type":"string","minLength":1,"title":"Query"},
		"scope":{"anyOf":[{"$ref":"#/$defs/Scope"},{"type":"null"}],"default":null},
		"limit":{"type":["integer","null"],"maximum":50}},
	"required":["query"],"title":"searchArguments","type":"object"}`

// searchSanitized is searchSchema as the model sees it.
const searchSanitized = `{"properties":{"query":{"type":"string","minLength":1,"title":"Query"},
		"scope":{"enum":["name","content"],"type":"string"},
		"limit":{"type":"integer","maximum":50}},
	"required":["query"],"title":"searchArguments","type":"object"}`

type readArgs struct {
	Path string `json:"path" jsonschema:"file to read"`
}

type statsOut struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
}

// filesServer is a "files" server. searchCalls counts calls that reached
// the search tool.
func filesServer(searchCalls *atomic.Int32) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "files", Version: "test"}, nil)
	readOnly := true
	sdk.AddTool(s, &sdk.Tool{
		Name: "read_file", Description: "Read a file.",
		// A server's claim; it must not lower the approval policy.
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: readOnly},
	}, func(_ context.Context, _ *sdk.CallToolRequest, a readArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "contents of " + a.Path}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "delete_file", Description: "Delete a file."},
		func(_ context.Context, _ *sdk.CallToolRequest, a readArgs) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("permission denied: %s", a.Path)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "stats", Description: "Count lines."},
		func(_ context.Context, _ *sdk.CallToolRequest, a readArgs) (*sdk.CallToolResult, statsOut, error) {
			return nil, statsOut{Path: a.Path, Lines: 3}, nil
		})
	s.AddTool(&sdk.Tool{Name: "search", Description: "Search files.", InputSchema: json.RawMessage(searchSchema)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			searchCalls.Add(1)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "searched " + string(req.Params.Arguments)}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "snapshot", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here it is"},
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 12*1024)},
			}}, nil
		})
	return s
}

// notesServer is a small second server, trusted in the tests.
func notesServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "test"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "add_note"},
		func(_ context.Context, _ *sdk.CallToolRequest, a struct {
			Text string `json:"text"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "noted: " + a.Text}}}, nil, nil
		})
	return s
}

// rawServer publishes the given tools with the schema {"type":"object"};
// every call answers with the tool's name.
func rawServer(names ...string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "raw", Version: "test"}, nil)
	for _, n := range names {
		s.AddTool(&sdk.Tool{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "called " + n}}}, nil
			})
	}
	return s
}

// inMemory dials the named servers in-process and everything else for
// real.
func inMemory(t *testing.T, servers map[string]*sdk.Server) dialer {
	return func(cfg ServerConfig, logger *slog.Logger) (sdk.Transport, error) {
		srv, ok := servers[cfg.Name]
		if !ok {
			return dial(cfg, logger)
		}
		clientEnd, serverEnd := sdk.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), serverEnd, nil); err != nil {
			return nil, fmt.Errorf("fake server: %w", err)
		}
		return clientEnd, nil
	}
}

// connectTest connects and closes the bridge when the test ends.
func connectTest(t *testing.T, configs []ServerConfig, d dialer) (*Bridge, []error) {
	t.Helper()
	b, errs := connect(t.Context(), configs, slog.New(slog.DiscardHandler), d)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b, errs
}

// toolNamed finds a bridge tool by its spec name.
func toolNamed(t *testing.T, b *Bridge, name string) *tool {
	t.Helper()
	var names []string
	for _, tl := range b.Tools() {
		if tl.Spec().Name == name {
			return tl.(*tool)
		}
		names = append(names, tl.Spec().Name)
	}
	t.Fatalf("no tool %q among %s", name, strings.Join(names, ", "))
	return nil
}

func errorsText(errs []error) string {
	return errors.Join(errs...).Error()
}
