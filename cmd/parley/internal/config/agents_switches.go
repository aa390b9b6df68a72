package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/parleybot/parley/internal/lazyre"
)

// The switches of an agent (agents.<name>.kb, evolution, memory,
// reminders) and the check of every agent's keys, with the key meant for
// a misspelt one.

// scopeKey is one scope's stored form as kb.scopes may name it: the
// operator's is named by its kind.
var scopeKey = lazyre.MustCompile(`^(space|person):[a-z]+:[^:\s]+$`)

// scopeKinds are the kinds kb.scopes may name.
var scopeKinds = []string{"operator", "space", "person"}

// ToolsOff are the tools the agent's switches take away, whatever its
// tools list says: memory: false the memory tool, reminders: false
// remind and schedule, evolution: false skill_read, kb.scopes: []
// kb_search.
func (a AgentSettings) ToolsOff() []string {
	var off []string
	if !a.Remembers() {
		off = append(off, "memory")
	}
	if a.KB != nil && a.KB.Scopes != nil && len(a.KB.Scopes) == 0 {
		off = append(off, "kb_search")
	}
	if !a.Evolves() {
		off = append(off, "skill_read")
	}
	if !a.Reminds() {
		off = append(off, "remind", "schedule")
	}
	return off
}

// switchProblems are what is wrong with agent key's switches: a scope
// that is no kind or key, or a switch turned on whose feature is off.
func (c *Config) switchProblems(key string, a AgentSettings) []string {
	var p []string
	for i, s := range a.KBScopes() {
		switch {
		case !slices.Contains(scopeKinds, s) && !scopeKey().MatchString(s):
			p = append(p, fmt.Sprintf("%s.kb.scopes[%d]: %q is no scope; want operator, space, person, or a scope's key such as space:slack:T012", key, i, Quiet(s)))
		case slices.Index(a.KB.Scopes, s) < i:
			p = append(p, fmt.Sprintf("%s.kb.scopes[%d]: the same scope as %s.kb.scopes[%d]", key, i, key, slices.Index(a.KB.Scopes, s)))
		}
	}
	if a.Evolution != nil && *a.Evolution && !c.Evolution.Enabled {
		p = append(p, key+".evolution: true needs learning from use on (evolution.enabled: true); an agent's switch only turns off")
	}
	if a.Reminders != nil && *a.Reminders && !c.Reminders.Enabled {
		p = append(p, key+".reminders: true needs reminders on (reminders.enabled: true); an agent's switch only turns off")
	}
	return p
}

// UnmarshalJSON decodes the agents, reporting each unknown key under its
// agent with the key meant ("agents.eng.memroy: unknown key; did you
// mean memory?"), as unknownKeys does the rest of the file.
func (a *Agents) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Agents, len(raw))
	var problems keyProblems
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		key := "agents." + shownKey(name)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw[name], &fields); err != nil || fields == nil {
			problems = append(problems, fmt.Sprintf("%s: want a mapping of keys (persona, model, tools, …), got %s", key, jsonShape(raw[name])))
			continue
		}
		problems = append(problems, unknownFields(key, fields, reflect.TypeFor[AgentSettings]())...)
		var s AgentSettings
		dec := json.NewDecoder(bytes.NewReader(raw[name]))
		if err := dec.Decode(&s); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", key, err))
		}
		out[name] = s
	}
	*a = out
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// unknownFields are fields's keys that struct t has no JSON field for,
// each with the nearest it has, looking into the mappings of struct
// fields (kb.scopes).
func unknownFields(key string, fields map[string]json.RawMessage, t reflect.Type) []string {
	known := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			known[name] = f.Type
		}
	}
	names := slices.Sorted(maps.Keys(known))
	var p []string
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		ft, ok := known[f]
		if !ok {
			if near, found := nearest(f, names); found {
				p = append(p, fmt.Sprintf("%s.%s: unknown key; did you mean %s? (config.example.yaml lists every key)", key, shownKey(f), near))
			} else {
				p = append(p, fmt.Sprintf("%s.%s: unknown key; want %s", key, shownKey(f), orList(names, "or")))
			}
			continue
		}
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			var sub map[string]json.RawMessage
			if json.Unmarshal(fields[f], &sub) == nil {
				p = append(p, unknownFields(key+"."+f, sub, ft.Elem())...)
			}
		}
	}
	return p
}
