//go:build sqlite_fts5

package kb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	_ "github.com/mattn/go-sqlite3"
)

// ftsSearcher is a stand-in keyword search, not the store's: passages from
// Split in an in-memory SQLite FTS5 table, ranked by BM25, the query's
// words OR'ed. It gives the evaluation set a floor to compare with and
// shows where keyword search fails (paraphrases, Chinese).
type ftsSearcher struct {
	db     *sql.DB
	bigram bool // index and query Chinese and Japanese as overlapping character pairs
	minLen int  // query words shorter than this are dropped (3 for the trigram tokenizer)
}

func newFTSSearcher(t *testing.T, set EvalSet, tokenizer string, bigram bool, o ChunkOptions) (ftsSearcher, float64) {
	t.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE p USING fts5(body, source UNINDEXED, lo UNINDEXED, hi UNINDEXED, tokenize = '` + tokenizer + `')`); err != nil {
		t.Fatal(err)
	}
	s := ftsSearcher{db: db, bigram: bigram, minLen: 1}
	if tokenizer == "trigram" {
		s.minLen = 3
	}
	docs, err := set.Documents()
	if err != nil {
		t.Fatal(err)
	}
	var passages, lines int
	for _, doc := range docs {
		text, err := os.ReadFile(filepath.Join(set.Dir, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Split(string(text), o) {
			if _, err := db.Exec(`INSERT INTO p VALUES (?, ?, ?, ?)`, s.prep(c.Text), doc, c.Start, c.End); err != nil {
				t.Fatal(err)
			}
			passages++
			lines += c.End - c.Start + 1
		}
	}
	return s, float64(lines) / float64(passages)
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// prep spaces out runs of CJK characters as overlapping pairs ("设备申领"
// → "设备 备申 申领") when s.bigram is set.
func (s ftsSearcher) prep(text string) string {
	if !s.bigram {
		return text
	}
	var b strings.Builder
	rs := []rune(text)
	for i, r := range rs {
		next := i+1 < len(rs) && isCJK(rs[i+1])
		switch {
		case !isCJK(r):
			b.WriteRune(r)
		case next:
			b.WriteString(" " + string(r) + string(rs[i+1]) + " ")
		case i == 0 || !isCJK(rs[i-1]):
			b.WriteString(" " + string(r) + " ") // a lone character
		}
	}
	return b.String()
}

// match is the FTS5 query: each word of the question quoted, OR'ed.
func (s ftsSearcher) match(query string) string {
	words := strings.FieldsFunc(s.prep(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	var terms []string
	for _, w := range words {
		if len([]rune(w)) >= s.minLen {
			terms = append(terms, `"`+w+`"`)
		}
	}
	return strings.Join(terms, " OR ")
}

func (s ftsSearcher) Search(ctx context.Context, query string, k int) ([]Result, error) {
	m := s.match(query)
	if m == "" {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT source, lo, hi FROM p WHERE p MATCH ? ORDER BY rank LIMIT ?`, m, k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		if err := rows.Scan(&r.Source, &r.Start, &r.End); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TestEvalKeywordBaseline scores keyword-only search on the shipped set
// with three ways to tokenize and three passage sizes, and logs a table
// (go test -tags sqlite_fts5 -run KeywordBaseline -v ./agent/kb/). It
// asserts only a floor, so that a broken set or scorer shows.
//
// Relevance is overlap, so longer passages earn hits more easily: compare
// sizes with the mean passage length in view.
func TestEvalKeywordBaseline(t *testing.T) {
	set, err := LoadEvalSet(filepath.Join("testdata", "eval", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-22s %5s %6s %7s %7s %7s %7s %7s %7s\n", "tokenizer", "lines", "mean", "R@5", "MRR", "en", "zh", "ja", "para")
	for _, tok := range []struct {
		name, tokenizer string
		bigram          bool
	}{
		{"unicode61", "unicode61", false},
		{"trigram", "trigram", false},
		{"unicode61+CJK pairs", "unicode61", true},
	} {
		for _, lines := range []int{20, 40, 80} {
			s, mean := newFTSSearcher(t, set, tok.tokenizer, tok.bigram, ChunkOptions{Lines: lines})
			rep, err := Evaluate(context.Background(), s, set, 5)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%-22s %5d %6.1f %6.1f%% %7.3f %6.1f%% %6.1f%% %6.1f%% %6.1f%%\n", tok.name, lines, mean,
				100*rep.Recall, rep.MRR, 100*rep.ByLang["en"].Recall, 100*rep.ByLang["zh"].Recall, 100*rep.ByLang["ja"].Recall, 100*rep.ByKind["paraphrase"].Recall)
			if rep.ByLang["en"].Recall < 0.5 {
				t.Errorf("%s, %d lines: English recall@5 %.2f; the set or the scorer is broken", tok.name, lines, rep.ByLang["en"].Recall)
			}
			if testing.Verbose() && tok.bigram && lines == 40 {
				var m strings.Builder
				rep.Format(&m)
				t.Logf("%s, %d lines:\n%s", tok.name, lines, m.String())
			}
		}
	}
	t.Log(b.String())
}
