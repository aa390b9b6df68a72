package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestFlatten(t *testing.T) {
	size := int64(10)
	tests := []struct {
		name    string
		content []sdk.Content
		want    string
	}{
		{"nothing", nil, ""},
		{"texts joined", []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}, "a\nb"},
		{"image", []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 12*1024)}}, "[image/png, 12 KB]"},
		{"image without type", []sdk.Content{&sdk.ImageContent{Data: make([]byte, 100)}}, "[image, 100 B]"},
		{"audio", []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 3*1024*1024/2)}}, "[audio/wav, 1.5 MB]"},
		{"resource link", []sdk.Content{&sdk.ResourceLink{URI: "file:///x", Name: "x", Size: &size}}, "[resource file:///x]"},
		{"text resource", []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.go", Text: "package a"}}},
			"[resource file:///a.go]\npackage a"},
		{"blob resource", []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.zip", MIMEType: "application/zip", Blob: make([]byte, 2048)}}},
			"[resource file:///a.zip, application/zip, 2 KB]"},
		{"empty resource", []sdk.Content{&sdk.EmbeddedResource{}}, "[resource]"},
		{"other", []sdk.Content{&sdk.ToolUseContent{Name: "x"}}, "[unsupported content]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := flatten(tc.content); got != tc.want {
				t.Errorf("flatten = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResultText(t *testing.T) {
	res := &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: `{"n": 1}`}},
		StructuredContent: map[string]any{"n": 1},
	}
	if got, err := resultText(res); err != nil || got != `{"n":1}` {
		t.Errorf("resultText = %q, %v", got, err)
	}
	res.StructuredContent = nil
	if got, _ := resultText(res); got != `{"n": 1}` {
		t.Errorf("resultText without structured content = %q", got)
	}
	if got := errorText(&sdk.CallToolResult{IsError: true}); got != "the tool failed without saying why" {
		t.Errorf("errorText = %q", got)
	}
	if got := errorText(&sdk.CallToolResult{IsError: true, StructuredContent: map[string]any{"code": 3}}); got != `{"code":3}` {
		t.Errorf("errorText = %q", got)
	}
}
