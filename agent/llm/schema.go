package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Limits that keep a hostile or broken schema (MCP servers publish whatever
// they like) from exhausting the stack or memory.
const (
	// maxSchemaNesting bounds JSON nesting of the input; real tool schemas
	// stay far below it.
	maxSchemaNesting = 1000
	// maxRefDepth bounds refs inlined inside refs.
	maxRefDepth = 32
	// maxInlinedNodes bounds the schema nodes copied by inlining, so a
	// small schema whose definitions refer to each other several times
	// cannot expand exponentially. Refs met after the budget is spent
	// become {}.
	maxInlinedNodes = 10000
)

// SanitizeSchema rewrites a tool's input schema into the shape every
// provider accepts. It works on a copy, and the result is meant only for
// the model: arguments are still validated against the original schema,
// because the rewrite loosens some constraints (it drops $ref siblings and
// unknowable required names).
//
// The rules:
//   - the top level is {"type":"object","properties":{…}};
//   - $schema goes; local $refs (#/$defs/…, #/definitions/…, any JSON
//     pointer) are inlined and $defs/definitions dropped; siblings of a $ref
//     go too, except a description, which is contextual and harmless;
//     recursive, remote or unresolvable refs become {};
//   - required names missing from properties are dropped;
//   - bare-string schemas ("additionalProperties": "object") become
//     {"type":"object"};
//   - null is removed from unions: anyOf/oneOf [X, {type: null}] and
//     type [X, "null"] become X (with default: null and null enum members
//     gone), because Anthropic rejects the null branch and many backends
//     take a single type;
//   - remaining multi-type arrays become anyOf of single types, each with
//     the keywords that apply to it.
//
// Object keys keep their order, so the model reads properties as the
// author wrote them and the bytes are stable for prompt caching. An empty
// input gives the empty object schema; only input that is not JSON (or is
// absurdly deep) is an error.
func SanitizeSchema(schema json.RawMessage) (json.RawMessage, error) {
	var top *object
	if len(bytes.TrimSpace(schema)) > 0 {
		v, err := decodeOrdered(schema)
		if err != nil {
			return nil, fmt.Errorf("sanitize schema: %w", err)
		}
		s := &sanitizer{root: v, stack: []string{"#"}}
		top, _ = s.schema(v).(*object)
	}
	if top == nil {
		top = newObject()
	}
	// Tool arguments are always an object, whatever the schema claimed.
	if t, ok := top.get("type"); !ok {
		top.prepend("type", "object")
	} else if t != "object" {
		top.set("type", "object")
	}
	if _, ok := top.val("properties").(*object); !ok {
		top.set("properties", newObject())
	}
	var buf bytes.Buffer
	encodeOrdered(&buf, top)
	return buf.Bytes(), nil
}

// SanitizeToolName maps name onto ^[a-zA-Z0-9_-]{1,64}$, the strictest
// provider rule (OpenAI's), so one name works everywhere. Invalid characters
// become "_"; a name longer than 64 keeps its head and ends in a short hash
// of the whole original, so two long names sharing a prefix stay distinct
// and the result is the same on every run.
func SanitizeToolName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	switch {
	case out == "":
		return "_"
	case len(out) <= 64:
		return out
	}
	sum := sha256.Sum256([]byte(name))
	return out[:55] + "_" + hex.EncodeToString(sum[:4])
}

// sanitizer walks one schema. root is the decoded input, against which
// refs resolve; stack holds the refs being inlined, outermost first ("#"
// for the root itself, so a ref to the root counts as recursion).
type sanitizer struct {
	root    any
	stack   []string
	inlined int
}

// schema returns a sanitized copy of v, which stands where a schema is
// expected.
func (s *sanitizer) schema(v any) any {
	if len(s.stack) > 1 {
		s.inlined++
	}
	switch v := v.(type) {
	case *object:
		return s.object(v)
	case bool:
		return v
	case string:
		return bareType(v)
	default:
		// null, a number or an array is no schema; {} accepts anything,
		// which is the most the model can be told.
		return newObject()
	}
}

// bareType repairs a schema written as a type name.
func bareType(name string) *object {
	o := newObject()
	switch name {
	case "object", "array", "string", "number", "integer", "boolean", "null":
		o.set("type", name)
	}
	return o
}

func (s *sanitizer) object(in *object) any {
	if ref, ok := in.get("$ref"); ok {
		out := s.ref(ref)
		if d, ok := in.get("description"); ok {
			if o, ok := out.(*object); ok {
				o.set("description", d)
			}
		}
		return out
	}
	out := newObject()
	for _, k := range in.keys {
		v := in.vals[k]
		switch k {
		case "$schema", "$defs", "definitions":
			// Meaningless to a model once refs are inlined.
		case "properties", "patternProperties", "dependentSchemas":
			out.set(k, s.schemaMap(v))
		case "items":
			switch v := v.(type) {
			case nil:
			case []any: // draft-07 tuple form
				out.set(k, s.schemaList(v))
			default:
				out.set(k, s.schema(v))
			}
		case "additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems",
			"contains", "propertyNames", "not", "if", "then", "else", "contentSchema":
			if v != nil {
				out.set(k, s.schema(v))
			}
		case "anyOf", "oneOf", "allOf", "prefixItems":
			if list, ok := v.([]any); ok {
				out.set(k, s.schemaList(list))
			}
		case "dependencies":
			out.set(k, s.dependencies(v))
		default:
			// Not a schema (enum, const, default, description, …): kept
			// as is. Such values may be shared between copies of an
			// inlined definition, so nothing below edits them in place.
			out.set(k, v)
		}
	}
	stripped := collapseNull(out)
	flattenSingle(out, "allOf")
	if stripped {
		dropNullValues(out)
	}
	filterRequired(out)
	splitTypes(out)
	return out
}

// ref inlines a local reference.
func (s *sanitizer) ref(v any) any {
	r, ok := v.(string)
	if !ok || !strings.HasPrefix(r, "#") || slices.Contains(s.stack, r) ||
		len(s.stack) > maxRefDepth || s.inlined > maxInlinedNodes {
		// Remote, recursive or too costly: {} at least keeps the schema
		// valid, and the original schema still validates the arguments.
		return newObject()
	}
	target, ok := resolvePointer(s.root, r[1:])
	if !ok {
		return newObject()
	}
	s.stack = append(s.stack, r)
	defer func() { s.stack = s.stack[:len(s.stack)-1] }()
	return s.schema(target)
}

func (s *sanitizer) schemaMap(v any) *object {
	out := newObject()
	in, ok := v.(*object)
	if !ok {
		return out
	}
	for _, k := range in.keys {
		out.set(k, s.schema(in.vals[k]))
	}
	return out
}

func (s *sanitizer) schemaList(in []any) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = s.schema(v)
	}
	return out
}

// dependencies handles draft-07's keyword, whose values are either schemas
// or lists of property names.
func (s *sanitizer) dependencies(v any) any {
	in, ok := v.(*object)
	if !ok {
		return v
	}
	out := newObject()
	for _, k := range in.keys {
		if list, ok := in.vals[k].([]any); ok {
			out.set(k, list)
		} else {
			out.set(k, s.schema(in.vals[k]))
		}
	}
	return out
}

// resolvePointer follows the JSON pointer of a "#…" ref. Anchors ("#name")
// are not supported.
func resolvePointer(root any, fragment string) (any, bool) {
	if p, err := url.PathUnescape(fragment); err == nil {
		fragment = p
	}
	if fragment == "" {
		return root, true
	}
	if !strings.HasPrefix(fragment, "/") {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(fragment[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case *object:
			v, ok := c.get(tok)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// collapseNull removes null from the type list and from anyOf/oneOf, and
// reports whether it removed anything. A union left with one branch is
// merged into its parent.
func collapseNull(o *object) bool {
	stripped := false
	if list, ok := o.val("type").([]any); ok {
		var kept []any
		hadNull := false
		for _, t := range list {
			name, ok := t.(string)
			switch {
			case !ok || slices.Contains(kept, t):
			case name == "null":
				hadNull = true
			default:
				kept = append(kept, name)
			}
		}
		stripped = hadNull
		switch {
		case len(kept) == 0 && hadNull:
			o.set("type", "null")
		case len(kept) == 0:
			o.del("type")
		case len(kept) == 1:
			o.set("type", kept[0])
		default:
			o.set("type", kept)
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		list, ok := o.val(key).([]any)
		if !ok {
			continue
		}
		kept := make([]any, 0, len(list))
		for _, b := range list {
			if !isNullSchema(b) {
				kept = append(kept, b)
			}
		}
		if len(kept) < len(list) {
			stripped = true
		}
		if len(kept) == 0 {
			// Only null was allowed: say so plainly.
			o.del(key)
			if _, ok := o.get("type"); !ok {
				o.set("type", "null")
			}
			continue
		}
		o.set(key, kept)
		flattenSingle(o, key)
	}
	return stripped
}

// isNullSchema reports whether b accepts only null.
func isNullSchema(b any) bool {
	o, ok := b.(*object)
	if !ok {
		return false
	}
	switch t := o.val("type").(type) {
	case string:
		return t == "null"
	case []any:
		return len(t) == 1 && t[0] == "null"
	}
	if c, ok := o.get("const"); ok && c == nil {
		return true
	}
	if e, ok := o.val("enum").([]any); ok && len(e) == 1 && e[0] == nil {
		return true
	}
	return false
}

// flattenSingle merges the only branch of o[key] into o when nothing
// conflicts: a one-branch union is just that branch, and single types are
// what weaker backends understand.
func flattenSingle(o *object, key string) {
	list, ok := o.val(key).([]any)
	if !ok || len(list) != 1 {
		return
	}
	b, ok := list[0].(*object)
	if !ok {
		return
	}
	for _, k := range b.keys {
		if pv, ok := o.get(k); ok && !isAnnotation(k) && !sameScalar(pv, b.vals[k]) {
			return
		}
	}
	o.del(key)
	for _, k := range b.keys {
		// The parent's annotations describe this use, so they win.
		if _, ok := o.get(k); !ok {
			o.set(k, b.vals[k])
		}
	}
}

func isAnnotation(keyword string) bool {
	switch keyword {
	case "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly":
		return true
	}
	return false
}

func sameScalar(a, b any) bool {
	switch a.(type) {
	case string, bool, json.Number, nil:
		return a == b
	}
	return false
}

// dropNullValues removes what referred to the null branch that is gone.
func dropNullValues(o *object) {
	if d, ok := o.get("default"); ok && d == nil {
		o.del("default")
	}
	if list, ok := o.val("enum").([]any); ok {
		kept := make([]any, 0, len(list))
		for _, v := range list {
			if v != nil {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			o.del("enum")
		} else {
			o.set("enum", kept)
		}
	}
}

// filterRequired keeps the required names that properties defines, once
// each; a model cannot supply a property it was never shown.
func filterRequired(o *object) {
	req, ok := o.get("required")
	if !ok {
		return
	}
	list, _ := req.([]any)
	props, _ := o.val("properties").(*object)
	var kept []any
	for _, v := range list {
		name, ok := v.(string)
		if !ok || props == nil || slices.Contains(kept, v) {
			continue
		}
		if _, ok := props.get(name); ok {
			kept = append(kept, name)
		}
	}
	if len(kept) == 0 {
		o.del("required")
	} else {
		o.set("required", kept)
	}
}

// splitTypes turns "type": [A, B] into anyOf [{type: A, …}, {type: B, …}],
// moving each type's own keywords into its branch.
func splitTypes(o *object) {
	types, ok := o.val("type").([]any)
	if !ok || len(types) < 2 {
		return
	}
	branches := make([]any, 0, len(types))
	var moved []string
	for _, t := range types {
		name, _ := t.(string)
		b := newObject()
		b.set("type", name)
		for _, k := range o.keys {
			if appliesTo(k, name) {
				b.set(k, o.vals[k])
				if !slices.Contains(moved, k) {
					moved = append(moved, k)
				}
			}
		}
		branches = append(branches, b)
	}
	for _, k := range moved {
		o.del(k)
	}
	o.del("type")
	if existing, ok := o.get("anyOf"); ok {
		// Both must hold: keep the old union as a conjunct.
		all, _ := o.val("allOf").([]any)
		extra := newObject()
		extra.set("anyOf", existing)
		o.set("allOf", append(slices.Clip(all), extra))
	}
	o.set("anyOf", branches)
}

// appliesTo reports whether keyword constrains values of type typ.
func appliesTo(keyword, typ string) bool {
	switch keyword {
	case "minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType":
		return typ == "string"
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return typ == "number" || typ == "integer"
	case "items", "prefixItems", "additionalItems", "unevaluatedItems", "minItems", "maxItems",
		"uniqueItems", "contains", "minContains", "maxContains":
		return typ == "array"
	case "properties", "required", "additionalProperties", "patternProperties", "unevaluatedProperties",
		"minProperties", "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies":
		return typ == "object"
	}
	return false
}
