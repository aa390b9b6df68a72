package secret

import (
	"fmt"
	"log/slog"
	"strings"
)

// Secret is a credential. It masks itself in every printed, logged or
// marshalled form (any fmt verb, slog, JSON, YAML, text), so a Config or
// any part of it can be dumped without leaking a key. Call Reveal, at the one place
// that hands the credential to an SDK, to get the real value.
type Secret string

// Reveal returns the credential itself. Never log the result.
func (s Secret) Reveal() string { return string(s) }

// String masks the secret; see [Mask].
func (s Secret) String() string { return Mask(string(s)) }

// Format masks the secret under every verb. String alone is not enough:
// fmt bypasses it for %#v and prints the raw value for verbs that do not
// suit a string, such as %d.
func (s Secret) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, fmt.FormatString(f, verb), Mask(string(s)))
}

// MarshalText masks the secret in JSON, YAML and any other encoder that
// honours encoding.TextMarshaler.
func (s Secret) MarshalText() ([]byte, error) { return []byte(Mask(string(s))), nil }

// LogValue masks the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(Mask(string(s))) }

// Shortest secret of which Mask shows the tail: 4 characters of 16 give
// an operator something to recognise while leaving 12 unknown.
const minTailLen = 16

// Mask hides a secret while leaving enough to tell which one is
// configured: at most the last 4 characters, plus a well-known type prefix
// such as "sk-", "xoxb-" or "xapp-" (which tells a Slack bot token from an
// app token, a common mix-up). Short secrets show nothing at all. The
// empty string becomes "(not set)".
//
//	Mask("sk-proj-abcdefghijkl9xQ2") == "sk-…9xQ2"
func Mask(secret string) string {
	if secret == "" {
		return "(not set)"
	}
	r := []rune(secret)
	if len(r) < minTailLen {
		return "****"
	}
	return typePrefix(secret) + "…" + string(r[len(r)-4:])
}

// typePrefix returns a leading "letters-" marker of 1 to 4 lowercase ASCII
// letters, the form vendors use to label token types; "" if there is none.
func typePrefix(s string) string {
	i := strings.IndexByte(s, '-')
	if i < 1 || i > 4 {
		return ""
	}
	for _, c := range []byte(s[:i]) {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	return s[:i+1]
}
