package postgres

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The keyword index: each passage's tsvector (kb_chunks.tsv, GIN-indexed),
// searched with a tsquery and ranked by ts_rank_cd.
//
// Both are built here, in Go, as tsvector and tsquery literals, rather than
// by to_tsvector and websearch_to_tsquery: PostgreSQL's parser (even with
// the 'simple' configuration) cuts words at '_' and reads hyphenated words,
// URLs and paths its own way, so `next_run_at` would become three words
// and a search for `next_run` would find it. agent/kb writes the index
// text and the query (kb.IndexText, kb.MatchQuery) for SQLite FTS5's
// unicode61 tokenizer, so the same tokenizer is reproduced here, cutting
// where kb.MatchQuery cuts a query: a token is a run of letters, digits and
// '_', lower-cased, with the diacritics
// of Latin letters removed (remove_diacritics 2). No stemming and no stop
// words, like the 'simple' configuration, so any language works, and CJK
// text is found through the bigrams kb.IndexText writes.

// Weights of the index text's three columns, as store's bm25() weighs them
// (body 1.0, single CJK characters 0.5, the document's name 0.3). The
// tsvector labels them A, B and C; ts_rank_cd takes weights in D, C, B, A
// order.
const (
	weightBody  = 'A'
	weightUni   = 'B'
	weightHead  = 'C'
	rankWeights = "{0.1, 0.3, 0.5, 1.0}"
	// rankNormalization is ts_rank_cd's 32, rank/(rank+1): a term's
	// share saturates as its occurrences grow, as BM25's term frequency
	// does, so one word repeated cannot outweigh two rare ones. On the
	// labelled set (kb_eval_test.go, 40-line passages) it reached recall@5
	// 91.4 %, MRR 0.815, against 90.7 %, 0.778 with 0 (none), 0.708 with 2
	// (by length) and SQLite's BM25 90.7 %, 0.805.
	rankNormalization = "32"
)

// PostgreSQL's limits: a lexeme is under 2 KiB, a position at most 16383
// (larger ones are clamped), a lexeme keeps at most 256 positions.
const (
	maxLexeme    = 2046
	maxPosition  = 16383
	maxPositions = 256
)

// tokens cuts text as unicode61 does.
func tokens(text string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			if cur.Len() <= maxLexeme { // longer ones PostgreSQL refuses; nobody searches them
				out = append(out, cur.String())
			}
			cur.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || unicode.Is(unicode.Co, r):
			cur.WriteString(fold(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// fold lower-cases r and, for a Latin letter, removes its diacritics.
func fold(r rune) string {
	r = unicode.ToLower(r)
	if r < 0x80 || !unicode.Is(unicode.Latin, r) {
		return string(r)
	}
	var b strings.Builder
	for _, d := range norm.NFD.String(string(r)) {
		if !unicode.Is(unicode.Mn, d) {
			b.WriteRune(d)
		}
	}
	return b.String()
}

// tsvectorLiteral is the tsvector of a passage's index text: body, uni and
// head weighted A, B and C. Each column's positions start after the
// previous column's plus a gap, so no phrase matches across two columns.
func tsvectorLiteral(body, uni, head string) string {
	positions := map[string][]string{} // lexeme → "12A", …
	var order []string
	pos := 0
	for _, col := range []struct {
		text   string
		weight byte
	}{{body, weightBody}, {uni, weightUni}, {head, weightHead}} {
		for _, tok := range tokens(col.text) {
			pos++
			p, seen := positions[tok]
			if !seen {
				order = append(order, tok)
			}
			if len(p) < maxPositions {
				positions[tok] = append(p, strconv.Itoa(min(pos, maxPosition))+string(col.weight))
			}
		}
		pos++ // the gap between columns
	}
	var b strings.Builder
	for i, tok := range order {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(tok))
		b.WriteByte(':')
		b.WriteString(strings.Join(positions[tok], ","))
	}
	return b.String()
}

// tsqueryTerms turns an FTS5 query as kb.MatchQuery writes it — quoted
// strings joined by OR — into tsquery literals, one per string: a phrase
// of its tokens (<->), or one token. Anything outside quotes (OR) is
// syntax and dropped, as are strings with no token; duplicates count
// once.
func tsqueryTerms(match string) []string {
	var terms []string
	for _, s := range fts5Strings(match) {
		toks := tokens(s)
		if len(toks) == 0 {
			continue
		}
		for i, t := range toks {
			toks[i] = quoteLexeme(t)
		}
		term := strings.Join(toks, " <-> ")
		if len(toks) > 1 {
			term = "(" + term + ")"
		}
		if !slices.Contains(terms, term) {
			terms = append(terms, term)
		}
	}
	return terms
}

// fts5Strings returns the double-quoted strings of an FTS5 query, with
// doubled quotes inside read as one. An unterminated string runs to the
// end.
func fts5Strings(q string) []string {
	var out []string
	for {
		start := strings.IndexByte(q, '"')
		if start < 0 {
			return out
		}
		q = q[start+1:]
		var s strings.Builder
		for {
			end := strings.IndexByte(q, '"')
			if end < 0 {
				s.WriteString(q)
				return append(out, s.String())
			}
			s.WriteString(q[:end])
			q = q[end+1:]
			if !strings.HasPrefix(q, `"`) {
				break
			}
			s.WriteByte('"')
			q = q[1:]
		}
		out = append(out, s.String())
	}
}

// quoteLexeme writes a lexeme for a tsvector or tsquery literal: in
// single quotes, with quotes and backslashes escaped.
func quoteLexeme(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

// keywordSearchSQL ranks the passages of scopes ($1) that match any of
// the terms ($2, tsquery literals) and returns the best $3. A passage's
// rank is the sum, over the terms it matches, of ts_rank_cd for that term
// times the term's inverse document frequency among the passages of
// scopes — BM25's IDF, which ts_rank_cd lacks: without it a common word
// counts as much as the rare identifier a question is about (on the
// labelled set, MRR 0.72 without, 0.82 with, SQLite's 0.80). The scope
// filter is inside every count and the ranking, so the n best are the n
// best of what the asker may see.
const keywordSearchSQL = `
	WITH terms AS (
		SELECT t.q, ln(1 + (total.n - df.n + 0.5) / (df.n + 0.5)) AS idf
		FROM (SELECT DISTINCT CAST(s AS tsquery) AS q FROM unnest($2::text[]) AS s) AS t,
		     (SELECT count(*) AS n FROM kb_chunks WHERE scope = ANY($1)) AS total,
		     LATERAL (SELECT count(*) AS n FROM kb_chunks WHERE scope = ANY($1) AND tsv @@ t.q) AS df
		WHERE df.n > 0
	), ranked AS (
		SELECT c.id, sum(terms.idf * ts_rank_cd('` + rankWeights + `', c.tsv, terms.q, ` + rankNormalization + `)) AS rank
		FROM kb_chunks c JOIN terms ON c.tsv @@ terms.q
		WHERE c.scope = ANY($1)
		GROUP BY c.id
		ORDER BY rank DESC, c.id LIMIT $3
	)
	SELECT c.id, c.doc_id, d.source, c.start_line, c.end_line, c.text, r.rank
	FROM ranked r JOIN kb_chunks c ON c.id = r.id JOIN kb_documents d ON d.id = c.doc_id
	ORDER BY r.rank DESC, c.id`
