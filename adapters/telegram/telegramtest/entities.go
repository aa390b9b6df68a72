package telegramtest

import (
	"strconv"
	"strings"
)

// entityAt finds the syntactic entity "&name;" at src[i] == '&'.
func entityAt(src string, i int) (name string, end int, ok bool) {
	const maxName = 32
	j := i + 1
	for j < len(src) && j-i <= maxName && isEntityByte(src[j]) {
		j++
	}
	if j == i+1 || j >= len(src) || src[j] != ';' {
		return "", 0, false
	}
	return src[i+1 : j], j + 1, true
}

// entityValue decodes the named entities Telegram knows and numeric ones.
func entityValue(name string) (string, bool) {
	switch name {
	case "lt":
		return "<", true
	case "gt":
		return ">", true
	case "amp":
		return "&", true
	case "quot":
		return "\"", true
	}
	num, ok := strings.CutPrefix(name, "#")
	if !ok {
		return "", false
	}
	base := 10
	if hex, ok := strings.CutPrefix(num, "x"); ok {
		num, base = hex, 16
	} else if hex, ok := strings.CutPrefix(num, "X"); ok {
		num, base = hex, 16
	}
	v, err := strconv.ParseUint(num, base, 32)
	if err != nil || v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) {
		return "", false
	}
	return string(rune(v)), true
}

// decodeAttr decodes entities in an attribute value, leaving unknown ones
// as written.
func decodeAttr(v string) string {
	if !strings.Contains(v, "&") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		if v[i] == '&' {
			if name, end, ok := entityAt(v, i); ok {
				if s, known := entityValue(name); known {
					b.WriteString(s)
					i = end
					continue
				}
			}
		}
		b.WriteByte(v[i])
		i++
	}
	return b.String()
}

func skipSpace(s string, j int) int {
	for j < len(s) && isSpace(s[j]) {
		j++
	}
	return j
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isTagNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

func isAttrNameByte(c byte) bool { return isTagNameByte(c) || c == '_' || c == ':' }

func isEntityByte(c byte) bool { return isTagNameByte(c) && c != '-' || c == '#' }

// utf16Len is the length of s in UTF-16 code units, the unit of Telegram's
// limits and entity offsets.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
