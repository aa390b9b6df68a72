package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleybot/parley/agent/llm"
)

// resultText is what the model reads of a successful call. Structured
// content wins when present: it is the tool's exact answer, and servers
// usually repeat it, less precisely, as text.
func resultText(res *sdk.CallToolResult) (string, error) {
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return "", fmt.Errorf("structured content: %w", err)
		}
		return string(b), nil
	}
	return flatten(res.Content), nil
}

// errorText is what the model reads of a call the tool itself failed: the
// server's explanation, which is in the content.
func errorText(res *sdk.CallToolResult) string {
	if text := flatten(res.Content); text != "" {
		return text
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return "the tool failed without saying why"
}

// flatten turns content into text for a model that only takes text: text
// as is, everything else described in brackets, one item per line.
func flatten(content []sdk.Content) string {
	parts := make([]string, 0, len(content))
	for _, c := range content {
		if s := describe(c); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func describe(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[%s, %s]", orDefault(c.MIMEType, "image"), size(len(c.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[%s, %s]", orDefault(c.MIMEType, "audio"), size(len(c.Data)))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource %s]", c.URI)
	case *sdk.EmbeddedResource:
		r := c.Resource
		switch {
		case r == nil:
			return "[resource]"
		case r.Text != "":
			// A text resource is the answer itself (a file's contents,
			// say): the model needs the text, not a description.
			return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
		case len(r.Blob) > 0:
			return fmt.Sprintf("[resource %s, %s, %s]", r.URI, orDefault(r.MIMEType, "binary"), size(len(r.Blob)))
		}
		return fmt.Sprintf("[resource %s]", r.URI)
	case nil:
		return ""
	}
	return "[unsupported content]"
}

// images are the pictures in content: image content, and embedded
// resources whose blob is declared an image. What the bytes really are is
// for the runner to check (agent/media), not for the server to claim.
func images(tool string, content []sdk.Content) []llm.Image {
	var out []llm.Image
	for _, c := range content {
		switch c := c.(type) {
		case *sdk.ImageContent:
			if len(c.Data) > 0 {
				out = append(out, llm.Image{MIME: c.MIMEType, Data: c.Data, Name: fmt.Sprintf("%s image %d", tool, len(out)+1)})
			}
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil && len(r.Blob) > 0 && strings.HasPrefix(r.MIMEType, "image/") {
				out = append(out, llm.Image{MIME: r.MIMEType, Data: r.Blob, Name: r.URI})
			}
		}
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// size is a byte count for people: "512 B", "12 KB", "1.5 MB".
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
