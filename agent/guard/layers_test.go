package guard

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/openai"
)

// The fresh corpus (issue #25 §6) and the figures per layer.
//
//	go test -tags sqlite_fts5 ./agent/guard -run 'TestCorpusFresh|TestGuardLayers' -v
//
// prints them; docs/memory-guard.md publishes them.

// Bounds on the fresh corpus, below what it measures (113/114, 0/241).
// The fresh benign notes allow no refusal at all.
const (
	minFreshDetection = 0.95
	minFreshBenign    = 200
)

// benignFiles are every benign corpus: none may have a refused note.
var benignFiles = []string{"benign.txt", "holdout_benign.txt", "fresh_benign.txt", "fresh_holdout_benign.txt"}

func TestCorpusFresh(t *testing.T) {
	detection, _ := measureCorpus(t, "fresh_injections.txt", "fresh_benign.txt", 80)
	if detection < minFreshDetection {
		t.Errorf("detection %.1f %% < %.0f %%", 100*detection, 100*minFreshDetection)
	}
	if n := len(loadCorpus(t, "fresh_benign.txt")); n < minFreshBenign {
		t.Errorf("fresh_benign.txt has %d notes, want at least %d", n, minFreshBenign)
	}
}

// TestCorpusFreshHoldout measures the part of the fresh corpus that was
// never looked at while the tables grew: no detection bound (that would
// make it a tuning target), only the log.
func TestCorpusFreshHoldout(t *testing.T) {
	measureCorpus(t, "fresh_holdout_injections.txt", "fresh_holdout_benign.txt", 30)
}

// TestNoFalsePositives: not one benign note of any corpus is refused.
func TestNoFalsePositives(t *testing.T) {
	for _, f := range benignFiles {
		for _, e := range loadCorpus(t, f) {
			if err := e.write(); err != nil {
				t.Errorf("%s:%d: %s\n\t%v", f, e.line, e, err)
			}
		}
	}
}

// layer is one part of the local guard, run alone on a corpus entry.
type layer struct {
	name string
	hit  func(e corpusEntry) bool
}

// anyPart: the entry counts as hit if any of its writes is.
func anyPart(f func(string) bool) func(corpusEntry) bool {
	return func(e corpusEntry) bool {
		for _, p := range e.parts {
			if f(p) {
				return true
			}
		}
		return false
	}
}

// plainTables runs the tables on the text as written: no decoding (the
// depth already at its limit), no neighbouring entries, no Unicode check.
func plainTables(p string) *Rejection { return compiled().checkDepth(p, maxDecodeDepth) }

func tableCategory(cat Category) func(string) bool {
	return func(p string) bool {
		r := plainTables(p)
		return r != nil && r.Category == cat
	}
}

var localLayers = []layer{
	{"0. invisible Unicode (checkInvisible)", anyPart(func(p string) bool { return checkInvisible(p) != nil })},
	{"1a. tables on the plain text", anyPart(func(p string) bool { return plainTables(p) != nil })},
	{"      of which: injection phrases", anyPart(tableCategory(Injection))},
	{"      of which: exfiltration shapes", anyPart(tableCategory(Exfiltration))},
	{"      of which: secrets", anyPart(tableCategory(Secret))},
	{"1b. decoders (base64, hex, %, ROT13, reversed) then tables", anyPart(func(p string) bool {
		return plainTables(p) == nil && compiled().check(p) != nil
	})},
	{"1c. CheckWith: split across writes", func(e corpusEntry) bool {
		for _, p := range e.parts {
			if Check(p) != nil {
				return false
			}
		}
		return e.write() != nil
	}},
	{"local guard (0 + 1, what Vet runs before the judge)", func(e corpusEntry) bool { return e.write() != nil }},
}

// TestGuardLayers prints, for every corpus, how many entries each local
// layer catches alone (1b and 1c: only what the layers before missed).
// The judge (layer 2) needs a model: see TestJudgeCorpus.
func TestGuardLayers(t *testing.T) {
	pairs := [][2]string{
		{"injections.txt", "benign.txt"},
		{"holdout_injections.txt", "holdout_benign.txt"},
		{"fresh_injections.txt", "fresh_benign.txt"},
		{"fresh_holdout_injections.txt", "fresh_holdout_benign.txt"},
	}
	for _, pair := range pairs {
		inj, ben := loadCorpus(t, pair[0]), loadCorpus(t, pair[1])
		t.Logf("%s (%d) / %s (%d):", pair[0], len(inj), pair[1], len(ben))
		for _, l := range localLayers {
			hit, refused := 0, 0
			for _, e := range inj {
				if l.hit(e) {
					hit++
				}
			}
			for _, e := range ben {
				if l.hit(e) {
					refused++
				}
			}
			t.Logf("  %-58s blocked %3d/%-3d (%5.1f %%)  refused %d/%d", l.name, hit, len(inj), pct(hit, len(inj)), refused, len(ben))
		}
		t.Logf("  %-58s not measured offline (TestJudgeCorpus)", "2. judge")
	}
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// TestJudgeCorpus measures the judge (layer 2) alone and Vet (both
// layers) on every corpus, against a real model behind an
// OpenAI-compatible endpoint. It is skipped unless
// PARLEY_GUARD_JUDGE_BASE_URL and PARLEY_GUARD_JUDGE_MODEL are set
// (PARLEY_GUARD_JUDGE_API_KEY if the endpoint wants one), e.g. a local
// Ollama or llama.cpp server:
//
//	PARLEY_GUARD_JUDGE_BASE_URL=http://localhost:11434/v1 PARLEY_GUARD_JUDGE_MODEL=qwen2.5:7b \
//	  go test -tags sqlite_fts5 ./agent/guard -run TestJudgeCorpus -v -timeout 2h
//
// Split entries are judged as their last write, with the earlier parts
// as the existing entries (what the judge sees when the last part is
// written).
func TestJudgeCorpus(t *testing.T) {
	base, model := os.Getenv("PARLEY_GUARD_JUDGE_BASE_URL"), os.Getenv("PARLEY_GUARD_JUDGE_MODEL")
	if base == "" || model == "" {
		t.Skip("set PARLEY_GUARD_JUDGE_BASE_URL and PARLEY_GUARD_JUDGE_MODEL to measure the judge against a model")
	}
	j := &Judge{Classifier: LLMClassifier{
		Provider: openai.New(openai.Config{APIKey: os.Getenv("PARLEY_GUARD_JUDGE_API_KEY"), BaseURL: base}),
		Request:  llm.Request{Model: model},
	}}
	files := []string{"injections.txt", "holdout_injections.txt", "fresh_injections.txt", "fresh_holdout_injections.txt"}
	files = append(files, benignFiles...)
	for _, f := range files {
		var judged, unverified, vetted, n int
		var misses []string
		for _, e := range loadCorpus(t, f) {
			n++
			last := len(e.parts) - 1
			err := j.Check(t.Context(), e.parts[last], e.parts[:last])
			var rej *Rejection
			switch {
			case errors.As(err, &rej) && rej.Category == Unverified:
				unverified++
			case err != nil:
				judged++
			}
			blocked := err != nil || e.write() != nil
			if blocked {
				vetted++
			}
			if blocked == strings.Contains(f, "benign") {
				misses = append(misses, fmt.Sprintf("line %d: %s (%v)", e.line, e, err))
			}
		}
		t.Logf("%-30s judge alone: %3d/%d refused (%d of them unverified); Vet (tables + judge): %3d/%d refused",
			f, judged+unverified, n, unverified, vetted, n)
		for _, m := range misses {
			t.Logf("    wrong: %s", m)
		}
	}
}
