package openai

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestFormat: a request's Format goes out as response_format json_schema,
// strict, with the schema verbatim; the JSON answer is Format.Answer.
func TestFormat(t *testing.T) {
	srv := newServer(t, llmtest.Text(`{"verdict":"safe"}`))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	f := &llm.Format{Name: "v", Description: "the verdict", Schema: json.RawMessage(`{"type":"object","properties":{"verdict":{"type":"string","enum":["safe","unsafe"]}},"required":["verdict"],"additionalProperties":false}`)}
	resp, err := llm.Collect(p.Stream(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Text: "?"}}, Format: f}))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Answer(resp); got != `{"verdict":"safe"}` {
		t.Errorf("answer %q", got)
	}
	req := srv.Requests()[0]
	want := decodeJSON(t, `{"type":"json_schema","json_schema":{"name":"v","description":"the verdict","strict":true,`+
		`"schema":{"type":"object","properties":{"verdict":{"type":"string","enum":["safe","unsafe"]}},"required":["verdict"],"additionalProperties":false}}}`)
	if diff := cmp.Diff(want, req.JSON["response_format"]); diff != "" {
		t.Errorf("response_format (-want +got):\n%s", diff)
	}
	if req.FormatName() != "v" {
		t.Errorf("FormatName %q", req.FormatName())
	}
}
