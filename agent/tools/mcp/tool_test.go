package mcp

import (
	"encoding/json"
	"log/slog"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Schemas as servers publish them must resolve for validation, whatever
// draft and ref style they use.
func TestNewToolValidatesWithOriginalSchema(t *testing.T) {
	tests := []struct {
		name, schema, valid, invalid string
	}{
		{
			"draft-07 with definitions",
			`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"U":{"enum":["c","f"]}},
				"type":"object","properties":{"unit":{"$ref":"#/definitions/U"}},"required":["unit"],"additionalProperties":false}`,
			`{"unit":"c"}`, `{"unit":"k"}`,
		},
		{
			"zod pointer into properties",
			`{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"$ref":"#/properties/a"}}}`,
			`{"a":"x","b":"y"}`, `{"b":"toolong"}`,
		},
		{
			"pydantic $defs and nullable union",
			searchSchema,
			`{"query":"q","scope":null}`, `{"query":"q","scope":"all"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var schema any
			if err := json.Unmarshal([]byte(tc.schema), &schema); err != nil {
				t.Fatal(err)
			}
			tl, err := newTool(&server{name: "s"}, &sdk.Tool{Name: "t", InputSchema: schema}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if tl.validator == nil {
				t.Fatal("original schema did not resolve")
			}
			for arg, ok := range map[string]bool{tc.valid: true, tc.invalid: false} {
				var v any
				_ = json.Unmarshal([]byte(arg), &v)
				if err := tl.validator.Validate(v); (err == nil) != ok {
					t.Errorf("Validate(%s) = %v", arg, err)
				}
			}
		})
	}
}

// A schema the validator cannot resolve still gives a usable tool; the
// server checks the arguments itself.
func TestNewToolWithUnresolvableSchema(t *testing.T) {
	for _, schema := range []any{
		map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "https://example.com/x.json"}}},
		nil,
	} {
		tl, err := newTool(&server{name: "s"}, &sdk.Tool{Name: "t", InputSchema: schema}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatalf("newTool(%v): %v", schema, err)
		}
		if tl.validator != nil {
			t.Errorf("newTool(%v): validator set", schema)
		}
		var spec map[string]any
		if err := json.Unmarshal(tl.Spec().Schema, &spec); err != nil || spec["type"] != "object" {
			t.Errorf("newTool(%v): spec schema %s", schema, tl.Spec().Schema)
		}
	}
}
