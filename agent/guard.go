package agent

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The memory guard. Memory is injected into the system prompt of every
// later run, so whatever gets written there is, in effect, a standing
// instruction to a future model with the user's tools and credentials. A
// single poisoned entry (from a pasted web page, a malicious document or a
// manipulated conversation) would persist across sessions. CheckMemory
// therefore refuses four kinds of content on every add / replace, and says
// why, so the model can rewrite the entry as a plain fact:
//
//   - prompt-injection: phrasing that addresses the assistant rather than
//     describing the user ("ignore previous instructions", persona switches,
//     fake chat-role markers, "do not tell the user", jailbreak openers), in
//     English, Chinese, Japanese, Spanish, German and French;
//   - credential-exfiltration: commands or links that send env vars, keys or
//     credential files somewhere;
//   - secret: the content itself carries a credential (API keys, tokens,
//     private keys, passwords) — memory must never store secrets;
//   - invisible-unicode: zero-width, bidi, tag and other format or control
//     characters that hide text from the human reading /memory.
//
// Size and emptiness are not checked here: AddEntry / ReplaceEntry do that.
//
// Matching runs over normalized views of the content (see guardViews) so
// spacing, punctuation, full-width, homoglyph and leetspeak tricks do not
// slip past the tables, while the patterns themselves stay narrow enough
// that ordinary facts ("prefers to ignore lint warnings in tests", "rotates
// tokens monthly", "works as an actor") pass. The tables are the place to
// extend; nothing in them is mutated after construction.

// ErrMemoryRejected is wrapped by every error CheckMemory returns.
var ErrMemoryRejected = errors.New("memory write rejected")

// GuardCategory names the reason class of a rejection.
type GuardCategory string

// The categories the memory guard rejects.
const (
	GuardInjection    GuardCategory = "prompt-injection"
	GuardExfiltration GuardCategory = "credential-exfiltration"
	GuardSecret       GuardCategory = "secret"
	GuardUnicode      GuardCategory = "invisible-unicode"
)

// advice tells the model what to do instead; it ends every rejection message.
func (c GuardCategory) advice() string {
	switch c {
	case GuardInjection:
		return "store facts about the user, not instructions to the assistant"
	case GuardExfiltration:
		return "memory must not hold commands or links that send secrets, environment variables or files anywhere"
	case GuardSecret:
		return "memory must never store credentials: tell the user to keep it in a secret manager, and remember at most where it is kept"
	case GuardUnicode:
		return "rewrite the entry in plain visible text"
	}
	return "rewrite the entry"
}

// MemoryRejection is the error CheckMemory returns; it unwraps to
// ErrMemoryRejected.
type MemoryRejection struct {
	Category GuardCategory
	// Reason says concretely what was seen, e.g. "an instruction to
	// ignore earlier instructions" or "U+202E RIGHT-TO-LEFT OVERRIDE at
	// character 12".
	Reason string
	// Evidence is the offending text as normalized for matching (so
	// "I G N O R E" reads "ignore"). Empty when quoting it would repeat a
	// secret.
	Evidence string
}

func (e *MemoryRejection) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory rejected (%s): %s", e.Category, e.Reason)
	if e.Evidence != "" {
		fmt.Fprintf(&b, " (%q)", e.Evidence)
	}
	b.WriteString("; ")
	b.WriteString(e.Category.advice())
	return b.String()
}

func (e *MemoryRejection) Unwrap() error { return ErrMemoryRejected }

// CheckMemory vets content about to be written to a user's memory. It
// returns nil or a *MemoryRejection wrapping ErrMemoryRejected whose
// message tells the model why and what to do instead.
func CheckMemory(content string) error {
	// Invisible characters first, on the raw text: normalization would
	// erase some of them and they make every later check unreliable.
	if r := checkInvisible(content); r != nil {
		return r
	}
	if r := memoryGuard().check(content); r != nil {
		return r
	}
	return nil
}

// memoryGuard compiles the tables on first use (not at program start: most
// processes that import agent never write memory) and shares the result,
// which is read-only from then on.
var memoryGuard = sync.OnceValue(newGuard)

// ---------------------------------------------------------------------------
// Normalized views.

// guardView selects which normalized form of the content a rule matches.
type guardView uint8

const (
	// viewCased: NFKC, homoglyphs folded to Latin, whitespace runs
	// collapsed; case kept. For secrets, env-var names, "DAN".
	viewCased guardView = iota
	// viewLower: viewCased lower-cased; punctuation kept. For role
	// markers ("<|im_start|>", "### system:"), "new instructions:", URLs.
	viewLower
	// viewWords: only letters, digits and marks, single-space separated;
	// runs of ≥3 single letters joined ("i g n o r e" → "ignore"); digits
	// inside words de-leeted ("1gn0re" → "ignore"). For phrases.
	viewWords
	// viewSquash: viewWords without spaces. For CJK (no word spacing)
	// and run-together Latin ("ignorepreviousinstructions").
	viewSquash
	numViews
)

type guardViews [numViews]string

func makeViews(s string) guardViews {
	var v guardViews
	s = norm.NFKC.String(s)
	var cased, lower strings.Builder
	cased.Grow(len(s))
	lower.Grow(len(s))
	space := "" // pending separator: "", " " or "\n"
	for _, r := range s {
		if unicode.IsSpace(r) {
			if r == '\n' || r == '\u2028' || r == '\u2029' {
				space = "\n"
			} else if space == "" {
				space = " "
			}
			continue
		}
		if space != "" && cased.Len() > 0 {
			cased.WriteString(space)
			lower.WriteString(space)
		}
		space = ""
		r = foldHomoglyph(r)
		cased.WriteRune(r)
		lower.WriteRune(unicode.ToLower(r))
	}
	v[viewCased] = cased.String()
	v[viewLower] = lower.String()
	v[viewWords] = wordsOf(v[viewLower])
	v[viewSquash] = strings.ReplaceAll(v[viewWords], " ", "")
	return v
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// wordsOf reduces lower-cased text to its words, undoing the cheap
// obfuscations: punctuation or spacing between letters ("i.g.n.o.r.e",
// "I G N O R E") and digits standing for letters ("pr3v10us").
func wordsOf(lower string) string {
	toks := strings.FieldsFunc(lower, func(r rune) bool { return !isWordRune(r) })
	out := make([]string, 0, len(toks))
	single := func(t string) bool {
		return len(t) == 1 && (t[0] >= 'a' && t[0] <= 'z' || t[0] >= '0' && t[0] <= '9')
	}
	for i := 0; i < len(toks); {
		j := i
		for j < len(toks) && single(toks[j]) {
			j++
		}
		switch {
		case j-i >= 3: // "i g n o r e" → "ignore"; 1–2 stray letters ("a", "u r") stay words
			out = append(out, deLeet(strings.Join(toks[i:j], "")))
			i = j
		case j > i:
			out = append(out, toks[i:j]...)
			i = j
		default:
			out = append(out, deLeet(toks[i]))
			i++
		}
	}
	return strings.Join(out, " ")
}

// deLeet maps digits to the letters they imitate, only in tokens that mix
// ASCII letters and digits: plain numbers stay numbers.
func deLeet(t string) string {
	var letter, digit bool
	for i := 0; i < len(t); i++ {
		c := t[i]
		letter = letter || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
	}
	if !letter || !digit {
		return t
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '0':
			return 'o'
		case '1':
			return 'i'
		case '3':
			return 'e'
		case '4':
			return 'a'
		case '5':
			return 's'
		case '7':
			return 't'
		}
		return r
	}, t)
}

// foldHomoglyph maps Cyrillic and Greek letters that look like Latin ones
// to Latin, so "іgnоre" (Cyrillic і, о) reads "ignore". Only the matching
// views are folded; real Russian or Greek text just becomes gibberish that
// no English pattern matches.
func foldHomoglyph(r rune) rune {
	if r < 0x370 || r > 0x52F {
		return r
	}
	switch r {
	case 'а', 'α':
		return 'a'
	case 'с', 'ϲ':
		return 'c'
	case 'ԁ':
		return 'd'
	case 'е', 'ε':
		return 'e'
	case 'һ':
		return 'h'
	case 'і', 'ι':
		return 'i'
	case 'ј', 'ϳ':
		return 'j'
	case 'κ':
		return 'k'
	case 'ӏ':
		return 'l'
	case 'о', 'ο':
		return 'o'
	case 'р', 'ρ':
		return 'p'
	case 'ԛ':
		return 'q'
	case 'ѕ':
		return 's'
	case 'τ':
		return 't'
	case 'υ':
		return 'u'
	case 'ν':
		return 'v'
	case 'ԝ':
		return 'w'
	case 'х', 'χ':
		return 'x'
	case 'у', 'γ':
		return 'y'
	case 'А', 'Α':
		return 'A'
	case 'В', 'Β':
		return 'B'
	case 'С', 'Ϲ':
		return 'C'
	case 'Е', 'Ε':
		return 'E'
	case 'Н', 'Η':
		return 'H'
	case 'І', 'Ι':
		return 'I'
	case 'Ј':
		return 'J'
	case 'К', 'Κ':
		return 'K'
	case 'М', 'Μ':
		return 'M'
	case 'Ν':
		return 'N'
	case 'О', 'Ο':
		return 'O'
	case 'Р', 'Ρ':
		return 'P'
	case 'Ѕ':
		return 'S'
	case 'Т', 'Τ':
		return 'T'
	case 'Х', 'Χ':
		return 'X'
	case 'У', 'Υ':
		return 'Y'
	case 'Ζ':
		return 'Z'
	}
	return r
}

// ---------------------------------------------------------------------------
// Rules.

// guardRule is one row of the pattern tables.
type guardRule struct {
	category GuardCategory
	view     guardView
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
	// derived from re, checked with strings.Contains before running it.
	lits []string
}

type guard struct {
	rules []guardRule
}

// check runs the rules in table order (secrets, then exfiltration, then
// injection) and reports the first hit.
func (g *guard) check(content string) *MemoryRejection {
	v := makeViews(content)
	for i := range g.rules {
		if r := g.rules[i].match(&v); r != nil {
			return r
		}
	}
	return nil
}

// maxGuardMatches bounds the candidates tried per rule; real entries are
// short and this keeps a pathological one linear.
const maxGuardMatches = 32

func (r *guardRule) match(v *guardViews) *MemoryRejection {
	text := v[r.view]
	if r.lits != nil {
		lower := text
		if r.view == viewCased {
			lower = v[viewLower]
		}
		if !slices.ContainsFunc(r.lits, func(l string) bool { return strings.Contains(lower, l) }) {
			return nil
		}
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
	rej := &MemoryRejection{Category: r.category, Reason: r.reason}
	if !r.redact {
		rej.Evidence = guardClip(strings.TrimSpace(m), 80)
	}
	return rej
}

func firstValid(re *regexp.Regexp, text string, valid func(string) bool) string {
	if valid == nil {
		return re.FindString(text)
	}
	for _, m := range re.FindAllString(text, maxGuardMatches) {
		if valid(m) {
			return m
		}
	}
	return ""
}

func guardClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// ruleSet builds table rows for one category.
type ruleSet struct {
	category GuardCategory
	rules    []guardRule
}

// add appends one row per pattern and returns the last, so a
// single-pattern row can be refined in place (valid, with, unless) before
// the next add.
func (s *ruleSet) add(view guardView, reason string, patterns ...string) *guardRule {
	for _, p := range patterns {
		s.rules = append(s.rules, guardRule{category: s.category, view: view, reason: reason, re: regexp.MustCompile(p), lits: requiredLiterals(p)})
	}
	return &s.rules[len(s.rules)-1]
}

func newGuard() *guard {
	var g guard
	g.rules = append(g.rules, secretRules()...)
	g.rules = append(g.rules, exfiltrationRules()...)
	g.rules = append(g.rules, injectionRules()...)
	return &g
}

// requiredLiterals derives, from a pattern's syntax tree, a set of
// lower-case strings at least one of which every match contains, or nil.
// Most entries contain none of a rule's keywords, so a few
// strings.Contains calls replace running the regexp: this is what keeps
// CheckMemory in the microseconds with a hundred rules (Go's regexp has no
// fast path for unanchored alternations like `\b(?:ignore|disregard|…)`).
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

// ---------------------------------------------------------------------------
// Secrets: the content carries a credential. Case-sensitive, on viewCased.

func secretRules() []guardRule {
	s := ruleSet{category: GuardSecret}
	add := func(what, pattern string, valid func(string) bool) {
		r := s.add(viewCased, "contains what looks like "+what, pattern)
		r.valid, r.redact = valid, true
	}
	// Specific formats first so the message names the right kind.
	add("an Anthropic API key", `\bsk-ant-[A-Za-z0-9_-]{20,}`, nil)
	add("an OpenAI API key", `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, lettersAndDigits)
	add("a Stripe key", `\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`, nil)
	add("a Slack token", `\bxox[abposre]-[A-Za-z0-9-]{10,}`, nil)
	add("a Slack app token", `\bxapp-[0-9]-[A-Za-z0-9-]{10,}`, nil)
	add("a GitHub token", `\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`, nil)
	add("an AWS access key id", `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, nil)
	add("an AWS secret access key", `(?i)\baws_secret_access_key\b\s*[:=]\s*\S{16,}`, nil)
	add("a Google API key", `\bAIza[A-Za-z0-9_-]{35}`, nil)
	add("a private key", `-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`, nil)
	add("a Telegram bot token", `(?:^|[^0-9])[0-9]{8,10}:[A-Za-z0-9_-]{35}(?:[^A-Za-z0-9_-]|$)`, nil)
	add("a Discord bot token", `\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b`, lettersAndDigits)
	add("a JSON Web Token", `\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`, nil)
	add("a bearer token", `(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*`, lettersAndDigits)
	add("a URL with an embedded password", `(?i)\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]{3,}@`, func(m string) bool {
		pass := m[strings.LastIndexByte(m[:len(m)-1], ':')+1 : len(m)-1]
		return !isPlaceholder(pass)
	})
	// "password: hunter2", "API_KEY=abc123…": a credential-ish name given a
	// value that looks like one (letters and digits, or long). "token:
	// rotated monthly" passes: the value is a word.
	add("a password or key assignment",
		`(?i)\b(?:password|passwd|passphrase|[a-z_]*api[_-]?key|[a-z_]*secret(?:[_-]?key)?|[a-z_]*access[_-]?token|[a-z_]*auth[_-]?token|token|private[_-]?key|client[_-]?secret)\s*[:=]\s*["']?[^\s"',;]{6,}`,
		func(m string) bool {
			i := strings.IndexAny(m, ":=")
			val := strings.Trim(strings.TrimSpace(m[i+1:]), `"'`)
			if isPlaceholder(val) || strings.ContainsAny(val[:1], "/~.") { // a path, not a value
				return false
			}
			return lettersAndDigits(val) || len(val) >= 16 && !strings.ContainsAny(val, "/.")
		})
	// "the wifi password is hunter2": prose form; the value must mix
	// digits with letters or symbols ("password is rotated monthly" and
	// "PIN is 4 digits" pass).
	add("a password", `(?i)\b(?:password|passwd|passphrase|passcode)\s+(?:is|was|=)\s+["']?[^\s"',;]{6,}`, func(m string) bool {
		f := strings.Fields(m)
		val := strings.Trim(f[len(f)-1], `"'.`)
		hasDigit := strings.ContainsAny(val, "0123456789")
		return !isPlaceholder(val) && hasDigit && strings.IndexFunc(val, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0
	})
	return s.rules
}

func lettersAndDigits(s string) bool {
	var l, d bool
	for _, r := range s {
		l = l || unicode.IsLetter(r)
		d = d || unicode.IsDigit(r)
	}
	return l && d
}

// isPlaceholder: "$PASSWORD", "${TOKEN}", "<password>", "***", "{{key}}"
// stand for a secret without being one.
func isPlaceholder(s string) bool {
	return s == "" || strings.ContainsAny(s[:1], "$<{*%[") || strings.Trim(s, "*xX.") == ""
}

// ---------------------------------------------------------------------------
// Exfiltration: commands or links that send secrets or files out.

func exfiltrationRules() []guardRule {
	s := ruleSet{category: GuardExfiltration}

	// A network client together with something secret: env vars, env
	// dumps, key and credential files, secret-named variables.
	net := `(?i)(?:^|[^\w.-])(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|sftp|ftp|rsync|invoke-webrequest|invoke-restmethod|iwr|irm|httpie|https?\s+(?:post|put)|requests\.(?:post|put|get)|urllib|xmlhttprequest|sendbeacon)(?:[^\w.-]|$)|\bfetch\s*\(`
	sensitive := strings.Join([]string{
		`\$\{?[A-Za-z_][A-Za-z0-9_]*`, // $VAR, ${VAR}
		`(?i)\$env:[a-z_]\w*`,         // PowerShell
		`%[A-Za-z_][A-Za-z0-9_]*%`,    // cmd.exe
		`(?i)\bprintenv\b`,
		`(?i)\benv\s*\|`,
		`(?i)[\x60(]\s*(?:env|printenv|set)\s*[\x60)]`,
		`(?i)/proc/(?:self|\d+)/environ`,
		`(?i)~/\.ssh\b|\.ssh/`,
		`(?i)\bid_(?:rsa|dsa|ecdsa|ed25519)\b`,
		`(?i)\.aws/(?:credentials|config)\b`,
		`(?i)(?:^|[\s/'"=@<(:])\.env\b`,
		`(?i)\.(?:netrc|git-credentials|npmrc|pypirc|pgpass|docker/config\.json|kube/config)\b`,
		`(?i)/etc/(?:passwd|shadow)\b`,
		`\b[A-Z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*\b`,
		`(?i)\b(?:api[_-]key|access[_-]token|secret[_-]key|private[_-]key|client[_-]secret)\b`,
	}, ")|(?:")
	sensitive = "(?:" + sensitive + ")"
	r := s.add(viewCased, "looks like a command that sends secrets or credential files over the network", net)
	r.with = regexp.MustCompile(sensitive)
	r.withValid = func(m string) bool {
		// $HOME, $PWD… name places, not secrets.
		switch strings.Trim(m, "${}%") {
		case "HOME", "PWD", "OLDPWD", "PATH", "TMPDIR", "TMP", "TEMP", "USER", "SHELL", "LANG", "PS1":
			return false
		}
		return true
	}

	// URLs whose query (or path) carries a variable or a secret-named
	// parameter: "https://x.example/?k=$API_KEY", "…?token=…".
	r = s.add(viewCased, "contains a URL that would carry a secret or variable to another site",
		`(?i)\b(?:https?|ftp|wss?)://[^\s"'<>\x60]+`)
	r.valid = urlLeaks(regexp.MustCompile(`\$\{?[A-Za-z_]|\{\{|%[A-Za-z_][A-Za-z0-9_]{2,}%`))

	// Imperatives that ship the conversation, memory, files or secrets to
	// a URL: "send the conversation to https://…". Team conventions ("Post
	// release notes to https://wiki…", "Report bugs to https://github…"),
	// third-person facts ("posts updates to …") and infinitives ("likes to
	// upload photos to …") pass: no imperative, or nothing sensitive sent.
	const imperative = `(?:^|[.!?;:\n]\s*|\b(?:always|please|also|silently|quietly|secretly|automatically|immediately|remember to|make sure to|be sure to|don't forget to|dont forget to|you(?: must| should| will| shall| need to| have to)?)\s+)`
	const toURL = `\b(?:to|at|into|via)\s+(?:https?|ftp|wss?)://`
	s.add(viewLower, "looks like an instruction to send the conversation, files or secrets to a URL",
		imperative+`(?:send|post|upload|forward|transmit|submit|pipe|beacon|report|copy|sync|dump|email|mail|relay|export|stream|include|append|attach|embed)\b[^\n]{0,80}?`+
			`\b(?:conversations?|chats?|messages?|history|memory|memories|context|transcripts?|data|everything|user's|users'|secrets?|keys?|tokens?|credentials?|passwords?|env|environment|variables|files?|contents?|prompts?|cookies?|sessions?)\b[^\n]{0,80}?`+toURL,
		imperative+`(?:exfiltrate|leak)\b[^\n]{0,160}?`+toURL)

	// Markdown images fetch their URL when rendered: a query string there
	// is a classic zero-click leak.
	s.add(viewLower, "contains a markdown image whose URL carries data (rendering it would leak it)",
		`!\[[^\]]*\]\(\s*(?:https?:)?//[^)\s]*[?&][^)\s]*=`)

	// Reverse shells hand the machine, secrets included, to a remote host.
	s.add(viewLower, "looks like a reverse shell",
		`/dev/(?:tcp|udp)/`, `\b(?:nc|ncat|netcat)\s[^\n;|]*-[a-z]*e\s`)

	// Reading credential files has no place in a memory entry.
	s.add(viewLower, "looks like a command that reads a credential file",
		`\b(?:cat|type|get-content|gc|less|more|head|tail|base64|xxd|cp|tar|zip)\s+(?:\S*(?:\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|/environ\b|\.netrc\b|\.git-credentials\b|/etc/shadow\b)|(?:\S*/)?\.env\b)`)
	return s.rules
}

// urlLeaks returns a validator reporting whether a URL carries a variable
// (shell, cmd or template: vars) anywhere, or has a query parameter named
// like a secret ("api_key", "accessToken", "X-Amz-Credential"; not
// "keyword").
func urlLeaks(vars *regexp.Regexp) func(string) bool {
	return func(u string) bool {
		if vars.MatchString(u) {
			return true
		}
		q := strings.IndexAny(u, "?#")
		if q < 0 {
			return false
		}
		for _, kv := range strings.FieldsFunc(u[q+1:], func(r rune) bool { return r == '&' || r == ';' || r == '#' }) {
			k, _, _ := strings.Cut(kv, "=")
			for _, w := range strings.FieldsFunc(strings.ToLower(k), func(r rune) bool { return !unicode.IsLetter(r) }) {
				switch {
				case strings.HasSuffix(w, "key"), strings.HasSuffix(w, "token"), strings.HasSuffix(w, "secret"),
					strings.HasSuffix(w, "password"), strings.HasSuffix(w, "passwd"), w == "pwd", w == "pass",
					w == "auth", w == "authorization", strings.HasPrefix(w, "cred"), strings.HasPrefix(w, "session"),
					w == "sid", w == "cookie", w == "sig", w == "signature":
					return true
				}
			}
		}
		return false
	}
}

// ---------------------------------------------------------------------------
// Prompt injection: text that addresses the assistant instead of
// describing the user.

func injectionRules() []guardRule {
	s := ruleSet{category: GuardInjection}
	const (
		ignoreWhy = "looks like a prompt-injection instruction to ignore earlier instructions"
		personaWh = "looks like a prompt-injection persona switch (telling the assistant who it now is)"
		markerWhy = "contains a fake chat-role marker used to smuggle in system or assistant turns"
		jailWhy   = "looks like a jailbreak prompt"
		hideWhy   = "looks like a prompt-injection instruction to hide things from the user"
		leakWhy   = "looks like a prompt-injection request to reveal the system prompt"
		metaWhy   = "looks like a prompt-injection message addressed to the AI rather than a fact about the user"
		newWhy    = "looks like injected replacement instructions"
	)
	// Devices one legitimately jailbreaks or puts in developer mode.
	const devices = `\b(?:iphone|ios|ipad|ipod|phone|android|pixel|samsung|kindle|switch|ps[345]|playstation|xbox|console|device|firmware|router|tv|chrome|chromebook|browser|extension|windows|macos|laptop|vscode)\b|手机|手機|安卓|设备|設備|主机|主機|苹果|蘋果|スマホ|アンドロイド`

	// --- English, on viewWords (lower-case, punctuation-free) ---
	s.add(viewWords, ignoreWhy,
		// "ignore (all) (the) previous/prior/above … instructions"
		`\b(?:ignore|disregard|forget|bypass|neglect)(?: (?:all|any|every|of|the|your|my|these|those|this|that))*(?: (?:previous|prior|above|earlier|preceding|foregoing|original|initial|former|system|safety|developer|hidden))+(?: [a-z]+)? (?:instructions?|prompts?|rules|guidelines|directives?|directions|commands|constraints|restrictions|guardrails|programming|messages|context|polic(?:y|ies)|orders|text)\b`,
		// "ignore all instructions"
		`\b(?:ignore|disregard|forget|bypass)(?: (?:all|any|every))(?: (?:of|the|your|my|these|those))*(?: [a-z]+)? (?:instructions?|prompts?|directives?|guardrails|programming)\b`,
		// "disregard your instructions / system prompt"
		`\b(?:ignore|disregard|forget|bypass|override)(?: all)?(?: of)? your(?: [a-z]+)? (?:instructions?|rules|guidelines|programming|system prompt|prompt|directives?|restrictions|constraints|guardrails|training|safety|filters|content polic(?:y|ies)|polic(?:y|ies))\b`,
		// "ignore the above", "forget everything you were told"
		`\b(?:ignore|disregard|forget)(?: all| everything)?(?: of)?(?: the| that| what)? (?:above|everything above|everything before|what you were told|you were told|you have been told|what i said before)\b`,
	)
	s.add(viewSquash, ignoreWhy,
		`(?:ignore|disregard|forget)(?:all|any)?(?:of)?(?:the|your)?(?:previous|prior|above|earlier|preceding)(?:instructions?|prompts?|rules|directives?)`)
	s.add(viewWords, personaWh,
		`\b(?:you are|you re|youre|ur|u r) now\b`,
		`\byou (?:are|re) no longer\b`,
		`\byou (?:will|shall|must) now\b`,
		`\b(?:from now on|from this point(?: on| forward)?|starting now|henceforth)(?: [a-z]+)?? (?:you are|you re|youre|you will be|you ll be|you act|act as|behave as|respond as|pretend|roleplay|role play|you must|you will|you shall|ignore|disregard)\b`,
		`\bpretend(?: that)? (?:you|you re|youre|to be an? (?:ai|assistant|model|chatbot|bot|unrestricted|unfiltered|uncensored|evil|different))\b`,
		`\byour new (?:role|persona|identity|name|task|goal|purpose|instructions|rules|directive) (?:is|are)\b`,
	)
	s.add(viewLower, personaWh,
		// Imperative role-play openers: at the start of a sentence or
		// after "you/please/now". "works as an actor", "wants the bot to
		// act as a reviewer" (a fact) and "enjoys roleplay as a rogue" pass.
		`(?:(?:^|[.!?;:\n])\s*(?:(?:now|ok|okay|so|alright|from now on|henceforth)\s*,?\s*)?|\b(?:you(?: will| must| should| shall| can| are to)?|please)\s+)(?:act|behave|roleplay|role-play|role play|pretend)\s+(?:as|like|to be|that)\b`)
	s.add(viewWords, jailWhy,
		`\b(?:act|behave|respond|operate|function|answer|reply|roleplay|role play|pretend|be)(?: [a-z]+){0,8}? (?:without|with no|free of|free from|unbound by|not bound by|no longer bound by|ignoring) (?:any )?(?:restrictions|limitations|limits|filters|rules|guidelines|censorship|morals|ethics|ethical|safety|boundaries|content polic(?:y|ies)|polic(?:y|ies))\b`,
		`\b(?:act as|be|become|as|you are|you re) (?:an? |the )?(?:unrestricted|unfiltered|uncensored|jailbroken|evil) (?:ai|assistant|model|chatbot|bot|llm|version)\b`,
		`\bdo anything now\b`,
		`\b(?:you|assistant|chatgpt|claude|gpt|ai|model|bot)(?: [a-z]+){0,3} (?:developer|dev|god|sudo|unrestricted|dan|jailbreak|jailbroken) mode\b`,
	)
	s.add(viewWords, jailWhy,
		`\b(?:enable|activate|enter|turn on|switch to) (?:developer|dev|dan|jailbreak) mode\b|\b(?:developer|dev|dan|jailbreak) mode (?:enabled|activated|output|response)\b`,
	).unless = regexp.MustCompile(devices)
	// The bare word: not when it is about a device or about studying
	// jailbreaks (the payload of a real one trips the other rules).
	s.add(viewWords, jailWhy, `\bjailbr(?:eak|eaks|eaking|oken|oke)\b`).unless = regexp.MustCompile(devices + `|\b(?:research\w*|paper|papers|study|studies|talk|defen[cs]es?|detect\w*|security)\b`)
	s.add(viewSquash, jailWhy, `doanythingnow|youarenow(?:dan|unrestricted|jailbroken|free)`)
	// "DAN" only in capitals and in jailbreak context: Dan is a colleague.
	s.add(viewCased, jailWhy,
		`(?i:\b(?:you are|you're|act as|pretend to be|become|roleplay as|play|called|named)\s+)DAN\b|\bDAN\s*(?:mode|prompt|jailbreak|\(|:)`)
	s.add(viewWords, hideWhy,
		`\b(?:do not|don t|dont|never|without)(?: ever)? (?:tell|telling|inform|informing|reveal|revealing|mention|mentioning|disclose|disclosing|show|showing|alert|alerting|notify|notifying|let|letting)(?: [a-z]+)?(?: to)? (?:the user|user|the users|the human|anyone|the operator)(?: (?:that|about|this|anything|what|how|why|where|when|any|know|see)\b|$)`,
		`\b(?:keep|hide) (?:this|it|that|these)(?: [a-z]+)? (?:secret |hidden )?from (?:the user|user|the human)\b`,
		`\bthe user (?:must|should) not (?:know|see|find out|be told)\b`,
	)
	s.add(viewWords, leakWhy,
		`\b(?:reveal|show|print|output|repeat|leak|display|dump|disclose|share|expose|give me|tell me|send me|write out|spell out|recite|echo|paste)(?: me)?(?: back)?(?: all)?(?: of)? your(?: [a-z]+)? (?:system prompt|system message|initial prompt|hidden prompt|original prompt|instructions|prompt|rules|guidelines|configuration)\b`,
		`\b(?:reveal|show|print|output|repeat|leak|display|dump|disclose|expose|recite|echo)(?: me)? the(?: full| entire| complete| whole)? (?:system prompt|system message|initial prompt|hidden prompt|original prompt|hidden instructions|system instructions)\b`,
		`\bwhat (?:is|are|were) your (?:system prompt|initial prompt|instructions|initial instructions)\b`,
	)
	s.add(viewSquash, leakWhy, `(?:reveal|print|show|repeat|leak)yoursystemprompt`)
	s.add(viewWords, metaWhy,
		`\bif you are an? (?:ai|llm|language model|assistant|chatbot|bot)\b`,
		`\bwhen (?:you|the assistant|the ai|the model) (?:reads?|sees?|process(?:es)?) this (?:memory|note|entry|message|instruction)\b`,
		`\b(?:ai|assistant|model|llm|agent|bot) reading this\b`,
	)
	s.add(viewLower, metaWhy,
		`\b(?:note|message|instructions?) (?:to|for) (?:the )?(?:ai|assistant|llm|language model|chatbot|claude|chatgpt|gpt|model|agent)\s*:`)
	// Fake role markers and headers, on viewLower (punctuation matters).
	s.add(viewLower, markerWhy,
		`<\|[a-z_]+\|>`,
		`<\s*/?\s*(?:system|sys|instructions?|developer|assistant|im_start|im_end)\s*>`,
		`\[\s*/?\s*(?:system|inst|sys|assistant|developer|system message|system prompt)\s*\]`,
		`<<\s*/?\s*sys\s*>>`,
		`(?m)^\s*#{1,6}\s*(?:system|instructions?|developer|assistant)\s*(?::|$)`,
		`(?m)^\s*(?:system|developer)\s*:\s*(?:you|ignore|disregard|from now|new|always|never|do not|don't)\b`,
	)
	s.add(viewLower, newWhy,
		`\b(?:new|updated|revised|real|actual|true|additional|secret|hidden|override)(?: system)? (?:instructions?|prompt|directives?)\s*:`,
		`\bsystem (?:prompt|message|instructions?|override|note)\s*:`,
	)

	// --- Chinese (simplified and traditional), on viewSquash ---
	const zhQual = `(?:(?:你的?|之前|以前|先前|上面|以上|上述|前面|前述|此前|原有|原来|原來|原先|原始|所有|全部|一切|任何|系统|系統|安全)的?){1,3}`
	s.add(viewSquash, ignoreWhy,
		`(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|不用理会|不用理會|别管|別管|抛开|拋開|绕过|繞過)掉?`+zhQual+`(?:指令|指示|命令|提示词|提示詞|提示|规则|規則|设定|設定|限制|约束|約束|系统提示|系統提示)`,
		// "forget" is weaker ("forgets the previous settings" is a fact):
		// only with instructions as the object.
		`(?:忘记|忘記|忘掉)掉?`+zhQual+`(?:指令|指示|命令|提示词|提示詞|系统提示|系統提示)`)
	s.add(viewSquash, personaWh,
		`你(?:现在|現在)(?:是|就是|扮演|成为|成為|变成|變成|叫)`,
		`你不再是`,
		`(?:从现在开始|從現在開始|从现在起|從現在起|从此刻起|從此刻起|从今以后|從今以後|从今往后|從今往後)(?:你|您)`,
		`(?:你|请|請)(?:来|來)?扮演`,
		`(?:假装|假裝|假设|假設)(?:你|您)是`,
	)
	s.add(viewSquash, jailWhy,
		`扮演(?:一个|一個|一名)?(?:没有|沒有|不受|无|無)(?:任何)?(?:限制|约束|約束|审查|審查|道德|规则|規則)`,
		`你(?:现在|現在)?(?:没有|沒有|不受)(?:任何)?(?:限制|约束|約束|规则|規則|审查|審查)`,
		`你(?:已经|已經)?(?:进入|進入|处于|處於)(?:开发者|開發者)模式`,
		`(?:开发者|開發者)模式(?:已)?(?:启用|啟用|开启|開啟)`,
	)
	s.add(viewSquash, jailWhy, `越狱|越獄|脱獄`).unless = regexp.MustCompile(devices)
	s.add(viewSquash, hideWhy,
		`(?:不要|别|別|不准|不许|不許|切勿|勿|不能|绝不|絕不|千万别|千萬別)(?:告诉|告訴|透露给|透露給|通知)(?:用户|用戶|使用者)`,
		`(?:不要|别|別|不准|不许|不許|切勿|勿|不能)(?:让|讓)(?:用户|用戶|使用者)(?:知道|发现|發現|看到)`,
	)
	s.add(viewSquash, leakWhy,
		`(?:泄露|洩露|透露|显示|顯示|输出|輸出|告诉我|告訴我|打印|展示|重复|重複|说出|說出|给我看|給我看|公开|公開)(?:一下)?(?:你的?|出)?(?:完整的?|全部的?)?(?:系统提示|系統提示|系统指令|系統指令|初始指令|隐藏指令|隱藏指令)`)
	s.add(viewLower, newWhy,
		`(?:系统提示|系統提示|系统指令|系統指令)(?:词|詞)?\s*:`,
		`新的?(?:指令|指示|系统提示|系統提示)\s*:`,
	)

	// --- Japanese, on viewSquash ---
	s.add(viewSquash, ignoreWhy,
		`(?:以前|前|上記|上|これまで|先ほど|先程|今まで|すべて|全て|元)の(?:すべての|全ての)?(?:指示|命令|指令|ルール|プロンプト|設定|制約|制限)を(?:すべて|全て)?(?:無視|忘れ)`,
		`(?:指示|命令|ルール|制限|制約|プロンプト)を(?:すべて|全て)?無視(?:して|しろ|せよ|すること)`,
	)
	s.add(viewSquash, personaWh,
		`(?:今から|これから|今後)あなたは`, `あなたは(?:今から|これから|もう)`,
		`(?:として|に)(?:振る舞|振舞|なりきっ)て(?:ください|下さい|くれ|$)`,
	)
	s.add(viewSquash, jailWhy, `(?:制限|制約|検閲)のない(?:ai|アシスタント|モデル)`)
	s.add(viewSquash, jailWhy, `開発者モード(?:を)?(?:有効|オン)`).unless = regexp.MustCompile(devices)
	s.add(viewSquash, hideWhy, `ユーザーに(?:は)?(?:言わ|教え|伝え|知らせ)ないで`)
	s.add(viewSquash, leakWhy, `システムプロンプトを?(?:表示|教え|出力|見せ|公開|開示)`)
	s.add(viewLower, newWhy, `システムプロンプト\s*:`, `新しい指示\s*:`)

	// --- Spanish, German, French, on viewWords ---
	s.add(viewWords, ignoreWhy,
		`\b(?:ignora|ignore|ignorar|olvida|olvidar|omite|descarta)(?: todas| todos)?(?: las| los| tus| sus)? (?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices)(?: [a-z]+){0,2}? (?:anteriores|previas|previos|de arriba|del sistema|originales)\b`,
		`\b(?:ignora|olvida|ignorar|olvidar)(?: todas)? tus (?:instrucciones|reglas|indicaciones)\b`,
		`\b(?:ignoriere|ignorier|ignorieren sie|vergiss|vergessen sie|missachte)(?: alle)?(?: deine| die| ihre| bisherigen| vorherigen| vorigen| obigen| früheren)*(?: [a-zäöü]+)? (?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|systemanweisungen)\b`,
		`\b(?:ignore[sz]?|oublie[sz]?)(?: toutes| tous)? (?:les|tes|vos) (?:instructions|consignes|règles|regles)\b`,
	)
	s.add(viewWords, personaWh,
		`\bahora (?:eres|serás|seras|actúas|actuas)\b`,
		`\ba partir de ahora(?: [a-z]+)? (?:eres|actúa|actua|actuarás|actuaras|serás|seras|finge|responde)\b`,
		`\bfinge (?:que eres|ser)\b`,
		`\bdu bist (?:jetzt|nun|ab jetzt|ab sofort|von nun an)\b`,
		`\b(?:ab jetzt|ab sofort|von nun an) (?:bist du|verhältst du dich|tust du|antwortest du)\b`,
		`\btu so als (?:ob du|wärst du|waerst du)\b`,
		`\btu es (?:maintenant|désormais|desormais)\b`,
		`\b(?:à partir de maintenant|a partir de maintenant|désormais|desormais) tu (?:es|seras|agis|dois)\b`,
		`\bfais semblant d (?:être|etre)\b`,
	)
	s.add(viewWords, hideWhy,
		`\bno (?:le )?(?:digas|cuentes|reveles|menciones)(?: [a-z]+)? al usuario\b`,
		`\bsag(?:e)?(?: es)? (?:dem|den) (?:benutzer|nutzer|anwender)(?: [a-z]+)? nicht\b`,
		`\bne (?:le )?dis (?:rien |pas )?(?:à|a) l utilisateur\b`,
	)
	s.add(viewWords, leakWhy,
		`\b(?:revela|muestra|muéstrame|muestrame|dime|imprime)(?: [a-z]+)? (?:tu|el) (?:prompt|mensaje|indicaciones|instrucciones)(?: [a-z]+){0,2}? (?:del )?sistema\b`,
		`\b(?:zeige|zeig|verrate|gib)(?: mir)?(?: [a-z]+)? (?:deinen|deine|den) (?:systemprompt|system prompt|systemanweisungen|anweisungen)\b`,
	)
	s.add(viewWords, jailWhy, `\b(?:modo (?:desarrollador|sin restricciones|dan)|entwicklermodus)\b`).unless = regexp.MustCompile(devices)
	return s.rules
}

// ---------------------------------------------------------------------------
// Invisible and deceptive Unicode.

// checkInvisible rejects characters that render as nothing or reorder
// what is shown, so a human reading /memory sees something other than
// what the model reads: zero-width characters, bidi controls, tag
// characters (which can spell hidden ASCII), other format (Cf) characters,
// control characters other than \n and \t, invisible fillers, runs of
// variation selectors (which can encode hidden bytes), and invalid UTF-8.
//
// Allowed, because real text needs them:
//   - U+200D ZERO WIDTH JOINER between two pictographs (emoji ZWJ
//     sequences: 👩‍💻, 🏳️‍🌈; a trailing U+FE0F or skin tone on the left
//     is fine). Joining pictographs cannot hide words.
//   - U+200C ZWNJ / U+200D ZWJ between two letters of a script that needs
//     them for correct spelling (Persian and other Arabic-script text,
//     Indic scripts, …). Never between Latin letters.
//   - one variation selector after a character that takes it (U+FE0F
//     emoji presentation after anything visible, ideographic variation
//     selectors after Han, …; see variationAllowed). Runs of them, or
//     selectors sprinkled after Latin letters, are how bytes get hidden
//     "inside" an emoji or a word.
//   - the tag characters of the three RGI subdivision flags (England,
//     Scotland, Wales); any other tag sequence is rejected.
func checkInvisible(s string) *MemoryRejection {
	var (
		first   *MemoryRejection
		count   int
		pos     int       // 1-based character index
		prev    rune = -1 // previous rune
		prevVis rune = -1 // previous rune that is not a variation selector
	)
	flag := func(name string) {
		count++
		if first == nil {
			first = &MemoryRejection{Category: GuardUnicode, Reason: fmt.Sprintf("contains invisible or deceptive Unicode: %s at character %d", name, pos)}
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		pos++
		if r >= 0x20 && r < 0x7F { // fast path: printable ASCII
			prev, prevVis = r, r
			i += size
			continue
		}
		next := rune(-1)
		if i+size < len(s) {
			next, _ = utf8.DecodeRuneInString(s[i+size:])
		}
		switch {
		case r == utf8.RuneError && size == 1:
			flag(fmt.Sprintf("invalid UTF-8 byte 0x%02X", s[i]))
		case r == '\n' || r == '\t':
		case r == 0x1F3F4: // 🏴, possibly a subdivision flag
			if n := subdivisionFlagTags(s[i+size:]); n > 0 {
				i += size + n
				pos += utf8.RuneCountInString(s[i-n : i])
				prev, prevVis = 0xE007F, 0x1F3F4
				continue
			}
		case r == 0x200D && isPictograph(prevVis) && isPictograph(next):
		case (r == 0x200C || r == 0x200D) && sameJoiningScript(prev, next):
		case isVariationSelector(r):
			if !variationAllowed(prev, r) {
				flag(runeLabel(r) + " (a variation selector not attached to a character that takes one)")
			}
		case invisibleRune(r):
			flag(runeLabel(r))
		}
		prev = r
		if !isVariationSelector(r) {
			prevVis = r
		}
		i += size
	}
	if first != nil && count > 1 {
		first.Reason += fmt.Sprintf(" (%d such characters in all)", count)
	}
	return first
}

// invisibleRune: control characters other than \n and \t, format (Cf)
// characters, and visible-width-zero fillers that are not Cf.
func invisibleRune(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
		return true
	}
	switch r {
	case 0x034F, // COMBINING GRAPHEME JOINER
		0x115F, 0x1160, 0x3164, 0xFFA0, // Hangul fillers
		0x17B4, 0x17B5, // Khmer inherent vowels
		0x2800,         // BRAILLE PATTERN BLANK
		0x2028, 0x2029: // line / paragraph separator: hidden line breaks
		return true
	}
	return false
}

// variationAllowed: a single variation selector after a base that uses
// it. VS15/VS16 (text / emoji presentation) may follow any visible
// character; ideographic variation selectors only Han; the other
// standardized ones Han, symbols and the few scripts that define
// sequences; Mongolian free variation selectors only Mongolian. A run of
// selectors, or one after a Latin letter, is how bytes get hidden.
func variationAllowed(base, vs rune) bool {
	if base < 0 || isVariationSelector(base) || invisibleRune(base) || unicode.IsSpace(base) {
		return false
	}
	switch {
	case vs == 0xFE0E || vs == 0xFE0F:
		return true
	case vs >= 0xE0100:
		return unicode.Is(unicode.Han, base)
	case vs >= 0xFE00:
		return unicode.In(base, unicode.Han, unicode.Myanmar, unicode.Phags_Pa, unicode.Manichaean) || unicode.IsSymbol(base)
	}
	return unicode.Is(unicode.Mongolian, base)
}

func isVariationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF || r >= 0x180B && r <= 0x180D || r == 0x180F
}

// isPictograph approximates Extended_Pictographic (Go's unicode package
// has no table for it) with the blocks emoji ZWJ sequences draw from.
func isPictograph(r rune) bool {
	switch {
	case r < 0xA9:
		return false
	case r == 0xA9, r == 0xAE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139,
		r >= 0x2194 && r <= 0x21FF, r >= 0x2300 && r <= 0x23FF, r == 0x24C2,
		r >= 0x25A0 && r <= 0x27BF, r >= 0x2900 && r <= 0x297F, r >= 0x2B00 && r <= 0x2BFF,
		r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299,
		r >= 0x1F000 && r <= 0x1FAFF, r >= 0x1FC00 && r <= 0x1FFFD:
		return true
	}
	return false
}

// sameJoiningScript: a and b belong to one script that uses ZWJ / ZWNJ
// inside words.
func sameJoiningScript(a, b rune) bool {
	if a < 0x80 || b < 0x80 {
		return false
	}
	for _, t := range [...]*unicode.RangeTable{
		unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian,
		unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
		unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
		unicode.Myanmar, unicode.Khmer,
	} {
		if unicode.Is(t, a) && unicode.Is(t, b) {
			return true
		}
	}
	return false
}

// subdivisionFlagTags returns the byte length of the tag sequence after 🏴
// if it spells one of the RGI subdivision flags, else 0.
func subdivisionFlagTags(s string) int {
	var tag []byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == 0xE007F:
			switch string(tag) {
			case "gbeng", "gbsct", "gbwls":
				return i
			}
			return 0
		case r >= 0xE0020 && r < 0xE007F && len(tag) < 8:
			tag = append(tag, byte(r-0xE0000))
		default:
			return 0
		}
	}
	return 0
}

// runeLabel names a code point: "U+202E RIGHT-TO-LEFT OVERRIDE". Names
// are listed for the characters attacks use; others get their class.
func runeLabel(r rune) string {
	name := ""
	switch r {
	case 0x00:
		name = "NULL"
	case 0x07:
		name = "BELL"
	case 0x08:
		name = "BACKSPACE"
	case 0x0D:
		name = "CARRIAGE RETURN"
	case 0x1B:
		name = "ESCAPE"
	case 0x7F:
		name = "DELETE"
	case 0xAD:
		name = "SOFT HYPHEN"
	case 0x034F:
		name = "COMBINING GRAPHEME JOINER"
	case 0x061C:
		name = "ARABIC LETTER MARK"
	case 0x115F:
		name = "HANGUL CHOSEONG FILLER"
	case 0x1160:
		name = "HANGUL JUNGSEONG FILLER"
	case 0x17B4:
		name = "KHMER VOWEL INHERENT AQ"
	case 0x17B5:
		name = "KHMER VOWEL INHERENT AA"
	case 0x180E:
		name = "MONGOLIAN VOWEL SEPARATOR"
	case 0x200B:
		name = "ZERO WIDTH SPACE"
	case 0x200C:
		name = "ZERO WIDTH NON-JOINER"
	case 0x200D:
		name = "ZERO WIDTH JOINER"
	case 0x200E:
		name = "LEFT-TO-RIGHT MARK"
	case 0x200F:
		name = "RIGHT-TO-LEFT MARK"
	case 0x2028:
		name = "LINE SEPARATOR"
	case 0x2029:
		name = "PARAGRAPH SEPARATOR"
	case 0x202A:
		name = "LEFT-TO-RIGHT EMBEDDING"
	case 0x202B:
		name = "RIGHT-TO-LEFT EMBEDDING"
	case 0x202C:
		name = "POP DIRECTIONAL FORMATTING"
	case 0x202D:
		name = "LEFT-TO-RIGHT OVERRIDE"
	case 0x202E:
		name = "RIGHT-TO-LEFT OVERRIDE"
	case 0x2060:
		name = "WORD JOINER"
	case 0x2061:
		name = "FUNCTION APPLICATION"
	case 0x2062:
		name = "INVISIBLE TIMES"
	case 0x2063:
		name = "INVISIBLE SEPARATOR"
	case 0x2064:
		name = "INVISIBLE PLUS"
	case 0x2066:
		name = "LEFT-TO-RIGHT ISOLATE"
	case 0x2067:
		name = "RIGHT-TO-LEFT ISOLATE"
	case 0x2068:
		name = "FIRST STRONG ISOLATE"
	case 0x2069:
		name = "POP DIRECTIONAL ISOLATE"
	case 0x2800:
		name = "BRAILLE PATTERN BLANK"
	case 0x3164:
		name = "HANGUL FILLER"
	case 0xFEFF:
		name = "ZERO WIDTH NO-BREAK SPACE"
	case 0xFFA0:
		name = "HALFWIDTH HANGUL FILLER"
	case 0xE0001:
		name = "LANGUAGE TAG"
	case 0xE007F:
		name = "CANCEL TAG"
	}
	switch {
	case name != "":
	case r >= 0xE0020 && r < 0xE007F:
		name = "TAG CHARACTER (invisible ASCII)"
	case isVariationSelector(r):
		name = "VARIATION SELECTOR"
	case unicode.IsControl(r):
		name = "control character"
	case unicode.Is(unicode.Cf, r):
		name = "invisible format character"
	default:
		name = "invisible character"
	}
	return fmt.Sprintf("U+%04X %s", r, name)
}
