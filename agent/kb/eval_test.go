package kb

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// fakeSearcher answers each query with a fixed list, whatever k is.
type fakeSearcher map[string][]Result

func (f fakeSearcher) Search(_ context.Context, query string, _ int) ([]Result, error) {
	if query == "fail" {
		return nil, errors.New("index is closed")
	}
	return f[query], nil
}

func res(source string, start, end int) Result { return Result{Source: source, Start: start, End: end} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestEvaluateHandComputed(t *testing.T) {
	set := EvalSet{Dir: "/eval", Questions: []Question{
		{ID: "a", Lang: "en", Kind: "exact", Q: "a", Source: "docs/a.md", Start: 10, End: 12},
		{ID: "b", Lang: "en", Kind: "paraphrase", Q: "b", Source: "docs/b.md", Start: 50, End: 50},
		{ID: "c", Lang: "zh", Kind: "exact", Q: "c", Source: "docs/c.md", Start: 20, End: 25},
		{ID: "d", Lang: "zh", Kind: "identifier", Q: "d", Source: "docs/d.go", Start: 7, End: 9},
	}}
	s := fakeSearcher{
		// a: rank 1; the source comes back absolute and still matches.
		"a": {res("/eval/docs/a.md", 1, 10), res("docs/x.md", 1, 40)},
		// b: rank 3, after a wrong document and a wrong place in the right one.
		"b": {res("docs/x.md", 36, 75), res("docs/b.md", 1, 40), res("./docs/b.md", 36, 75)},
		// c: the right lines of another document, and the right document
		// ending just before the answer: no hit.
		"c": {res("docs/x.md", 20, 25), res("docs/c.md", 1, 19), res("docs/c.md", 26, 60)},
		// d: rank 6, so only a hit when k reaches 6.
		"d": {res("docs/x.md", 1, 1), res("docs/x.md", 2, 2), res("docs/x.md", 3, 3), res("docs/x.md", 4, 4), res("docs/x.md", 5, 5), res("docs/d.go", 1, 40)},
	}
	for _, tc := range []struct {
		k           int
		recall, mrr float64
		byLang      map[string]Score
		byKind      map[string]Score
		misses      []string
	}{
		{
			k: 5, recall: 2.0 / 4, mrr: (1 + 1.0/3) / 4,
			byLang: map[string]Score{"en": {2, 1, (1 + 1.0/3) / 2}, "zh": {2, 0, 0}},
			byKind: map[string]Score{"exact": {2, 0.5, 0.5}, "paraphrase": {1, 1, 1.0 / 3}, "identifier": {1, 0, 0}},
			misses: []string{"c", "d"},
		},
		{
			k: 10, recall: 3.0 / 4, mrr: (1 + 1.0/3 + 1.0/6) / 4,
			byLang: map[string]Score{"en": {2, 1, (1 + 1.0/3) / 2}, "zh": {2, 0.5, 1.0 / 12}},
			byKind: map[string]Score{"exact": {2, 0.5, 0.5}, "paraphrase": {1, 1, 1.0 / 3}, "identifier": {1, 1, 1.0 / 6}},
			misses: []string{"c"},
		},
		{
			k: 2, recall: 1.0 / 4, mrr: 1.0 / 4,
			byLang: map[string]Score{"en": {2, 0.5, 0.5}, "zh": {2, 0, 0}},
			byKind: map[string]Score{"exact": {2, 0.5, 0.5}, "paraphrase": {1, 0, 0}, "identifier": {1, 0, 0}},
			misses: []string{"b", "c", "d"},
		},
	} {
		rep, err := Evaluate(context.Background(), s, set, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Questions != 4 || rep.RecallAt != tc.k || !near(rep.Recall, tc.recall) || !near(rep.MRR, tc.mrr) {
			t.Errorf("k=%d: got %d questions, recall@%d %v, MRR %v; want 4, %v, %v", tc.k, rep.Questions, rep.RecallAt, rep.Recall, rep.MRR, tc.recall, tc.mrr)
		}
		for name, pair := range map[string][2]map[string]Score{"lang": {rep.ByLang, tc.byLang}, "kind": {rep.ByKind, tc.byKind}} {
			got, want := pair[0], pair[1]
			if len(got) != len(want) {
				t.Errorf("k=%d by %s: got %v, want %v", tc.k, name, got, want)
			}
			for key, w := range want {
				if g := got[key]; g.N != w.N || !near(g.Recall, w.Recall) || !near(g.MRR, w.MRR) {
					t.Errorf("k=%d by %s %s: got %+v, want %+v", tc.k, name, key, g, w)
				}
			}
		}
		var ids []string
		for _, m := range rep.Misses {
			ids = append(ids, m.Question.ID)
			if len(m.Got) > tc.k {
				t.Errorf("k=%d: miss %s keeps %d results", tc.k, m.Question.ID, len(m.Got))
			}
		}
		if strings.Join(ids, ",") != strings.Join(tc.misses, ",") {
			t.Errorf("k=%d: misses %v, want %v", tc.k, ids, tc.misses)
		}
	}
}

func TestEvaluateDefaultsAndErrors(t *testing.T) {
	set := EvalSet{Questions: []Question{{ID: "q7", Lang: "en", Kind: "exact", Q: "fail", Source: "a.md", Start: 1, End: 1}}}
	_, err := Evaluate(context.Background(), fakeSearcher{}, set, 0)
	if err == nil || !strings.Contains(err.Error(), "question q7: index is closed") {
		t.Errorf("search error: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Evaluate(ctx, fakeSearcher{}, set, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	set.Questions[0].Q = "nothing"
	rep, err := Evaluate(context.Background(), fakeSearcher{}, set, 0)
	if err != nil || rep.RecallAt != 5 || rep.Recall != 0 || len(rep.Misses) != 1 {
		t.Errorf("no results: got %+v, %v", rep, err)
	}
	if rep, err := Evaluate(context.Background(), fakeSearcher{}, EvalSet{}, 5); err != nil || rep.Recall != 0 || rep.MRR != 0 {
		t.Errorf("empty set: got %+v, %v", rep, err) // zeros, not NaN
	}
}

func TestRelevant(t *testing.T) {
	set := EvalSet{Dir: filepath.FromSlash("/data/eval")}
	q := Question{Source: "docs/运维手册.md", Start: 10, End: 20}
	for _, tc := range []struct {
		r    Result
		want bool
	}{
		{res("docs/运维手册.md", 10, 20), true},
		{res("docs/运维手册.md", 1, 10), true},   // touches the first line
		{res("docs/运维手册.md", 20, 60), true},  // touches the last line
		{res("docs/运维手册.md", 12, 12), true},  // inside
		{res("docs/运维手册.md", 1, 9), false},   // just before
		{res("docs/运维手册.md", 21, 40), false}, // just after
		{res("./docs/../docs/运维手册.md", 15, 15), true},
		{res(filepath.FromSlash("/data/eval/docs/运维手册.md"), 15, 15), true},
		{res(filepath.FromSlash("/elsewhere/docs/运维手册.md"), 15, 15), false},
		{res("运维手册.md", 15, 15), false},
		{res("docs/运维手册.txt", 15, 15), false},
	} {
		if got := set.Relevant(q, tc.r); got != tc.want {
			t.Errorf("%s:%d-%d: got %v, want %v", tc.r.Source, tc.r.Start, tc.r.End, got, tc.want)
		}
	}
}

func TestLoadEvalSetValidation(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Five lines, the third blank; CRLF line ends count like LF.
	if err := os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("one\r\ntwo\r\n\r\nfour\r\nfive\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := `{"id": "q1", "lang": "en", "q": "what", "source": "docs/a.md", "start": 2, "end": 4, "kind": "exact"}`
	with := func(old, new string) string { return "[" + strings.Replace(good, old, new, 1) + "]" }
	for _, tc := range []struct{ name, file, want string }{
		{"missing id", with(`"id": "q1"`, `"id": ""`), "question 1: missing id"},
		{"duplicate id", "[" + good + "," + good + "]", "question q1: duplicate id"},
		{"missing lang", with(`"lang": "en", `, ""), "question q1: missing lang"},
		{"missing q", with(`"q": "what"`, `"q": " "`), "question q1: missing q"},
		{"missing source", with(`"source": "docs/a.md", `, ""), "question q1: missing source"},
		{"missing start", with(`"start": 2, `, ""), "question q1: missing start or end"},
		{"unknown kind", with(`"kind": "exact"`, `"kind": "fuzzy"`), `question q1: kind "fuzzy"`},
		{"start after end", with(`"start": 2, "end": 4`, `"start": 4, "end": 2`), "question q1: start 4 is after end 2"},
		{"unknown source", with("docs/a.md", "docs/b.md"), `question q1: unknown source "docs/b.md"`},
		{"outside the set", with("docs/a.md", "../a.md"), "question q1: source \"../a.md\" is not a clean relative path"},
		{"absolute", with("docs/a.md", "/etc/passwd"), "question q1: source \"/etc/passwd\" is not a clean relative path"},
		{"unclean", with("docs/a.md", "docs//a.md"), "is not a clean relative path"},
		{"top level", with("docs/a.md", "a.md"), `question q1: source "a.md" is not in a subdirectory`},
		{"past the end", with(`"end": 4`, `"end": 6`), "question q1: lines 2-6: docs/a.md has 5 lines"},
		{"blank", with(`"start": 2, "end": 4`, `"start": 3, "end": 3`), "question q1: lines 3-3 of docs/a.md are blank"},
		{"unknown field", with(`"kind"`, `"sorce": "x", "kind"`), `question 1: json: unknown field "sorce"`},
		{"empty", "[]", "no questions"},
		{"not an array", `{"questions": []}`, "cannot unmarshal"},
	} {
		file := filepath.Join(dir, "questions.json")
		if err := os.WriteFile(file, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadEvalSet(file)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	file := filepath.Join(dir, "questions.json")
	if err := os.WriteFile(file, []byte("["+good+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := LoadEvalSet(file)
	if err != nil {
		t.Fatal(err)
	}
	want := Question{ID: "q1", Lang: "en", Q: "what", Source: "docs/a.md", Start: 2, End: 4, Kind: "exact"}
	if set.Dir != dir || len(set.Questions) != 1 || set.Questions[0] != want {
		t.Errorf("got %+v", set)
	}
	if _, err := LoadEvalSet(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}
}

func TestDocuments(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"questions.json", "README.md", "docs/a.md", "docs/sub/b.txt", "docs/.hidden", "docs/.git/c.md", "code/x.go", "extra/d.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := EvalSet{Dir: dir, Questions: []Question{{Source: "docs/a.md"}, {Source: "code/x.go"}, {Source: "docs/sub/b.txt"}}}
	got, err := set.Documents()
	if want := []string{"code/x.go", "docs/a.md", "docs/sub/b.txt"}; err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	set.Questions = append(set.Questions, Question{Source: "gone/x.md"})
	if _, err := set.Documents(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing directory: got %v", err)
	}
}

func TestReportFormat(t *testing.T) {
	rep := Report{
		Questions: 2, RecallAt: 5, Recall: 0.5, MRR: 0.25,
		ByLang: map[string]Score{"zh": {1, 0, 0}, "en": {1, 1, 0.5}},
		ByKind: map[string]Score{"exact": {2, 0.5, 0.25}},
		Misses: []Miss{{
			Question: Question{ID: "q2", Lang: "zh", Kind: "exact", Q: "年假\n有几天？", Source: "docs/请假制度.md", Start: 19, End: 20},
			Got:      []Result{res("docs/运维手册.md", 1, 40), res("docs/请假制度.md", 36, 75)},
		}},
	}
	var b bytes.Buffer
	rep.Format(&b)
	want := `                 questions  recall@5    MRR
all                      2     50.0%  0.250
by language
  en                     1    100.0%  0.500
  zh                     1      0.0%  0.000
by kind
  exact                  2     50.0%  0.250

misses (1 of 2): not in the top 5

q2 [zh/exact] 年假 有几天？
  want docs/请假制度.md:19-20
  got  1. docs/运维手册.md:1-40
  got  2. docs/请假制度.md:36-75
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestEvalDataset checks the shipped set: it loads (so every labelled
// range exists and is not blank), and it is as big and as mixed as the
// README says.
func TestEvalDataset(t *testing.T) {
	set, err := LoadEvalSet(filepath.Join("testdata", "eval", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "eval", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	var docs, cjk int
	exts := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		docs++
		exts[filepath.Ext(e.Name())] = true
		text, err := os.ReadFile(filepath.Join("testdata", "eval", "docs", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(splitLines(string(text))); n < 40 || n > 400 {
			t.Errorf("%s has %d lines, want 40 to 400", e.Name(), n)
		}
		var han, kana int
		for _, r := range string(text) {
			switch {
			case unicode.Is(unicode.Han, r):
				han++
			case unicode.In(r, unicode.Hiragana, unicode.Katakana):
				kana++
			}
		}
		if han > 200 && kana == 0 {
			cjk++ // Chinese, not Japanese, nor English quoting a word
		}
	}
	if docs < 24 || cjk < 8 {
		t.Errorf("%d documents, %d in Chinese; want at least 24 and 8", docs, cjk)
	}
	for _, ext := range []string{".md", ".txt", ".go", ".py", ".sql", ".yaml", ".html"} {
		if !exts[ext] {
			t.Errorf("no %s document", ext)
		}
	}
	lang, kind := map[string]int{}, map[string]int{}
	for _, q := range set.Questions {
		lang[q.Lang]++
		kind[q.Kind]++
		if filepath.Ext(q.Source) == ".html" {
			t.Errorf("%s: labelled on an HTML document, whose lines move when it is converted to Markdown", q.ID)
		}
	}
	if len(set.Questions) < 72 || lang["zh"] < 24 {
		t.Errorf("%d questions, %d in Chinese; want at least 72 and 24", len(set.Questions), lang["zh"])
	}
	for _, k := range []string{"exact", "paraphrase", "identifier", "multiword"} {
		if kind[k] < 8 {
			t.Errorf("%d %s questions, want at least 8", kind[k], k)
		}
	}
	t.Logf("%d documents (%d Chinese), %d questions: by language %v, by kind %v", docs, cjk, len(set.Questions), lang, kind)

	// KB_EVAL_PRINT=1 prints every question with its labelled lines, to
	// check the labels by eye after editing a document.
	if os.Getenv("KB_EVAL_PRINT") != "" {
		for _, q := range set.Questions {
			text, err := os.ReadFile(filepath.Join(set.Dir, filepath.FromSlash(q.Source)))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s [%s/%s] %s\n%s:%d-%d\n%s", q.ID, q.Lang, q.Kind, q.Q, q.Source, q.Start, q.End,
				strings.Join(splitLines(string(text))[q.Start-1:q.End], "\n"))
		}
	}
}
