package guard

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Rules.

// rule is one row of the pattern tables.
type rule struct {
	category Category
	view     view
	reason   string // what a match means, for the message
	re       *regexp.Regexp
	// valid, if set, confirms a candidate match (e.g. a secret must mix
	// letters and digits); every match of re is tried.
	valid func(match string) bool
	// with, if set, must also match somewhere in the same view (a network
	// tool *and* a secret); withValid filters its matches.
	with      *regexp.Regexp
	withValid func(match string) bool
	// unless, if it matches anywhere in the view, disarms the rule
	// ("jailbreak" next to "iPhone" is about phones).
	unless *regexp.Regexp
	// redact keeps the match out of the message (it is a secret).
	redact bool
	// lits: every match of re contains one of these (lower-cased);
	// derived from re. litIDs are their numbers in the checker's
	// litIndex, which finds them all in one pass before any rule runs.
	lits   []string
	litIDs []int32
	// need, if set, lists substrings of the rule's own view one of which
	// every match contains, where the literals cannot say it (they are
	// lower-case): "DAN" in capitals, the ":" or "=" of an assignment. It
	// keeps the costlier regexps from running on every long entry that
	// merely mentions "password" or "Dana".
	need []string
}

// checker holds the compiled tables; nothing changes them after newChecker.
type checker struct {
	rules    []rule
	lits     *litIndex
	triggers decodeTriggers
}

// check runs the rules in table order (secrets, then exfiltration, then
// injection) and reports the first hit; then the same over whatever
// content hides in base64, hex and the like (see decodings).
func (c *checker) check(content string) *Rejection {
	return c.checkDepth(content, 0)
}

func (c *checker) checkDepth(content string, depth int) *Rejection {
	v := makeViews(content)
	found := c.findLiterals(&v)
	for i := range c.rules {
		if r := c.rules[i].match(&v, &found); r != nil {
			return r
		}
	}
	if depth >= maxDecodeDepth {
		return nil
	}
	for _, d := range decodings(content, v[viewWords], &c.triggers) {
		if r := c.checkDepth(d.text, depth+1); r != nil {
			r.Reason += " (hidden in " + d.how + ")"
			return r
		}
	}
	return nil
}

// maxMatches bounds the candidates tried per rule; real entries are
// short and this keeps a pathological one linear.
const maxMatches = 32

func (r *rule) match(v *views, found *litSets) *Rejection {
	text := v[r.view]
	if r.lits != nil && !found.any(r.view, r.litIDs) {
		return nil
	}
	if r.need != nil && !slices.ContainsFunc(r.need, func(n string) bool { return strings.Contains(text, n) }) {
		return nil
	}
	m := firstValid(r.re, text, r.valid)
	if m == "" {
		return nil
	}
	if r.unless != nil && r.unless.MatchString(text) {
		return nil
	}
	if r.with != nil {
		w := firstValid(r.with, text, r.withValid)
		if w == "" {
			return nil
		}
		// Both matches carry their boundary characters: trim them.
		const edge = " \t\n\"'()|;&`"
		m = strings.Trim(m, edge) + " … " + strings.Trim(w, edge)
	}
	rej := &Rejection{Category: r.category, Reason: r.reason}
	if !r.redact {
		rej.Evidence = clip(strings.TrimSpace(m), 80)
	}
	return rej
}

func firstValid(re *regexp.Regexp, text string, valid func(string) bool) string {
	if valid == nil {
		return re.FindString(text)
	}
	for _, m := range re.FindAllString(text, maxMatches) {
		if valid(m) {
			return m
		}
	}
	return ""
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// ruleSet builds table rows for one category.
type ruleSet struct {
	category Category
	rules    []rule
}

// add appends one row per pattern and returns the last, so a
// single-pattern row can be refined in place (valid, with, unless) before
// the next add.
func (s *ruleSet) add(v view, reason string, patterns ...string) *rule {
	for _, p := range patterns {
		// The content is NFKC-normalized before matching, so the patterns
		// must be too (Devanagari nukta letters, for one, decompose).
		p = norm.NFKC.String(p)
		s.rules = append(s.rules, rule{category: s.category, view: v, reason: reason, re: regexp.MustCompile(p), lits: requiredLiterals(p)})
	}
	return &s.rules[len(s.rules)-1]
}

func newChecker() *checker {
	c := checker{triggers: newDecodeTriggers()}
	c.rules = append(c.rules, secretRules()...)
	c.rules = append(c.rules, exfiltrationRules()...)
	c.rules = append(c.rules, injectionRules()...)
	ids := map[string]int32{}
	var all []string
	for i := range c.rules {
		r := &c.rules[i]
		for _, l := range r.lits {
			id, ok := ids[l]
			if !ok {
				id = int32(len(all))
				ids[l] = id
				all = append(all, l)
			}
			r.litIDs = append(r.litIDs, id)
		}
	}
	c.lits = newLitIndex(all)
	return &c
}

// requiredLiterals derives, from a pattern's syntax tree, a set of
// lower-case strings at least one of which every match contains, or nil.
// Most entries contain none of a rule's keywords, so looking them up
// (see litIndex) replaces running the regexp: this is what keeps Check in
// the microseconds with hundreds of rules (Go's regexp has no fast path
// for unanchored alternations like `\b(?:ignore|disregard|…)`).
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return literalsOf(re.Simplify()).contains
}

// literalInfo describes a sub-expression: exact, if non-nil, lists every
// string it can match (small finite languages: "n(?:c|cat)" → nc, ncat);
// contains, if non-nil, lists strings one of which every match contains.
type literalInfo struct {
	exact, contains []string
}

const maxLiterals = 64 // beyond this a set costs more than the regexp

// literalsOf is re's literalInfo, built from its sub-expressions' own.
// It is long because it is one case per regexp operator.
func literalsOf(re *syntax.Regexp) literalInfo {
	switch re.Op {
	case syntax.OpLiteral:
		l := []string{strings.ToLower(string(re.Rune))}
		return literalInfo{l, l}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return literalInfo{exact: []string{""}}
	case syntax.OpCharClass:
		var l []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if len(l) == 8 {
					return literalInfo{}
				}
				l = append(l, strings.ToLower(string(c)))
			}
		}
		l = literalSet(l)
		return literalInfo{l, l}
	case syntax.OpCapture:
		return literalsOf(re.Sub[0])
	case syntax.OpQuest:
		if e := literalsOf(re.Sub[0]).exact; e != nil && len(e) < maxLiterals {
			return literalInfo{exact: literalSet(append(e, ""))}
		}
	case syntax.OpPlus:
		return literalInfo{contains: literalsOf(re.Sub[0]).contains}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalInfo{contains: literalsOf(re.Sub[0]).contains}
		}
	case syntax.OpAlternate: // a match matches one branch
		var info literalInfo
		exact, contains := true, true
		for _, sub := range re.Sub {
			s := literalsOf(sub)
			exact = exact && s.exact != nil
			contains = contains && s.contains != nil
			info.exact = append(info.exact, s.exact...)
			info.contains = append(info.contains, s.contains...)
		}
		if !exact || len(info.exact) > maxLiterals {
			info.exact = nil
		}
		if !contains || len(info.contains) > maxLiterals {
			info.contains = nil
		}
		info.exact, info.contains = literalSet(info.exact), literalSet(info.contains)
		return info
	case syntax.OpConcat:
		// exact: the cross product, while small. contains: the most
		// selective of the parts' sets and of the cross products of
		// consecutive exact parts.
		var best, run []string
		consider := func(l []string) {
			if l != nil && !slices.Contains(l, "") && (best == nil || selectivity(l) > selectivity(best)) {
				best = l
			}
		}
		all := true
		run = []string{""}
		for _, sub := range re.Sub {
			s := literalsOf(sub)
			consider(s.contains)
			if s.exact == nil || len(run)*len(s.exact) > maxLiterals {
				consider(run)
				run, all = []string{""}, false
				continue
			}
			var next []string
			for _, a := range run {
				for _, b := range s.exact {
					next = append(next, a+b)
				}
			}
			run = literalSet(next)
			consider(run)
		}
		info := literalInfo{contains: best}
		if all {
			info.exact = run
		}
		return info
	}
	return literalInfo{}
}

// literalSet sorts and dedupes; nil stays nil.
func literalSet(l []string) []string {
	if l == nil {
		return nil
	}
	slices.Sort(l)
	return slices.Compact(l)
}

// selectivity ranks a literal set: longer shortest member first, then
// fewer members.
func selectivity(lits []string) int {
	n := len(lits[0])
	for _, l := range lits {
		n = min(n, len(l))
	}
	return n*128 - min(len(lits), 127)
}
