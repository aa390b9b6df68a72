package guard

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Encoded text.
//
// A model asked to "decode and follow" will read base64 or hex as easily
// as plain text, so an instruction hidden that way is as dangerous as one
// spelled out. decodings finds the encodings attackers use to slip past
// phrase tables and returns what they hide, which the checker then runs
// through every table. Only decodings that yield readable text are
// returned: a commit hash, a GPG fingerprint or a data URI decodes to
// bytes, not words, and is left alone.

// decoded is one hidden text and the name of the encoding that hid it.
type decoded struct{ how, text string }

const (
	minBase64 = 16 // characters: 12 bytes, shorter than any instruction
	minHex    = 8  // bytes
	// maxDecodeDepth bounds how often decoded text is itself decoded
	// (base64 of hex is still cheap; a deeper nest is not worth the time).
	maxDecodeDepth = 2
)

// decodings returns the readable texts hidden in content. words is its
// viewWords form, in which t's words trigger ROT13 and reversal.
func decodings(content, words string, t *decodeTriggers) []decoded {
	var out []decoded
	add := func(how string, b []byte) {
		if readable(b) {
			out = append(out, decoded{how, string(b)})
		}
	}
	for _, run := range runs(content, isBase64Byte, minBase64) {
		for _, enc := range [...]*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(run); err == nil {
				add("base64", b)
				break
			}
		}
	}
	for _, run := range runs(content, isHexByte, 2*minHex) {
		if b, err := hex.DecodeString(run[:len(run)&^1]); err == nil {
			add("hex", b)
		}
	}
	if b := separatedHex(content); b != nil {
		add("hex", b)
	}
	if strings.Count(content, "%") >= 4 {
		if b := percentDecode(content); b != nil {
			add("percent-encoding", b)
		}
	}
	if countAny(words, t.rot13) >= 2 {
		out = append(out, decoded{"ROT13", strings.Map(rot13, content)})
	}
	if countAny(words, t.reversed) >= 2 {
		r := []rune(content)
		slices.Reverse(r)
		out = append(out, decoded{"reversed text", string(r)})
	}
	return out
}

// decodeTriggers are the words of the commonest attacks as they read in
// ROT13 and backwards. Two of them in one entry trigger decoding: one
// could be a coincidence.
type decodeTriggers struct{ rot13, reversed []string }

func newDecodeTriggers() decodeTriggers {
	words := []string{"ignore", "disregard", "forget", "previous", "instructions", "approval", "permission", "system", "prompt", "assistant", "rules", "never", "commands"}
	var t decodeTriggers
	for _, w := range words {
		t.rot13 = append(t.rot13, strings.Map(rot13, w))
		r := []rune(w)
		slices.Reverse(r)
		t.reversed = append(t.reversed, string(r))
	}
	return t
}

func countAny(s string, words []string) int {
	n := 0
	for _, w := range words {
		if strings.Contains(s, w) {
			n++
		}
	}
	return n
}

func rot13(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z':
		return 'a' + (r-'a'+13)%26
	case r >= 'A' && r <= 'Z':
		return 'A' + (r-'A'+13)%26
	}
	return r
}

// isBase64Byte: both alphabets (standard and URL-safe). Padding is not
// part of a run: "?q=SWdu…" must yield the run after the "=".
func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// runs returns the maximal runs of bytes satisfying in that are at least
// atLeast long.
func runs(s string, in func(byte) bool, atLeast int) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && in(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= atLeast {
			out = append(out, s[start:i])
		}
		start = -1
	}
	return out
}

// separatedHex decodes the longest run of hex byte pairs written one by
// one: "\x69\x67…", "69 67 6e …", "69:67:…". Runs shorter than minHex
// bytes (a MAC address has six) are ignored. It scans without allocating
// until it has found a run worth decoding: most entries have none.
func separatedHex(s string) []byte {
	if strings.Contains(s, `\x`) {
		s = strings.ReplaceAll(s, `\x`, " ")
	}
	isSep := func(c byte) bool { return c == ' ' || c == ':' || c == ',' || c == '-' }
	bestStart, bestN, curStart, curN := 0, 0, 0, 0
	for i := 0; i < len(s); {
		for i < len(s) && isSep(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSep(s[j]) {
			j++
		}
		if j-i == 2 && isHexByte(s[i]) && isHexByte(s[i+1]) {
			if curN == 0 {
				curStart = i
			}
			curN++
			if curN > bestN {
				bestStart, bestN = curStart, curN
			}
		} else {
			curN = 0
		}
		i = j
	}
	if bestN < minHex {
		return nil
	}
	out := make([]byte, 0, bestN)
	for i := bestStart; len(out) < bestN; i++ {
		if !isSep(s[i]) {
			b, _ := hex.DecodeString(s[i : i+2])
			out = append(out, b[0])
			i++
		}
	}
	return out
}

// percentDecode decodes every %XX in s, leaving anything else as is; nil
// if there was nothing to decode.
func percentDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexByte(s[i+1]) && isHexByte(s[i+2]) {
			b, _ := hex.DecodeString(s[i+1 : i+3])
			out = append(out, b[0])
			i += 2
			n++
			continue
		}
		out = append(out, s[i])
	}
	if n == 0 {
		return nil
	}
	return out
}

// readable: valid UTF-8, nearly all of it printable, with a few letters —
// what text looks like and what random or binary bytes almost never do.
func readable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	var n, printable, letters int
	for _, r := range string(b) {
		n++
		if unicode.IsPrint(r) || r == '\n' || r == '\t' {
			printable++
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 4 && printable*20 >= n*19
}
