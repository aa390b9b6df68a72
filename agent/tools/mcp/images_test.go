package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/agent/media/mediatest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// cameraServer has one tool, screenshot, answering with a line of text,
// a picture, and a picture as an embedded resource.
func cameraServer(shot, page []byte) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "camera", Version: "test"}, nil)
	s.AddTool(&sdk.Tool{Name: "screenshot", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "the dashboard"},
				&sdk.ImageContent{MIMEType: "image/png", Data: shot},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///page.jpg", MIMEType: "image/jpeg", Blob: page}},
			}}, nil
		})
	return s
}

func TestExecuteImagesReturnsPictures(t *testing.T) {
	shot, page := mediatest.PNG(32, 24), mediatest.JPEG(16, 16)
	b, errs := connectTest(t, []ServerConfig{{Name: "camera", Command: "in-memory", Trusted: true}},
		inMemory(t, map[string]*sdk.Server{"camera": cameraServer(shot, page)}))
	if len(errs) > 0 {
		t.Fatal(errorsText(errs))
	}
	text, imgs, err := toolNamed(t, b, "camera__screenshot").ExecuteImages(t.Context(), agent.Caller{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "the dashboard\n[image/png,") {
		t.Errorf("text %q", text)
	}
	if len(imgs) != 2 || !bytes.Equal(imgs[0].Data, shot) || imgs[0].Name != "camera__screenshot image 1" ||
		!bytes.Equal(imgs[1].Data, page) || imgs[1].MIME != "image/jpeg" || imgs[1].Name != "file:///page.jpg" {
		t.Errorf("images %+v", imgs)
	}
}

// TestMCPImageMovedAfterToolResult: through the runner, an MCP server's
// picture reaches the model in a user message right after the tool
// result, not inside it.
func TestMCPImageMovedAfterToolResult(t *testing.T) {
	shot := mediatest.PNG(32, 24)
	b, errs := connectTest(t, []ServerConfig{{Name: "camera", Command: "in-memory", Trusted: true}},
		inMemory(t, map[string]*sdk.Server{"camera": cameraServer(shot, mediatest.JPEG(16, 16))}))
	if len(errs) > 0 {
		t.Fatal(errorsText(errs))
	}
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	model.Enqueue(llmtest.ToolCall("c1", "camera__screenshot", `{}`), llmtest.Text("The dashboard is green."))
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sid, err := db.SessionFor(t.Context(), chat.Thread{Platform: "console", Chat: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	r := &agent.Runner{RunnerConfig: agent.RunnerConfig{
		Provider: openai.New(openai.Config{APIKey: "k", BaseURL: model.OpenAIBaseURL()}),
		Sessions: db, Memory: db, Tools: b.Tools(), Logger: slog.New(slog.DiscardHandler),
	}}
	if _, err := r.RunSync(t.Context(), agent.Turn{SessionID: sid, Caller: agent.Caller{UserKey: "console:ana"}, Text: "how does the dashboard look?"}); err != nil {
		t.Fatal(err)
	}
	req := model.Requests()[1]
	msgs := req.JSON["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	before := msgs[len(msgs)-2].(map[string]any)
	if before["role"] != "tool" || last["role"] != "user" {
		t.Fatalf("the last two messages are %v and %v: want the tool result, then the pictures", before["role"], last["role"])
	}
	imgs := req.Images()
	if len(imgs) != 2 || imgs[0].Message != len(msgs)-1 || !bytes.Equal(imgs[0].Data, shot) {
		t.Fatalf("images %+v: want both pictures in the last message", imgs)
	}
	if _, isString := before["content"].(string); !isString {
		t.Errorf("the tool result holds more than text: %v", before["content"])
	}
}
