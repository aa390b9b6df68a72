package kb

import (
	"slices"
	"strings"
	"unicode"
)

// The keyword index is SQLite FTS5 with its unicode61 tokenizer, which
// splits on everything but letters, digits and (configured) '_'. That
// serves Latin text and code identifiers — `next_run_at` and
// `ParseModelRef` stay whole tokens — but it reads a run of Chinese,
// Japanese or Korean as one long token, so 设备 inside 申领设备的流程 would
// never match. So the index is fed a derived text: CJK runs are cut apart
// from the letters glued to them and written as overlapping bigrams (the
// usual CJK indexing, as in Lucene's CJK analyzer), plus a second column
// of single characters for one-character queries. Queries get the same
// treatment, so what the index sees and what a query asks for always
// match.

// IndexText is what the keyword index stores for text: body, where CJK
// runs are bigrams (a one-character run stays itself), and uni, the CJK
// characters one by one.
func IndexText(text string) (body, uni string) {
	var b, u strings.Builder
	b.Grow(len(text) + len(text)/2)
	var run []rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		b.WriteByte(' ')
		b.WriteString(strings.Join(bigrams(run), " "))
		b.WriteByte(' ')
		for _, r := range run {
			u.WriteRune(r)
			u.WriteByte(' ')
		}
		run = run[:0]
	}
	for _, r := range text {
		if isCJK(r) {
			run = append(run, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String(), strings.TrimSpace(u.String())
}

// MatchQuery turns what someone asked into an FTS5 query over IndexText's
// columns, or "" when it holds nothing to search for. Every term is
// quoted, so nothing a person types (-, :, *, AND, NEAR, quotes) is read
// as query syntax. Terms are joined by OR and BM25 ranks passages holding
// more of them higher; a query of several words, and each CJK run, also
// adds itself as a phrase, so a passage holding the exact string (a
// multi-word name, 成语接龙) outranks one holding the words apart.
func MatchQuery(q string) string {
	var terms, words []string
	add := func(t string) {
		if t != "" && !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	for _, tok := range queryTokens(q) {
		if !tok.cjk {
			words = append(words, tok.text)
			continue
		}
		run := []rune(tok.text)
		grams := bigrams(run)
		if len(grams) > 1 {
			add(quote(strings.Join(grams, " ")))
		}
		for _, g := range grams {
			add(quote(g))
		}
	}
	kept := withoutStopwords(words)
	if len(words) > 1 {
		add(quote(strings.Join(words, " ")))
	}
	for _, w := range kept {
		add(quote(w))
	}
	return strings.Join(terms, " OR ")
}

// QueryWord is a piece of a query as the index reads it: a word
// (lower-cased), or a run of CJK characters (CJK), which the index
// finds by its pairs.
type QueryWord struct {
	Text string
	CJK  bool
}

// QueryWords cuts q as MatchQuery does, for those who show what a search
// matched (store.Snippet marks these words in a message).
func QueryWords(q string) []QueryWord {
	toks := queryTokens(q)
	out := make([]QueryWord, len(toks))
	for i, t := range toks {
		out[i] = QueryWord{Text: t.text, CJK: t.cjk}
	}
	return out
}

// IsCJK reports whether r is of the scripts the index cuts into pairs.
func IsCJK(r rune) bool { return isCJK(r) }

// token is one piece of a query: a word as unicode61 would cut it, or a
// run of CJK characters.
type token struct {
	text string
	cjk  bool
}

// queryTokens cuts q the way the index cuts text: words of letters, digits
// and '_', lowercased; CJK runs apart.
func queryTokens(q string) []token {
	var out []token
	var cur []rune
	curCJK := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, token{text: strings.ToLower(string(cur)), cjk: curCJK})
			cur = cur[:0]
		}
	}
	for _, r := range q {
		switch {
		case isCJK(r):
			if !curCJK {
				flush()
			}
			curCJK = true
			cur = append(cur, r)
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_':
			if curCJK {
				flush()
			}
			curCJK = false
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// bigrams are run's overlapping pairs; a run of one is itself.
func bigrams(run []rune) []string {
	if len(run) == 1 {
		return []string{string(run)}
	}
	out := make([]string, 0, len(run)-1)
	for i := 0; i+1 < len(run); i++ {
		out = append(out, string(run[i:i+2]))
	}
	return out
}

// isCJK reports the scripts written without spaces between words, which
// unicode61 cannot cut: Han, Hiragana, Katakana; and Hangul, whose words
// are long enough that bigrams find them inside compounds.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// quote makes s one FTS5 string: double quotes inside are doubled.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// withoutStopwords drops the commonest English words from a query of
// several words: in an OR query they match nearly every passage and only
// cost time. A query of nothing but them keeps them.
func withoutStopwords(words []string) []string {
	var out []string
	for _, w := range words {
		if !stopword(w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return words
	}
	return out
}

func stopword(w string) bool {
	switch w {
	case "a", "an", "the", "is", "are", "was", "were", "be", "to", "of", "in", "on", "at", "for",
		"and", "or", "it", "this", "that", "what", "which", "who", "how", "do", "does", "did",
		"i", "we", "you", "my", "our", "with", "by", "from", "as", "can", "should", "when", "where", "why":
		return true
	}
	return false
}
