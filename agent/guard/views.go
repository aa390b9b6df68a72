package guard

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Normalized views.

// view selects which normalized form of the content a rule matches.
type view uint8

const (
	// viewCased: NFKC, homoglyphs folded to Latin, whitespace runs
	// collapsed; case kept. For secrets, env-var names, "DAN".
	viewCased view = iota
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
	// viewNative: viewWords without the homoglyph folding, so Russian
	// (and any Cyrillic or Greek) text reads as itself: the folding
	// turns "игнорируй" into "игнopиpyй", which no table can spell. The
	// same string as viewWords when nothing was folded.
	viewNative
	numViews
)

type views [numViews]string

func makeViews(s string) views {
	var v views
	s = norm.NFKC.String(s)
	var cased, lower strings.Builder
	cased.Grow(len(s))
	lower.Grow(len(s))
	folded := false
	space := "" // pending separator: "", " " or "\n"
	for _, r := range s {
		if isArabicDiacritic(r) {
			continue
		}
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
		f := foldHomoglyph(r)
		folded = folded || f != r
		cased.WriteRune(f)
		lower.WriteRune(unicode.ToLower(f))
	}
	v[viewCased] = cased.String()
	v[viewLower] = lower.String()
	v[viewWords] = wordsOf(v[viewLower])
	v[viewSquash] = strings.ReplaceAll(v[viewWords], " ", "")
	v[viewNative] = v[viewWords]
	if folded {
		v[viewNative] = wordsOf(strings.Map(func(r rune) rune {
			if isArabicDiacritic(r) {
				return -1
			}
			if r = unicode.ToLower(r); r == 'ё' {
				return 'е' // written either way
			}
			return r
		}, s))
	}
	return v
}

// isArabicDiacritic: the optional short-vowel marks (harakat, tanwin,
// shadda, sukun, superscript alef) and the tatweel that stretches words.
// Arabic is mostly written without them, so the tables are too, and
// sprinkling them in must not hide a phrase.
func isArabicDiacritic(r rune) bool {
	return r >= 0x064B && r <= 0x065F || r == 0x0670 || r == 0x0640
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
