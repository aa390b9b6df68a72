package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/viper"

	"github.com/parleybot/parley/chat"
	"go.yaml.in/yaml/v3"
)

// LoadOptions tells Load where to look. The zero value searches the usual
// places and reads the process environment; tests inject the rest.
type LoadOptions struct {
	// Path is the file named by --config. "" searches ./config.yaml, then
	// $XDG_CONFIG_HOME/parley/config.yaml; an explicit Path must exist.
	Path string
	// Env looks up an environment variable; nil means os.LookupEnv.
	Env func(name string) (value string, ok bool)
	// Environ lists the environment ("NAME=value"), to find PARLEY_*
	// variables that are no key's (a typo is an error). nil means
	// os.Environ, counting only the names Env finds.
	Environ func() []string
	// Getwd returns the directory that relative paths start from; nil
	// means os.Getwd.
	Getwd func() (string, error)
	// Platforms are the chat platforms whose sections the configuration
	// has (cmd/parley's list); keys of any other are unknown.
	Platforms []chat.Platform
	// UserHomeDir locates ~ for ~/.config when XDG_CONFIG_HOME is unset;
	// nil means os.UserHomeDir.
	UserHomeDir func() (string, error)
}

func (o *LoadOptions) withDefaults() {
	if o.Env == nil {
		o.Env = os.LookupEnv
	}
	if o.Getwd == nil {
		o.Getwd = os.Getwd
	}
	if o.UserHomeDir == nil {
		o.UserHomeDir = os.UserHomeDir
	}
}

// Load reads the configuration file (if any), applies environment
// overrides and defaults, and validates the result.
//
// For every key the first non-empty value wins: the PARLEY_* variable
// (see [EnvVar]), then the file, then, for the two API keys only,
// OPENAI_API_KEY / ANTHROPIC_API_KEY, then the default. An empty value
// counts as unset, so a copied config.example.yaml with api_key: ""
// still lets OPENAI_API_KEY through.
//
// Problems with values are collected into one *[ValidationError]; a
// missing explicit file or unparsable YAML is returned as it is found.
func Load(opts LoadOptions) (*Config, error) {
	opts.withDefaults()

	path, data, err := readFile(opts)
	if err != nil {
		return nil, err
	}
	// The file is parsed once, keeping the case of mapping keys (lists of
	// structs carry case-sensitive maps); viper gets a copy. Parsing it a
	// second time through viper doubled Load's cost: YAML's scanner spends
	// most of its time on comments, and a config made from
	// config.example.yaml is mostly comments.
	raw, err := parseFile(data)
	if err != nil {
		return nil, fmt.Errorf("config: parse %s: %w", path, err)
	}

	// A private instance: viper's global one would leak state between
	// callers and tests. Viper gives case-insensitive lookups of dotted
	// keys, nested or written flat ("llm.model: …"). Environment
	// overrides are applied below rather than through AutomaticEnv, which
	// reads os.Getenv directly (so cannot be injected) and whose values
	// Unmarshal misses for keys absent from the file.
	// With no file, or an empty one, there is no viper: nothing to look
	// up in it.
	var v *viper.Viper
	if len(raw) > 0 {
		v = viper.New()
		// A copy: viper lower-cases the keys of the maps it is given, in
		// place.
		if err := v.MergeConfigMap(normalizeYAML(raw).(map[string]any)); err != nil {
			return nil, fmt.Errorf("config: parse %s: %w", path, err)
		}
	}

	cfg := Default(opts.Platforms...)
	cfg.File = path
	leaves := cfg.leaves()
	var problems []string
	problems = append(problems, unknownKeys(leaves, v)...)
	problems = append(problems, unknownEnv(leaves, environNames(opts))...)
	problems = append(problems, decode(&cfg, leaves, v, raw, opts.Env)...)
	problems = append(problems, cfg.loadProviders(opts.Env, legacyProviderKeys(v, opts.Env))...)
	cfg.normalize()
	problems = append(problems, cfg.validate()...)
	if len(problems) > 0 {
		return nil, &ValidationError{File: path, Problems: problems}
	}
	return &cfg, nil
}

// readFile finds and reads the configuration file. It returns a nil data
// and an empty path when the search finds nothing, which is fine: defaults
// and the environment can configure everything.
func readFile(opts LoadOptions) (path string, data []byte, err error) {
	getwd := func() (string, error) {
		wd, err := opts.Getwd()
		if err != nil {
			return "", fmt.Errorf("config: working directory: %w", err)
		}
		return wd, nil
	}
	if opts.Path != "" {
		path = opts.Path
		if !filepath.IsAbs(path) {
			dir, err := getwd()
			if err != nil {
				return "", nil, err
			}
			path = filepath.Join(dir, path)
		}
		data, err = os.ReadFile(path)
		if err != nil {
			// The *PathError names the file; keep it matchable with
			// errors.Is(err, fs.ErrNotExist).
			return "", nil, fmt.Errorf("config: %w", err)
		}
		return path, data, nil
	}
	dir, err := getwd()
	if err != nil {
		return "", nil, err
	}
	for _, p := range searchPath(dir, opts) {
		data, err = os.ReadFile(p)
		switch {
		case err == nil:
			return p, data, nil
		case errors.Is(err, fs.ErrNotExist):
			continue
		default:
			// A file that exists but cannot be read is a mistake to
			// report, not a reason to silently fall back to defaults.
			return "", nil, fmt.Errorf("config: %w", err)
		}
	}
	return "", nil, nil
}

// searchPath lists the files tried, in order, when no --config is given.
func searchPath(wd string, opts LoadOptions) []string {
	paths := []string{filepath.Join(wd, "config.yaml")}
	// The XDG spec says to ignore a relative XDG_CONFIG_HOME.
	base, _ := opts.Env("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		home, err := opts.UserHomeDir()
		if err != nil || home == "" {
			// No home (e.g. a bare container): nothing more to search.
			return paths
		}
		base = filepath.Join(home, ".config")
	}
	return append(paths, filepath.Join(base, "parley", "config.yaml"))
}

// fallbackEnv names the conventional variable a key falls back to when
// neither PARLEY_* nor the file sets it, or "" if it has none.
func fallbackEnv(key string) string {
	switch key {
	case "llm.openai.api_key":
		return "OPENAI_API_KEY"
	case "llm.anthropic.api_key":
		return "ANTHROPIC_API_KEY"
	}
	return ""
}

// decode fills cfg from the environment and the file in order of
// precedence, converting each value to its field's type. Every failed
// conversion is reported by key; none panics or silently yields zero.
func decode(cfg *Config, leaves []leaf, v *viper.Viper, file map[string]any, env func(string) (string, bool)) []string {
	var problems []string
	for _, l := range leaves {
		raw, from := lookup(l.key, v, env)
		if from == "" && structured(l.typ) {
			// Viper lower-cases mapping keys and splits them at dots;
			// lists of structs carry case-sensitive maps (environment
			// variable names, HTTP headers), and maps are keyed by names
			// such as "gpt-4.1-mini", so both come from the file as written.
			if r := lookupFile(file, l.key); r != nil {
				raw = r
			}
		}
		if raw == nil {
			continue // keep the default
		}
		if err := set(l.field(cfg), raw); err != nil {
			if kp, ok := errors.AsType[keyProblems](err); ok { // each names its own key
				for _, p := range kp {
					if from != "" {
						p += " (from " + from + ")"
					}
					problems = append(problems, p)
				}
				continue
			}
			p := l.key + ": " + err.Error()
			if from != "" {
				p += " (from " + from + ")"
			}
			problems = append(problems, p)
		}
	}
	return problems
}

// lookup returns the winning raw value for key and, when it came from the
// environment, the variable's name. A nil value means nothing sets the key.
// v, the file, is nil when the file set nothing.
func lookup(key string, v *viper.Viper, env func(string) (string, bool)) (raw any, from string) {
	name := EnvVar(key)
	if s, ok := env(name); ok && strings.TrimSpace(s) != "" {
		return s, name
	}
	if v != nil {
		if raw := v.Get(key); raw != nil && !isBlank(raw) {
			return raw, ""
		}
	}
	if name := fallbackEnv(key); name != "" {
		if s, ok := env(name); ok && strings.TrimSpace(s) != "" {
			return s, name
		}
	}
	return nil, ""
}

func isBlank(raw any) bool {
	s, ok := raw.(string)
	return ok && strings.TrimSpace(s) == ""
}

// set stores raw, a YAML-decoded value or an environment string, into dst.
func set(dst reflect.Value, raw any) error {
	switch dst.Kind() {
	case reflect.String:
		s, err := toString(raw)
		if err != nil {
			return err
		}
		dst.SetString(s)
	case reflect.Int:
		n, err := toInt(raw)
		if err != nil {
			return err
		}
		dst.SetInt(int64(n))
	case reflect.Float64:
		f, err := toFloat(raw)
		if err != nil {
			return err
		}
		dst.SetFloat(f)
	case reflect.Bool:
		b, err := toBool(raw)
		if err != nil {
			return err
		}
		dst.SetBool(b)
	case reflect.Map:
		return toStructs(dst, raw)
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.Struct {
			return toStructs(dst, raw)
		}
		list, err := toStrings(raw)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(list))
	default:
		// Only reachable by adding a field of a new type to Config;
		// every test that calls Load would catch it.
		panic(fmt.Sprintf("config: field of unsupported type %s", dst.Type()))
	}
	return nil
}

// toString accepts any YAML scalar: an unquoted "token: 12345" is an int
// to the YAML parser but plainly meant as text.
func toString(raw any) (string, error) {
	switch x := raw.(type) {
	case string:
		return strings.TrimSpace(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case map[string]any, map[any]any, []any:
		return "", fmt.Errorf("want a string, got %s", describe(raw))
	default:
		return fmt.Sprint(x), nil
	}
}

func toInt(raw any) (int, error) {
	switch x := raw.(type) {
	case int:
		return x, nil
	case int64:
		if x < math.MinInt || x > math.MaxInt {
			return 0, fmt.Errorf("%d is out of range", x)
		}
		return int(x), nil
	case uint64:
		if x > math.MaxInt {
			return 0, fmt.Errorf("%d is out of range", x)
		}
		return int(x), nil
	case float64:
		if x != math.Trunc(x) || x < math.MinInt || x > math.MaxInt {
			return 0, fmt.Errorf("%v is not a whole number", x)
		}
		return int(x), nil
	case string:
		s := strings.TrimSpace(x)
		n, err := strconv.Atoi(s)
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%s is out of range", shown(s))
		}
		if err != nil {
			return 0, fmt.Errorf("%s is not a number", shown(s))
		}
		return n, nil
	default:
		return 0, fmt.Errorf("want a number, got %s", describe(raw))
	}
}

func toFloat(raw any) (float64, error) {
	switch x := raw.(type) {
	case float64:
		return x, nil
	case int, int64, uint64:
		n, err := toInt(raw)
		return float64(n), err
	case string:
		s := strings.TrimSpace(x)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%s is not a number", shown(s))
		}
		return f, nil
	default:
		return 0, fmt.Errorf("want a number, got %s", describe(raw))
	}
}

// toBool accepts the YAML 1.1 spellings (yes/no/on/off) too: the YAML 1.2
// parser reads them as strings, yet operators keep writing them.
func toBool(raw any) (bool, error) {
	if b, ok := raw.(bool); ok {
		return b, nil
	}
	s, err := toString(raw)
	if err != nil {
		return false, errors.New("want true or false, got " + describe(raw))
	}
	switch strings.ToLower(s) {
	case "true", "t", "1", "yes", "y", "on":
		return true, nil
	case "false", "f", "0", "no", "n", "off":
		return false, nil
	}
	return false, fmt.Errorf("%s is not valid; want true or false", shown(s))
}

// toStrings accepts a YAML list of scalars or a comma-separated string
// ("42, 43"), the only way to write a list in an environment variable.
// Entries are trimmed and empty ones dropped.
func toStrings(raw any) ([]string, error) {
	var items []string
	switch x := raw.(type) {
	case []any:
		for i, e := range x {
			s, err := toString(e)
			if err != nil {
				return nil, fmt.Errorf("entry %d: %w", i+1, err)
			}
			items = append(items, s)
		}
	case []string:
		items = x
	case string:
		items = strings.Split(x, ",")
	case map[string]any, map[any]any:
		return nil, fmt.Errorf("want a list, got %s", describe(raw))
	default:
		s, _ := toString(x) // a lone scalar is a one-entry list
		items = []string{s}
	}
	out := make([]string, 0, len(items))
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// parseFile parses the file, keeping the case of mapping keys.
func parseFile(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if data == nil {
		return m, nil
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// lookupFile finds a dotted key in a parsed file, matching section names
// case-insensitively as viper does.
func lookupFile(m map[string]any, key string) any {
	var cur any = m
	for part := range strings.SplitSeq(key, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = nil
		for k, v := range mm {
			if strings.EqualFold(k, part) {
				cur = v
				break
			}
		}
	}
	return cur
}

// structured reports whether values of type t are lists of structs or
// maps, which toStructs decodes.
func structured(t reflect.Type) bool {
	return t.Kind() == reflect.Map || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct
}

// toStructs decodes a list of mappings, or a mapping of names to mappings
// (YAML), or the same in JSON (the only way to write one in an environment
// variable) into dst, a slice of structs or a map. Unknown fields are
// errors, as unknown keys are.
func toStructs(dst reflect.Value, raw any) error {
	want := "a list of mappings"
	if dst.Kind() == reflect.Map {
		want = "a mapping of names to mappings"
	}
	var data []byte
	switch x := raw.(type) {
	case string:
		data = []byte(x)
	case []any, map[string]any, map[any]any:
		b, err := json.Marshal(normalizeYAML(x))
		if err != nil {
			return fmt.Errorf("want %s: %w", want, err)
		}
		data = b
	default:
		return fmt.Errorf("want %s, got %s", want, describe(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	ptr := reflect.New(dst.Type())
	if err := dec.Decode(ptr.Interface()); err != nil {
		if kp, ok := errors.AsType[keyProblems](err); ok {
			dst.Set(ptr.Elem())
			return kp
		}
		return fmt.Errorf("want %s (JSON in the environment): %w", want, err)
	}
	dst.Set(ptr.Elem())
	return nil
}

// normalizeYAML copies the maps and lists of a parsed value, turning
// map[any]any (which JSON cannot encode) into map[string]any. The copy is
// new all the way down, so the original is left alone.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalizeYAML(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeYAML(e)
		}
		return out
	}
	return v
}

// describe names a decoded value's shape for error messages.
func describe(raw any) string {
	switch x := raw.(type) {
	case map[string]any, map[any]any:
		return "a mapping"
	case []any, []string:
		return "a list"
	case string:
		return shown(x)
	default:
		return Quiet(fmt.Sprint(x))
	}
}
