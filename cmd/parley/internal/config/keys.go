package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/viper"
)

// The keys: every leaf of Config and of each chat platform's section,
// and the keys of a file that are none of them.

// leaf is one configuration key and the struct field that holds it.
type leaf struct {
	key string // dotted, e.g. "llm.openai.api_key"
	env string // its environment variable (EnvVar)
	typ reflect.Type
	// field is the value holding the key in a Config with the same
	// platforms.
	field func(c *Config) reflect.Value
	// platform: the key is in a chat platform's section.
	platform bool
}

// leaves lists every key of c in declaration order, derived from the
// mapstructure tags so the structs are the single source of truth for key
// names, environment variables and the documentation test. Each chat
// platform's section comes where Config declares Platforms, and its allow
// lists where Access declares its own.
func (c *Config) leaves() []leaf {
	var out []leaf
	var walk func(t reflect.Type, prefix string, root func(*Config) reflect.Value, index []int, platform bool)
	walk = func(t reflect.Type, prefix string, root func(*Config) reflect.Value, index []int, platform bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			key := func(tag string) string {
				if prefix == "" {
					return tag
				}
				return prefix + "." + tag
			}
			switch f.Type {
			case reflect.TypeFor[[]Platform]():
				for n, p := range c.Platforms {
					section := func(c *Config) reflect.Value { return reflect.ValueOf(c.Platforms[n].Section).Elem() }
					walk(reflect.TypeOf(p.Section).Elem(), key(p.Name), section, nil, true)
				}
				continue
			case reflect.TypeFor[map[string]*AllowList]():
				for _, p := range c.Platforms {
					list := func(c *Config) reflect.Value { return reflect.ValueOf(c.Access.Platforms[p.Name]).Elem() }
					walk(reflect.TypeFor[AllowList](), key(p.Name), list, nil, false)
				}
				continue
			}
			tag := f.Tag.Get("mapstructure")
			if tag == "" || tag == "-" {
				continue
			}
			idx := append(slices.Clip(index), i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, key(tag), root, idx, platform)
				continue
			}
			out = append(out, leaf{key: key(tag), env: EnvVar(key(tag)), typ: f.Type, platform: platform,
				field: func(c *Config) reflect.Value { return root(c).FieldByIndex(idx) }})
		}
	}
	walk(reflect.TypeFor[Config](), "", func(c *Config) reflect.Value { return reflect.ValueOf(c).Elem() }, nil, false)
	return out
}

// unknownKeys reports keys in the file that are not among the leaves of
// Config, so a typo ("bot_tokn") is an error instead of a silently
// ignored setting. v is nil when the file set nothing.
func unknownKeys(all []leaf, v *viper.Viper) []string {
	if v == nil {
		return nil
	}
	known := map[string]bool{}    // leaf keys
	sections := map[string]bool{} // "llm", "llm.openai", …
	for _, l := range all {
		known[l.key] = true
		for k := l.key; ; {
			i := strings.LastIndexByte(k, '.')
			if i < 0 {
				break
			}
			k = k[:i]
			sections[k] = true
		}
	}
	var leaves []string
	for k := range known {
		leaves = append(leaves, k)
	}
	slices.Sort(leaves) // the nearest key found first wins ties
	keys := v.AllKeys()
	slices.Sort(keys) // AllKeys comes in map order; keep messages stable
	var problems []string
	for _, k := range keys {
		switch {
		case known[k]:
		case sections[k]:
			// A section with a scalar or list where a mapping belongs.
			// An empty section ("slack:" alone) is harmless.
			if raw := v.Get(k); raw != nil {
				problems = append(problems, fmt.Sprintf("%s: want a mapping of keys, got %s", shownKey(k), describe(raw)))
			}
		case underKnownLeaf(k, known):
			// The leaf holds a mapping; decode reports it as the wrong type.
		default:
			if near, ok := nearest(k, leaves); ok && shownKey(k) == k {
				problems = append(problems, fmt.Sprintf("%s: unknown key; did you mean %s? (config.example.yaml lists every key)", k, near))
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: unknown key (config.example.yaml lists every key)", shownKey(k)))
		}
	}
	return problems
}

// underKnownLeaf reports whether k lies inside a leaf key, as
// "slack.bot_token.x" does when bot_token was written as a mapping.
func underKnownLeaf(k string, known map[string]bool) bool {
	for i := range len(k) {
		if k[i] == '.' && known[k[:i]] {
			return true
		}
	}
	return false
}
