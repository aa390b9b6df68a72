package config

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/parleybot/parley/internal/lazyre"
	"github.com/parleybot/parley/internal/secret"
)

// What Parley prints about configuration values, in errors and in `parley
// doctor`, must never carry a secret: a key pasted into the wrong field is
// still a key, and a base URL can hold credentials (user:password@, or a
// token in the query).

// hiddenValue stands in for a value that looks like a secret.
const hiddenValue = "(a value that looks like a secret; not shown)"

var (
	secretPrefixes = []string{"sk-", "xoxb-", "xoxp-", "xoxa-", "xoxe-", "xapp-", "ghp_", "gho_", "ghs_", "github_pat_", "glpat-", "AKIA", "AIza", "Bearer "}
	telegramToken  = lazyre.MustCompile(`^\d{5,15}:[A-Za-z0-9_-]{30,}$`)
	tokenish       = lazyre.MustCompile(`^[A-Za-z0-9_\-+/=.~]{24,}$`)
	secretParam    = lazyre.MustCompile(`(?i)key|token|secret|pass|auth|sig|credential`)
)

// looksSecret reports whether s looks like a credential: a known token
// format, or a long unbroken run of letters and digits mixed.
func looksSecret(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range secretPrefixes {
		if strings.HasPrefix(s, p) && len(s) > len(p)+8 {
			return true
		}
	}
	if telegramToken().MatchString(s) {
		return true
	}
	if !tokenish().MatchString(s) {
		return false
	}
	letters := strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	digits := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
	return letters && digits
}

// RedactURL returns s fit to print: credentials in its user part and the
// values of secret-looking query parameters are replaced. A value that is
// not a URL but looks like a secret is not shown at all.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	// A URL may name no host and still carry credentials: PostgreSQL's
	// Unix-socket form, postgres://user:password@/db?host=/run/postgresql.
	if err != nil || u.Scheme == "" || (u.Host == "" && u.User == nil) {
		return Quiet(s)
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if secretParam().MatchString(k) {
				q.Set(k, "redacted")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Quiet returns s, or a placeholder when s looks like a secret.
func Quiet(s string) string {
	if looksSecret(s) {
		return hiddenValue
	}
	return s
}

// shown is s quoted for a message, or, when it looks like a secret, a
// note that it is not shown: a key pasted into the wrong field (or used
// as a key's name) is still a key.
func shown(s string) string {
	if looksSecret(s) {
		return hiddenValue
	}
	return strconv.Quote(s)
}

// shownKey is a dotted key for a message, each part that looks like a
// secret replaced by a note.
func shownKey(key string) string {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if looksSecret(p) {
			parts[i] = "(a name that looks like a secret; not shown)"
		}
	}
	return strings.Join(parts, ".")
}

// quietArgs hides the string arguments of a problem's message that look
// like secrets, and redacts URLs.
func quietArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(string); ok {
			if strings.Contains(s, "://") {
				a = RedactURL(s)
			} else {
				a = Quiet(s)
			}
		}
		out[i] = a
	}
	return out
}

// SecretValues lists every secret the configuration holds, revealed, so
// that text about to be printed can be scrubbed of them.
func (c *Config) SecretValues() []string {
	var out []string
	add := func(s secret.Secret) {
		if v := s.Reveal(); v != "" {
			out = append(out, v)
		}
	}
	add(c.LLM.OpenAI.APIKey)
	add(c.LLM.Anthropic.APIKey)
	add(c.Tools.WebSearch.APIKey)
	for _, p := range c.Providers {
		add(p.APIKey)
		add(p.Key)
		for _, v := range p.Headers {
			add(v)
		}
	}
	for _, l := range c.leaves() {
		if l.platform && l.typ == reflect.TypeFor[secret.Secret]() {
			add(l.field(c).Interface().(secret.Secret))
		}
	}
	for _, srv := range c.Tools.MCP.Servers {
		for _, v := range srv.Env {
			add(v)
		}
		for _, v := range srv.Headers {
			add(v)
		}
	}
	return out
}
