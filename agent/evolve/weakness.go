package evolve

import (
	"context"
	"strings"

	"github.com/parleybot/parley/internal/lazyre"
)

// A weakness is a line of the self-memo's "self" note that names where
// Parley trips up in a scope, written by reflection as "Weakness: …"
// (reflectionTools asks for that form). A run hits one when what it was
// about — the person's message, the tools it called, their errors —
// shares enough of the weakness's words: a cheap match, counted at the end
// of the run like every other signal, at no model cost.

// weaknessLine finds the weakness lines: "Weakness:" or "Trips up:", after
// an optional list marker, in any case; also 弱点 / 苦手.
var weaknessLine = lazyre.MustCompile(`(?im)^[ \t]*(?:[-*•][ \t]*)?(?:weakness|trips? up|弱点|苦手)[ \t]*[:：][ \t]*(.+)$`)

// Weaknesses are the weaknesses a self note names.
func Weaknesses(self string) []string {
	var out []string
	for _, m := range weaknessLine().FindAllStringSubmatch(self, -1) {
		if w := strings.TrimSpace(m[1]); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// stopWords are words too common to tie a run to a weakness.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "when": true, "that": true, "this": true, "from": true,
	"into": true, "about": true, "asked": true, "ask": true, "you": true, "your": true, "them": true, "they": true,
	"their": true, "then": true, "than": true, "what": true, "which": true, "who": true, "are": true, "was": true,
	"were": true, "not": true, "but": true, "its": true, "have": true, "has": true, "had": true, "too": true,
	"often": true, "always": true, "never": true, "forget": true, "forgets": true, "forgot": true, "wrong": true,
	"use": true, "uses": true, "using": true, "get": true, "gets": true, "got": true, "people": true, "person": true,
}

// HitsWeakness reports whether a run about text hits a weakness self
// names: at least two of a weakness's telling words (all of them when it
// has fewer) appear in text.
func HitsWeakness(self, text string) bool {
	if self == "" || text == "" {
		return false
	}
	text = strings.ToLower(text)
	for _, w := range Weaknesses(self) {
		var words []string
		for _, word := range queryWords(w) {
			if !stopWords[word] {
				words = append(words, word)
			}
		}
		if len(words) == 0 {
			continue
		}
		if related(words, text) >= min(2, len(words)) {
			return true
		}
	}
	return false
}

// RunStore keeps runs' signals (store.DB).
type RunStore interface {
	RecordRun(ctx context.Context, r Run) error
	MarkCorrected(ctx context.Context, sessionID, author string) (bool, error)
}

// Recorder keeps runs' signals, marking a run that hit a weakness its
// scope's self-memo names.
type Recorder struct {
	Runs RunStore
	// Memos are the self-memos; nil: weaknesses are not checked.
	Memos MemoStore
}

// RecordRun keeps r, with Weakness set from r.About and the scope's memo.
// A memo that cannot be read costs only the weakness signal.
func (rec Recorder) RecordRun(ctx context.Context, r Run) error {
	if rec.Memos != nil && r.About != "" {
		if m, err := rec.Memos.Memo(ctx, r.Scope); err == nil {
			r.Weakness = HitsWeakness(m.Self, r.About)
		}
	}
	return rec.Runs.RecordRun(ctx, r)
}

// MarkCorrected marks the author's latest run in the session corrected.
func (rec Recorder) MarkCorrected(ctx context.Context, sessionID, author string) (bool, error) {
	return rec.Runs.MarkCorrected(ctx, sessionID, author)
}
