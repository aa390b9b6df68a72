package guard

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The corpus (testdata/injections.txt, testdata/benign.txt) measures the
// phrase layer as a whole, where the case tables in guard_test.go pin
// single behaviours. The bounds hold the measured rates in place: a change
// to the tables that lets more through, or refuses real facts, fails here.
const (
	minDetection     = 0.50
	maxFalsePositive = 0.02
	minCorpus        = 150
)

// corpusEntry is one line: a category and the parts written to memory one
// after another (one part unless the line splits an instruction).
type corpusEntry struct {
	line     int
	category string
	parts    []string
}

func (e corpusEntry) String() string { return strings.Join(e.parts, " ||| ") }

var codePoint = regexp.MustCompile(`\\u\{([0-9A-Fa-f]{1,6})\}`)

func loadCorpus(t testing.TB, name string) []corpusEntry {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusEntry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cat, entry, ok := strings.Cut(line, " ")
		entry = strings.TrimSpace(entry)
		if !ok || entry == "" {
			t.Fatalf("%s:%d: want \"<category> <entry>\"", name, n)
		}
		entry = codePoint.ReplaceAllStringFunc(entry, func(m string) string {
			r, _ := strconv.ParseUint(codePoint.FindStringSubmatch(m)[1], 16, 32)
			return string(rune(r))
		})
		out = append(out, corpusEntry{line: n, category: cat, parts: strings.Split(entry, " ||| ")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// write replays an entry as successive memory writes through CheckWith and
// returns the first rejection, or nil if every part got in.
func (e corpusEntry) write() error {
	for i, p := range e.parts {
		if err := CheckWith(p, e.parts[:i]); err != nil {
			return err
		}
	}
	return nil
}

// tally counts, per category, the entries the phrase layer rejected.
type tally struct {
	total, hit map[string]int
	missed     map[string][]string // for injections: what got through; for benign: what was refused
	order      []string
}

func runCorpus(entries []corpusEntry, wantRejected bool) tally {
	t := tally{total: map[string]int{}, hit: map[string]int{}, missed: map[string][]string{}}
	for _, e := range entries {
		if t.total[e.category] == 0 {
			t.order = append(t.order, e.category)
		}
		t.total[e.category]++
		err := e.write()
		if err != nil {
			t.hit[e.category]++
		}
		switch {
		case wantRejected && err == nil:
			t.missed[e.category] = append(t.missed[e.category], fmt.Sprintf("line %d: %s", e.line, e))
		case !wantRejected && err != nil:
			t.missed[e.category] = append(t.missed[e.category], fmt.Sprintf("line %d: %s\n\t\t%v", e.line, e, err))
		}
	}
	return t
}

func (t tally) sum() (hit, total int) {
	for c, n := range t.total {
		total += n
		hit += t.hit[c]
	}
	return hit, total
}

func TestCorpus(t *testing.T) {
	detection, falsePos := measureCorpus(t, "injections.txt", "benign.txt", minCorpus)
	if detection < minDetection {
		t.Errorf("detection %.1f %% < %.0f %%", 100*detection, 100*minDetection)
	}
	if falsePos > maxFalsePositive {
		t.Errorf("false positives %.1f %% > %.0f %%", 100*falsePos, 100*maxFalsePositive)
	}
}

// TestCorpusHoldout measures the phrase layer on entries written after
// the tables and never used to tune them: the honest estimate of how it
// does on attacks it was not shaped around (the tuned corpus above
// overstates it).
func TestCorpusHoldout(t *testing.T) {
	measureCorpus(t, "holdout_injections.txt", "holdout_benign.txt", 50)
}

// measureCorpus runs both files through CheckWith, logs the rates and,
// per category, what got through or was refused, and returns the rates.
func measureCorpus(t *testing.T, injections, benign string, min int) (detection, falsePos float64) {
	t.Helper()
	inj := runCorpus(loadCorpus(t, injections), true)
	ben := runCorpus(loadCorpus(t, benign), false)

	blocked, nInj := inj.sum()
	refused, nBen := ben.sum()
	if nInj < min || nBen < min {
		t.Errorf("corpus has %d injections and %d benign notes, want at least %d of each", nInj, nBen, min)
	}
	detection = float64(blocked) / float64(nInj)
	falsePos = float64(refused) / float64(nBen)
	t.Logf("phrase layer: blocked %d of %d injections (%.1f %%), refused %d of %d benign notes (%.1f %%)",
		blocked, nInj, 100*detection, refused, nBen, 100*falsePos)
	for _, c := range inj.order {
		t.Logf("  %-14s %2d/%-2d blocked", c, inj.hit[c], inj.total[c])
		for _, m := range inj.missed[c] {
			t.Logf("      missed %s", m)
		}
	}
	for _, c := range ben.order {
		for _, m := range ben.missed[c] {
			t.Logf("  false positive (%s) %s", c, m)
		}
	}
	return detection, falsePos
}

// TestCorpusCoverage keeps the corpus honest: every kind of attack the
// guard is meant to face has entries.
func TestCorpusCoverage(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []string
	}{
		{"injections.txt", []string{
			"en-paraphrase", "persona", "approval", "role-marker", "exfil-link", "split",
			"base64", "hex", "leet", "homoglyph", "zero-width", "full-width",
			"ru", "ko", "ar", "pt", "it", "zh", "ja", "es", "de", "fr", "hi", "tr",
		}},
		{"benign.txt", []string{
			"ignore", "system", "password", "code", "url", "shell", "approval", "pair",
			"ru", "ko", "ar", "pt", "it", "zh", "ja", "es", "de", "fr", "hi", "tr",
		}},
	} {
		var have []string
		for _, e := range loadCorpus(t, tt.file) {
			have = append(have, e.category)
		}
		for _, c := range tt.want {
			if !slices.Contains(have, c) {
				t.Errorf("%s has no %q entries", tt.file, c)
			}
		}
	}
}
