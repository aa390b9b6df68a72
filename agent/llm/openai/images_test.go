package openai

import (
	"bytes"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestImagesAsDataURLs: a user message's images go after its text as
// image_url parts with data URLs, byte for byte; one whose bytes are gone
// becomes its placeholder text; a message without images stays a string.
func TestImagesAsDataURLs(t *testing.T) {
	srv := newServer(t, llmtest.Text("ok"))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	req := llm.Request{Model: "gpt-test", Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "plain"},
		{Role: llm.RoleAssistant, Text: "ok"},
		{Role: llm.RoleUser, Text: "what is on these?", Images: []llm.Image{
			{MIME: "image/png", Data: png, Name: "a.png"},
			{MIME: "image/jpeg", Name: "gone.jpg", Width: 10, Height: 20},
		}},
	}}
	if _, err := llm.Collect(p.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	imgs := got.Images()
	if len(imgs) != 1 {
		t.Fatalf("images %+v, want the one with bytes", imgs)
	}
	img := imgs[0]
	if img.Message != 2 || img.Role != "user" || img.MIME != "image/png" || !bytes.Equal(img.Data, png) ||
		img.Detail != "auto" || img.Problem != "" || img.Before != "what is on these?" {
		t.Errorf("image %+v", img)
	}
	msgs := got.JSON["messages"].([]any)
	if c, ok := msgs[0].(map[string]any)["content"].(string); !ok || c != "plain" {
		t.Errorf("a message without images is not a plain string: %#v", msgs[0])
	}
	if text := got.LastUserText(); text != "what is on these?[image gone.jpg, 10×20: no longer available]" {
		t.Errorf("user text %q", text)
	}
}
