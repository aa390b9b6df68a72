package anthropic

import (
	"bytes"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestImagesAsBlocks: a user message's images go after its text as base64
// image blocks, byte for byte; a message of images alone has no (empty,
// refused) text block; images after tool results stay in a user message
// of their own, which the API joins to the results' turn.
func TestImagesAsBlocks(t *testing.T) {
	srv := newServer(t, llmtest.Text("ok"))
	p := New(Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()})
	jpg := []byte("\xff\xd8\xff\xe0 not really")
	req := llm.Request{Model: "claude-test", Messages: []llm.Message{
		{Role: llm.RoleUser, Images: []llm.Image{{MIME: "image/jpeg", Data: jpg}}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("t1", "shot", `{}`)}},
		{Role: llm.RoleTool, ToolCallID: "t1", ToolName: "shot", Text: "[image/png, 1 KB]"},
		{Role: llm.RoleUser, Text: "[pictures from shot]", Images: []llm.Image{{MIME: "image/png", Data: []byte("png")}}},
	}}
	if _, err := llm.Collect(p.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	imgs := got.Images()
	if len(imgs) != 2 {
		t.Fatalf("images %+v", imgs)
	}
	if imgs[0].Message != 0 || imgs[0].Part != 0 || imgs[0].MIME != "image/jpeg" || !bytes.Equal(imgs[0].Data, jpg) {
		t.Errorf("first image %+v: want the only block of the first message", imgs[0])
	}
	if imgs[1].Message != 3 || imgs[1].Before != "[pictures from shot]" || string(imgs[1].Data) != "png" {
		t.Errorf("tool image %+v: want it after the text of the message after the results", imgs[1])
	}
}
