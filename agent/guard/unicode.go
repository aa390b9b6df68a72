package guard

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

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
func checkInvisible(s string) *Rejection {
	var (
		first   *Rejection
		count   int
		pos     int       // 1-based character index
		prev    rune = -1 // previous rune
		prevVis rune = -1 // previous rune that is not a variation selector
	)
	flag := func(name string) {
		count++
		if first == nil {
			first = &Rejection{Category: Unicode, Reason: fmt.Sprintf("contains invisible or deceptive Unicode: %s at character %d", name, pos)}
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
// are listed for the characters attacks use; others get their class. It is
// long because it is a table.
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
