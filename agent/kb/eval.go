package kb

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Question is one labelled query of an evaluation set: the lines Start
// through End (1-based, inclusive) of Source answer it. Source is a path
// relative to the set's directory, with forward slashes ("docs/runbook.md").
type Question struct {
	ID     string `json:"id"`
	Lang   string `json:"lang"` // "en", "zh", "ja", …
	Q      string `json:"q"`
	Source string `json:"source"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	// Kind is what the question tests: "exact" (shares words with the
	// answer), "paraphrase" (little word overlap), "identifier" (a code
	// identifier) or "multiword" (a name of several words).
	Kind string `json:"kind"`
}

// EvalSet is a labelled set of questions over the documents under Dir.
// To evaluate a search, ingest Documents, each with its path relative to
// Dir as the source, so that results cite "docs/runbook.md:12-30".
type EvalSet struct {
	Dir       string // the directory sources are relative to (absolute from LoadEvalSet)
	Questions []Question
}

// LoadEvalSet reads a questions file (a JSON array of questions) and
// checks every question: all fields present, a known kind, a unique ID,
// and a range of lines that exists in its source and is not blank. Dir is
// the file's directory.
func LoadEvalSet(file string) (EvalSet, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return EvalSet{}, err
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return EvalSet{}, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return EvalSet{}, fmt.Errorf("%s: %w", file, err)
	}
	if len(raw) == 0 {
		return EvalSet{}, fmt.Errorf("%s: no questions", file)
	}
	set := EvalSet{Dir: dir}
	seen := map[string]bool{}
	lines := map[string][]string{} // source → its lines, read once
	for i, m := range raw {
		var q Question
		d := json.NewDecoder(bytes.NewReader(m))
		d.DisallowUnknownFields()
		if err := d.Decode(&q); err != nil {
			return EvalSet{}, fmt.Errorf("%s: question %d: %w", file, i+1, err)
		}
		if err := set.check(q, seen, lines); err != nil {
			return EvalSet{}, fmt.Errorf("%s: question %s: %w", file, cmp.Or(q.ID, strconv.Itoa(i+1)), err)
		}
		seen[q.ID] = true
		set.Questions = append(set.Questions, q)
	}
	return set, nil
}

// check validates one question; lines caches the sources' lines.
func (set EvalSet) check(q Question, seen map[string]bool, lines map[string][]string) error {
	switch {
	case q.ID == "":
		return fmt.Errorf("missing id")
	case seen[q.ID]:
		return fmt.Errorf("duplicate id")
	case q.Lang == "":
		return fmt.Errorf("missing lang")
	case strings.TrimSpace(q.Q) == "":
		return fmt.Errorf("missing q")
	case q.Source == "":
		return fmt.Errorf("missing source")
	case !slices.Contains([]string{"exact", "paraphrase", "identifier", "multiword"}, q.Kind):
		return fmt.Errorf("kind %q is not exact, paraphrase, identifier or multiword", q.Kind)
	case q.Start < 1 || q.End < 1:
		return fmt.Errorf("missing start or end (lines count from 1)")
	case q.Start > q.End:
		return fmt.Errorf("start %d is after end %d", q.Start, q.End)
	}
	src := q.Source
	if src != path.Clean(src) || path.IsAbs(src) || filepath.IsAbs(src) || strings.HasPrefix(src, "../") {
		return fmt.Errorf("source %q is not a clean relative path inside %s", src, set.Dir)
	}
	if !strings.Contains(src, "/") {
		return fmt.Errorf("source %q is not in a subdirectory (docs/...), where Documents finds it", src)
	}
	ls, ok := lines[src]
	if !ok {
		text, err := os.ReadFile(filepath.Join(set.Dir, filepath.FromSlash(src)))
		if err != nil {
			return fmt.Errorf("unknown source %q: %w", src, err)
		}
		ls = splitLines(string(text))
		lines[src] = ls
	}
	if q.End > len(ls) {
		return fmt.Errorf("lines %d-%d: %s has %d lines", q.Start, q.End, q.Source, len(ls))
	}
	if strings.TrimSpace(strings.Join(ls[q.Start-1:q.End], "")) == "" {
		return fmt.Errorf("lines %d-%d of %s are blank", q.Start, q.End, q.Source)
	}
	return nil
}

// splitLines numbers lines the way Split does: CRLF and lone CR end
// lines, and a final line end does not start another line.
func splitLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Split(strings.TrimRight(text, "\n"), "\n")
}

// Documents lists the corpus to ingest: the files (not hidden ones) under
// the top-level directories of Dir that sources are in ("docs"), relative
// to Dir with forward slashes, sorted. Files beside the questions file (it,
// a README) are not documents; unlabelled ones in docs are distractors.
func (set EvalSet) Documents() ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, q := range set.Questions {
		top, _, _ := strings.Cut(q.Source, "/")
		if seen[top] {
			continue
		}
		seen[top] = true
		err := filepath.WalkDir(filepath.Join(set.Dir, top), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case strings.HasPrefix(d.Name(), "."):
				if d.IsDir() {
					return filepath.SkipDir
				}
			case d.Type().IsRegular():
				rel, err := filepath.Rel(set.Dir, p)
				out = append(out, filepath.ToSlash(rel))
				return err
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

// rel is a source as the set compares it: relative to Dir, slash-separated,
// clean, in Unicode NFC (macOS may hand file names over decomposed).
func (set EvalSet) rel(source string) string {
	if filepath.IsAbs(source) {
		if r, err := filepath.Rel(set.Dir, source); err == nil {
			source = r
		}
	}
	return norm.NFC.String(path.Clean(filepath.ToSlash(source)))
}

// Relevant reports whether r answers q: the same source, and lines that
// overlap q's.
func (set EvalSet) Relevant(q Question, r Result) bool {
	return set.rel(r.Source) == set.rel(q.Source) && r.Start <= q.End && q.Start <= r.End
}

// Searcher is what an evaluation queries: the k best passages for a query,
// best first.
type Searcher interface {
	Search(ctx context.Context, query string, k int) ([]Result, error)
}

// Report is the outcome of an evaluation. Recall is the share of
// questions with a relevant result in the top RecallAt; MRR is the mean,
// over all questions, of 1/rank of the first relevant result in the top
// RecallAt, 0 when there is none.
type Report struct {
	Questions      int
	RecallAt       int
	Recall, MRR    float64
	ByLang, ByKind map[string]Score
	Misses         []Miss
}

// Score is recall and MRR over a group of N questions.
type Score struct {
	N           int
	Recall, MRR float64
}

// Miss is a question with no relevant result in the top RecallAt, and the
// results it got.
type Miss struct {
	Question Question
	Got      []Result
}

// Evaluate asks s every question of set for its top k results (k ≤ 0
// means 5) and scores them. Results past the k-th are ignored. A search
// error stops the evaluation and names the question.
func Evaluate(ctx context.Context, s Searcher, set EvalSet, k int) (Report, error) {
	if k <= 0 {
		k = 5
	}
	rep := Report{Questions: len(set.Questions), RecallAt: k, ByLang: map[string]Score{}, ByKind: map[string]Score{}}
	var all Score
	for _, q := range set.Questions {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		got, err := s.Search(ctx, q.Q, k)
		if err != nil {
			return Report{}, fmt.Errorf("question %s: %w", q.ID, err)
		}
		got = got[:min(k, len(got))]
		rr := 0.0
		if i := slices.IndexFunc(got, func(r Result) bool { return set.Relevant(q, r) }); i >= 0 {
			rr = 1 / float64(i+1)
		} else {
			rep.Misses = append(rep.Misses, Miss{Question: q, Got: slices.Clone(got)})
		}
		all = all.add(rr)
		rep.ByLang[q.Lang] = rep.ByLang[q.Lang].add(rr)
		rep.ByKind[q.Kind] = rep.ByKind[q.Kind].add(rr)
	}
	all = all.mean()
	rep.Recall, rep.MRR = all.Recall, all.MRR
	for _, m := range []map[string]Score{rep.ByLang, rep.ByKind} {
		for key, s := range m {
			m[key] = s.mean()
		}
	}
	return rep, nil
}

// add counts a question with reciprocal rank rr (0: a miss); mean divides.
func (s Score) add(rr float64) Score {
	s.N++
	if rr > 0 {
		s.Recall++
	}
	s.MRR += rr
	return s
}

func (s Score) mean() Score {
	if s.N > 0 {
		s.Recall /= float64(s.N)
		s.MRR /= float64(s.N)
	}
	return s
}

// Format writes the report as a table: overall, by language, by kind,
// then each miss with the lines it wanted and the lines it got.
func (r Report) Format(w io.Writer) {
	fmt.Fprintf(w, "%-16s %9s %9s %6s\n", "", "questions", fmt.Sprintf("recall@%d", r.RecallAt), "MRR")
	row := func(name string, s Score) {
		fmt.Fprintf(w, "%-16s %9d %8.1f%% %6.3f\n", name, s.N, 100*s.Recall, s.MRR)
	}
	row("all", Score{N: r.Questions, Recall: r.Recall, MRR: r.MRR})
	for _, g := range []struct {
		title  string
		scores map[string]Score
	}{{"by language", r.ByLang}, {"by kind", r.ByKind}} {
		fmt.Fprintln(w, g.title)
		for _, k := range slices.Sorted(maps.Keys(g.scores)) {
			row("  "+k, g.scores[k])
		}
	}
	if len(r.Misses) == 0 {
		return
	}
	fmt.Fprintf(w, "\nmisses (%d of %d): not in the top %d\n", len(r.Misses), r.Questions, r.RecallAt)
	for _, m := range r.Misses {
		q := m.Question
		fmt.Fprintf(w, "\n%s [%s/%s] %s\n  want %s:%d-%d\n", q.ID, q.Lang, q.Kind, oneLine(q.Q), q.Source, q.Start, q.End)
		if len(m.Got) == 0 {
			fmt.Fprintln(w, "  got  nothing")
		}
		for i, g := range m.Got {
			fmt.Fprintf(w, "  got  %d. %s:%d-%d\n", i+1, g.Source, g.Start, g.End)
		}
	}
}

// oneLine folds whitespace so a question prints on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
