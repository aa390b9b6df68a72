package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Misspelt names: a PARLEY_* environment variable that is no key's, and
// a key of the file that Config does not have, are errors, and the
// message suggests the nearest name there is.

// nonConfigEnv is the one allow list of PARLEY_* environment variables
// that are not configuration keys: read elsewhere, by a dev build or by
// tests. A trailing * matches any suffix. TestNonConfigEnvListed checks
// that every PARLEY_ name the program's code spells is a key or here.
var nonConfigEnv = []string{
	"PARLEY_PPROF",                 // cmd/parley/pprof_dev.go: the profiler of a dev build
	"PARLEY_INIT_PROBE",            // cmd/parley's TestInitFootprint: its second run
	"PARLEY_MCP_TEST_STDIO_SERVER", // agent/tools/mcp's tests: the stdio server re-executed
	"PARLEY_STORE_HELPER_OPEN",     // store's tests: a second process opening the database
	"PARLEY_TEST_*",                // tests: PARLEY_TEST_POSTGRES_URL (store/postgres/pgtest), PARLEY_TEST_FAKE_SECRET, …
	"PARLEY_GUARD_JUDGE_*",         // agent/guard's TestJudgeCorpus: the model it measures
}

// nonConfig reports whether name is on the allow list.
func nonConfig(name string) bool {
	for _, a := range nonConfigEnv {
		if p, ok := strings.CutSuffix(a, "*"); ok && strings.HasPrefix(name, p) || a == name {
			return true
		}
	}
	return false
}

// environNames lists the names of the variables set, from opts.Environ;
// with the default Environ (os.Environ), only those opts.Env also finds,
// so an injected Env decides what the environment is.
func environNames(opts LoadOptions) []string {
	environ, filter := opts.Environ, false
	if environ == nil {
		environ, filter = os.Environ, true
	}
	var names []string
	for _, kv := range environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "PARLEY_") {
			continue
		}
		if filter {
			if _, ok := opts.Env(name); !ok {
				continue
			}
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// unknownEnv reports the PARLEY_* variables among names that are neither
// a leaf's (EnvVar) nor on the allow list, suggesting the nearest key's.
func unknownEnv(leaves []leaf, names []string) []string {
	known := map[string]bool{}
	var vars []string
	for _, l := range leaves {
		known[l.env] = true
		vars = append(vars, l.env)
	}
	var problems []string
	for _, n := range names {
		if known[n] || nonConfig(n) {
			continue
		}
		shown := n
		if looksSecret(n) {
			shown = "PARLEY_(a name that looks like a secret; not shown)"
		}
		if near, ok := nearest(strings.ToUpper(n), vars); ok {
			problems = append(problems, fmt.Sprintf("%s: unknown environment variable; did you mean %s?", shown, near))
			continue
		}
		problems = append(problems, fmt.Sprintf("%s: unknown environment variable (each key of config.example.yaml has one: llm.model is PARLEY_LLM_MODEL)", shown))
	}
	return problems
}

// nearest returns the candidate closest to name by edit distance
// (insertions, deletions, substitutions and swaps of neighbours), when it
// is close enough to be a slip: at most 2 edits, or a sixth of the name.
func nearest(name string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := editDistance(name, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(name)/6) {
		return "", false
	}
	return best, true
}

// editDistance is the optimal string alignment distance between a and b,
// over bytes (keys and variable names are ASCII).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
