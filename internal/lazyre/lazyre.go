// Package lazyre defers compiling regular expressions to their first use.
//
// A package-level regexp.MustCompile runs at program start whether or not
// the expression is ever used: Parley's own packages compiled 45
// expressions that way, ~290 KiB of heap kept for the life of the process
// and ~1 ms of every start, most of them for features a deployment may
// never touch (the shell tool, PDF extraction, reminders' wording). See
// docs/footprint.md; cmd/parley's TestInitFootprint keeps it so.
package lazyre

import (
	"regexp"
	"sync"
)

// MustCompile returns a function that compiles expr on its first call, as
// regexp.MustCompile does (an invalid expression panics there), and
// returns the same *regexp.Regexp on every call. It is safe for
// concurrent use.
func MustCompile(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// MustCompileAll is MustCompile for a list compiled together.
func MustCompileAll(exprs ...string) func() []*regexp.Regexp {
	return sync.OnceValue(func() []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(exprs))
		for i, e := range exprs {
			out[i] = regexp.MustCompile(e)
		}
		return out
	})
}
