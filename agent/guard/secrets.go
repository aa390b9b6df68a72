package guard

import (
	"strings"
	"unicode"
)

// Secrets: the content carries a credential. Case-sensitive, on viewCased.

func secretRules() []rule {
	s := ruleSet{category: Secret}
	add := func(what, pattern string, valid func(string) bool) *rule {
		r := s.add(viewCased, "contains what looks like "+what, pattern)
		r.valid, r.redact = valid, true
		return r
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
		}).need = []string{":", "="}
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
