package openai

import (
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// BenchmarkStream measures one streamed answer of 50 text chunks, end to
// end through the SDK and the in-process fake (whose own cost is included:
// see llmtest's BenchmarkServer for it alone).
func BenchmarkStream(b *testing.B) {
	chunks := strings.Fields(strings.Repeat("lorem ipsum dolor sit amet ", 10))
	srv := llmtest.NewServer(llmtest.WithResponder(func(llmtest.Request) llmtest.Reply {
		return llmtest.Text(chunks...)
	}))
	defer srv.Close()
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := llm.Collect(p.Stream(b.Context(), hello)); err != nil {
			b.Fatal(err)
		}
	}
}
