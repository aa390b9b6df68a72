package rowdata

import "unicode/utf8"

// What Conversations does the same way on both engines.

// IDRange is the range of ids, by bytes, that start with prefix: every id
// in [prefix, hi). ok is false when there is no such bound (prefix empty
// or all 0xFF bytes), or — for PostgreSQL, whose text must be UTF-8 — when
// hi would not be valid UTF-8; the caller then tests the prefix alone.
// The range lets the primary key's index find a prefix's sessions instead
// of testing every session.
func IDRange(prefix string) (hi string, ok bool) {
	b := []byte(prefix)
	for len(b) > 0 && b[len(b)-1] == 0xFF {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "", false
	}
	b[len(b)-1]++
	if !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}
