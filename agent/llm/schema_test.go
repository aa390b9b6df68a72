package llm

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sanitizeCases are tool schemas as real MCP servers publish them, plus
// the broken shapes the sanitizer exists for. They also seed the fuzzer.
var sanitizeCases = []struct {
	name string
	in   string
	want string
}{
	{
		name: "filesystem read_text_file (zod, draft-07)",
		in: `{"type":"object","properties":{"path":{"type":"string"},
			"tail":{"type":"number","description":"If provided, returns only the last N lines of the file"},
			"head":{"type":"number","description":"If provided, returns only the first N lines of the file"}},
			"required":["path"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
		want: `{"type":"object","properties":{"path":{"type":"string"},
			"tail":{"type":"number","description":"If provided, returns only the last N lines of the file"},
			"head":{"type":"number","description":"If provided, returns only the first N lines of the file"}},
			"required":["path"],"additionalProperties":false}`,
	},
	{
		name: "filesystem edit_file (nested objects untouched)",
		in: `{"type":"object","properties":{"path":{"type":"string"},
			"edits":{"type":"array","items":{"type":"object","properties":{
				"oldText":{"type":"string","description":"Text to search for - must match exactly"},
				"newText":{"type":"string","description":"Text to replace with"}},
				"required":["oldText","newText"],"additionalProperties":false}},
			"dryRun":{"type":"boolean","default":false,"description":"Preview changes using git-style diff format"}},
			"required":["path","edits"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
		want: `{"type":"object","properties":{"path":{"type":"string"},
			"edits":{"type":"array","items":{"type":"object","properties":{
				"oldText":{"type":"string","description":"Text to search for - must match exactly"},
				"newText":{"type":"string","description":"Text to replace with"}},
				"required":["oldText","newText"],"additionalProperties":false}},
			"dryRun":{"type":"boolean","default":false,"description":"Preview changes using git-style diff format"}},
			"required":["path","edits"],"additionalProperties":false}`,
	},
	{
		name: "filesystem list_allowed_directories (no properties)",
		in:   `{"type":"object","$schema":"http://json-schema.org/draft-07/schema#"}`,
		want: `{"type":"object","properties":{}}`,
	},
	{
		name: "GitHub create_issue (Go server, nullable type arrays)",
		in: `{"type":"object","properties":{"owner":{"type":"string","description":"Repository owner"},
			"repo":{"type":"string","description":"Repository name"},
			"title":{"type":"string","description":"Issue title"},
			"body":{"type":["string","null"],"description":"Issue body content"},
			"labels":{"type":["array","null"],"items":{"type":"string"},"description":"Labels to apply"},
			"milestone":{"type":["number","null"],"default":null,"minimum":1}},
			"required":["owner","repo","title","assignee"]}`,
		want: `{"type":"object","properties":{"owner":{"type":"string","description":"Repository owner"},
			"repo":{"type":"string","description":"Repository name"},
			"title":{"type":"string","description":"Issue title"},
			"body":{"type":"string","description":"Issue body content"},
			"labels":{"type":"array","items":{"type":"string"},"description":"Labels to apply"},
			"milestone":{"type":"number","minimum":1}},
			"required":["owner","repo","title"]}`,
	},
	{
		name: "GitHub push_files (zod reuses a schema via a properties pointer)",
		in: `{"type":"object","properties":{
			"base":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]},
			"files":{"type":"array","items":{"$ref":"#/properties/base","default":{"path":"a"}},"description":"Files to push"}},
			"required":["files"],"$schema":"http://json-schema.org/draft-07/schema#"}`,
		want: `{"type":"object","properties":{
			"base":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]},
			"files":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]},"description":"Files to push"}},
			"required":["files"]}`,
	},
	{
		name: "pydantic (FastMCP) with $defs, anyOf-null and defaults",
		in: `{"$defs":{
				"Priority":{"enum":["low","high"],"title":"Priority","type":"string"},
				"Address":{"properties":{"street":{"title":"Street","type":"string"},
					"city":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"City"}},
					"required":["street"],"title":"Address","type":"object"}},
			"properties":{
				"name":{"title":"Name","type":"string"},
				"priority":{"$ref":"#/$defs/Priority","default":"low"},
				"address":{"anyOf":[{"$ref":"#/$defs/Address"},{"type":"null"}],"default":null,"description":"Where to ship"},
				"tags":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}],"default":null,"title":"Tags"},
				"mode":{"anyOf":[{"enum":["fast","slow",null]},{"type":"null"}]}},
			"required":["name"],"title":"create_orderArguments","type":"object"}`,
		want: `{"properties":{
				"name":{"title":"Name","type":"string"},
				"priority":{"enum":["low","high"],"title":"Priority","type":"string"},
				"address":{"description":"Where to ship","properties":{"street":{"title":"Street","type":"string"},
					"city":{"title":"City","type":"string"}},"required":["street"],"title":"Address","type":"object"},
				"tags":{"title":"Tags","items":{"type":"string"},"type":"array"},
				"mode":{"enum":["fast","slow"]}},
			"required":["name"],"title":"create_orderArguments","type":"object"}`,
	},
	{
		name: "pydantic recursive model: the cycle is cut",
		in: `{"$defs":{"Node":{"properties":{"name":{"type":"string"},
				"children":{"items":{"$ref":"#/$defs/Node"},"type":"array"}},"required":["name"],"type":"object"}},
			"properties":{"root":{"$ref":"#/$defs/Node"}},"required":["root"],"type":"object"}`,
		want: `{"properties":{"root":{"properties":{"name":{"type":"string"},
				"children":{"items":{},"type":"array"}},"required":["name"],"type":"object"}},
			"required":["root"],"type":"object"}`,
	},
	{
		name: "draft-07 definitions, oneOf with null, description beside $ref",
		in: `{"definitions":{"Unit":{"type":"string","enum":["c","f"],"description":"generic"}},
			"type":"object","properties":{"unit":{"oneOf":[{"$ref":"#/definitions/Unit","description":"temperature unit"},{"type":"null"}]}}}`,
		want: `{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"],"description":"temperature unit"}}}`,
	},
	{
		name: "top-level $ref to the arguments object",
		in:   `{"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}`,
		want: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
	},
	{
		name: "multi-type arrays become anyOf with their own keywords",
		in: `{"type":"object","properties":{"id":{"type":["string","integer","null"],"description":"name or number",
			"minLength":1,"minimum":0,"default":null}}}`,
		want: `{"type":"object","properties":{"id":{"description":"name or number",
			"anyOf":[{"type":"string","minLength":1},{"type":"integer","minimum":0}]}}}`,
	},
	{
		name: "multi-type next to an existing anyOf keeps both",
		in:   `{"type":"object","properties":{"x":{"type":["string","number"],"anyOf":[{"minLength":2},{"minimum":3}]}}}`,
		want: `{"type":"object","properties":{"x":{"allOf":[{"anyOf":[{"minLength":2},{"minimum":3}]}],
			"anyOf":[{"type":"string"},{"type":"number"}]}}}`,
	},
	{
		name: "real unions stay, minus null",
		in:   `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}}}`,
		want: `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`,
	},
	{
		name: "bare-string schemas are repaired",
		in: `{"type":"object","properties":{"meta":{"type":"object","additionalProperties":"object"},
			"list":{"type":"array","items":"string"},"odd":"whatever"}}`,
		want: `{"type":"object","properties":{"meta":{"type":"object","additionalProperties":{"type":"object"}},
			"list":{"type":"array","items":{"type":"string"}},"odd":{}}}`,
	},
	{
		name: "required without properties, duplicates and non-strings",
		in:   `{"type":"object","properties":{"a":{"type":"string","required":true}},"required":["a","a",7,"b"]}`,
		want: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
	},
	{
		name: "remote, anchor and dangling refs become {}",
		in: `{"type":"object","properties":{"r":{"$ref":"https://example.com/s.json#/x"},
			"a":{"$ref":"#thing"},"d":{"$ref":"#/$defs/Missing"},"n":{"$ref":7}}}`,
		want: `{"type":"object","properties":{"r":{},"a":{},"d":{},"n":{}}}`,
	},
	{
		name: "ref to the root is recursion",
		in:   `{"type":"object","properties":{"self":{"$ref":"#"}}}`,
		want: `{"type":"object","properties":{"self":{}}}`,
	},
	{
		name: "property names that look like keywords are left alone",
		in:   `{"type":"object","properties":{"$ref":{"type":"string"},"$schema":{"type":"string"},"type":{"type":"string"}},"required":["$ref","type"]}`,
		want: `{"type":"object","properties":{"$ref":{"type":"string"},"$schema":{"type":"string"},"type":{"type":"string"}},"required":["$ref","type"]}`,
	},
	{
		name: "escaped pointer tokens",
		in:   `{"type":"object","properties":{"a/b":{"type":"integer"},"c":{"$ref":"#/properties/a~1b"},"d":{"$ref":"#/properties/a%7E1b"}}}`,
		want: `{"type":"object","properties":{"a/b":{"type":"integer"},"c":{"type":"integer"},"d":{"type":"integer"}}}`,
	},
	{
		name: "no type at the top",
		in:   `{"properties":{"q":{"type":"string"}}}`,
		want: `{"type":"object","properties":{"q":{"type":"string"}}}`,
	},
	{
		name: "nullable object at the top",
		in:   `{"type":["object","null"],"properties":{"q":{"type":"string"}}}`,
		want: `{"type":"object","properties":{"q":{"type":"string"}}}`,
	},
	{
		name: "wrong type at the top",
		in:   `{"type":"string","description":"a query"}`,
		want: `{"type":"object","description":"a query","properties":{}}`,
	},
	{name: "empty object", in: `{}`, want: `{"type":"object","properties":{}}`},
	{name: "empty input", in: ``, want: `{"type":"object","properties":{}}`},
	{name: "null", in: `null`, want: `{"type":"object","properties":{}}`},
	{name: "true", in: `true`, want: `{"type":"object","properties":{}}`},
	{name: "bare string", in: `"object"`, want: `{"type":"object","properties":{}}`},
	{name: "array", in: `[1,2]`, want: `{"type":"object","properties":{}}`},
	{
		name: "boolean subschemas stay",
		in:   `{"type":"object","properties":{"any":true,"none":false},"additionalProperties":false}`,
		want: `{"type":"object","properties":{"any":true,"none":false},"additionalProperties":false}`,
	},
	{
		name: "null where a schema should be",
		in:   `{"type":"object","properties":{"a":null,"b":{"type":"array","items":null}},"additionalProperties":null}`,
		want: `{"type":"object","properties":{"a":{},"b":{"type":"array"}}}`,
	},
}

func TestSanitizeSchema(t *testing.T) {
	for _, tc := range sanitizeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SanitizeSchema(json.RawMessage(tc.in))
			if err != nil {
				t.Fatalf("SanitizeSchema: %v", err)
			}
			if diff := cmp.Diff(decodeJSON(t, tc.want), decodeJSON(t, string(got))); diff != "" {
				t.Errorf("schema mismatch (-want +got):\n%s\ngot: %s", diff, got)
			}
			again, err := SanitizeSchema(got)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("not idempotent:\n first: %s\nsecond: %s (err %v)", got, again, err)
			}
		})
	}
}

func TestSanitizeSchemaKeepsOrderAndText(t *testing.T) {
	in := `{"$schema":"x","type":"object","properties":{"zeta":{"type":"string","description":"a <b> & c"},` +
		`"alpha":{"type":"integer","maximum":9007199254740993}},"required":["zeta"]}`
	want := `{"type":"object","properties":{"zeta":{"type":"string","description":"a <b> & c"},` +
		`"alpha":{"type":"integer","maximum":9007199254740993}},"required":["zeta"]}`
	got, err := SanitizeSchema(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestSanitizeSchemaDoesNotTouchInput(t *testing.T) {
	in := []byte(sanitizeCases[5].in)
	orig := bytes.Clone(in)
	if _, err := SanitizeSchema(in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, orig) {
		t.Error("input was modified")
	}
}

func TestSanitizeSchemaRejectsNonJSON(t *testing.T) {
	for _, in := range []string{`{`, `{"type":}`, `{} {}`, `{"a":1]`, strings.Repeat("[", 2000) + strings.Repeat("]", 2000)} {
		if out, err := SanitizeSchema(json.RawMessage(in)); err == nil {
			t.Errorf("SanitizeSchema(%.40q) = %s, want an error", in, out)
		}
	}
}

// Definitions that each use the next one twice would expand to 2^30
// copies; the budget keeps the result small.
func TestSanitizeSchemaBoundsExpansion(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range 30 {
		if i > 0 {
			b.WriteByte(',')
		}
		next := `{"type":"string"}`
		if i < 29 {
			next = `{"$ref":"#/$defs/d` + itoa(i+1) + `"}`
		}
		b.WriteString(`"d` + itoa(i) + `":{"type":"object","properties":{"l":` + next + `,"r":` + next + `}}`)
	}
	b.WriteString(`}}`)
	got, err := SanitizeSchema(json.RawMessage(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 2<<20 {
		t.Errorf("expanded to %d bytes", len(got))
	}
	checkObjectSchema(t, got)
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

func TestSanitizeToolName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	long := strings.Repeat("x", 70)
	tests := []struct{ in, want string }{
		{"read_file", "read_file"},
		{"files__read_file", "files__read_file"},
		{"get-issue", "get-issue"},
		{"github.search repos", "github_search_repos"},
		{"café/ünïcode", "caf___n_code"},
		{"", "_"},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
	}
	for _, tc := range tests {
		if got := SanitizeToolName(tc.in); got != tc.want {
			t.Errorf("SanitizeToolName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	a, b := SanitizeToolName(long+"a"), SanitizeToolName(long+"b")
	for _, n := range []string{a, b} {
		if !valid.MatchString(n) || len(n) != 64 || !strings.HasPrefix(n, strings.Repeat("x", 55)+"_") {
			t.Errorf("long name shortened to %q", n)
		}
	}
	if a == b {
		t.Errorf("two long names collide: %q", a)
	}
	if SanitizeToolName(long+"a") != a {
		t.Error("shortening is not stable")
	}
}

func FuzzSanitizeSchema(f *testing.F) {
	for _, tc := range sanitizeCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := SanitizeSchema(in)
		if err != nil {
			if json.Valid(in) && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("valid JSON %q rejected: %v", in, err)
			}
			return
		}
		checkObjectSchema(t, out)
		// A second pass finds nothing more to do, unless inlining made
		// the first result too deep to read back.
		again, err := SanitizeSchema(out)
		if err == nil && !bytes.Equal(again, out) {
			t.Fatalf("not idempotent for %q:\n first: %s\nsecond: %s", in, out, again)
		}
	})
}

func FuzzSanitizeToolName(f *testing.F) {
	f.Add("files__read_file")
	f.Add(strings.Repeat("é", 40))
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	f.Fuzz(func(t *testing.T, name string) {
		if got := SanitizeToolName(name); !valid.MatchString(got) {
			t.Fatalf("SanitizeToolName(%q) = %q", name, got)
		}
	})
}

// checkObjectSchema asserts the one promise every output keeps.
func checkObjectSchema(t *testing.T, out []byte) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("output %s is not a JSON object: %v", out, err)
	}
	if m["type"] != "object" {
		t.Fatalf("output %s: type is %v", out, m["type"])
	}
	if _, ok := m["properties"].(map[string]any); !ok {
		t.Fatalf("output %s: properties is %T", out, m["properties"])
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}
