package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// MemoryTarget names one of a user's two memory lists.
type MemoryTarget string

const (
	// Profile: who the user is and how they like to work.
	Profile MemoryTarget = "profile"
	// Facts: durable decisions, conventions and facts worth keeping.
	Facts MemoryTarget = "facts"
)

// ParseMemoryTarget validates a target name.
func ParseMemoryTarget(s string) (MemoryTarget, error) {
	switch t := MemoryTarget(s); t {
	case Profile, Facts:
		return t, nil
	}
	return "", fmt.Errorf("unknown memory target %q: want %q or %q", s, Profile, Facts)
}

// Memory is what Parley remembers about one user.
type Memory struct {
	Profile []string
	Facts   []string
}

// Entries returns the list for target.
func (m Memory) Entries(t MemoryTarget) []string {
	if t == Profile {
		return m.Profile
	}
	return m.Facts
}

// Empty reports whether nothing is remembered.
func (m Memory) Empty() bool { return len(m.Profile) == 0 && len(m.Facts) == 0 }

// MemoryLimits caps each list in characters (runes), so memory stays small
// enough to inject into every prompt.
type MemoryLimits struct {
	Profile int
	Facts   int
	Team    int // a place's team notes (team.go)
}

// Default caps, used when none are configured.
const (
	DefaultProfileCap = 1500
	DefaultFactsCap   = 3000
)

// Cap returns the limit for target, falling back to the defaults.
func (l MemoryLimits) Cap(t MemoryTarget) int {
	pick := func(n, def int) int {
		if n > 0 {
			return n
		}
		return def
	}
	switch t {
	case Profile:
		return pick(l.Profile, DefaultProfileCap)
	case Team:
		return pick(l.Team, DefaultTeamCap)
	}
	return pick(l.Facts, DefaultFactsCap)
}

// ErrMemoryFull is returned when an edit would exceed the cap.
var ErrMemoryFull = errors.New("memory full: consolidate or remove entries first")

// AddEntry appends content, refusing empties, exact duplicates and
// anything past limit.
func AddEntry(entries []string, content string, limit int) ([]string, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return nil, errors.New("content is empty")
	}
	if slices.Contains(entries, content) {
		return nil, fmt.Errorf("already remembered: %q", content)
	}
	out := append(slices.Clone(entries), content)
	return out, checkCap(out, limit)
}

// ReplaceEntry replaces the one entry containing oldText with content.
func ReplaceEntry(entries []string, oldText, content string, limit int) ([]string, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return nil, errors.New("content is empty: use remove to delete an entry")
	}
	i, err := findEntry(entries, oldText)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(entries)
	out[i] = content
	if slices.Index(out, content) != i {
		return nil, fmt.Errorf("already remembered: %q", content)
	}
	return out, checkCap(out, limit)
}

// RemoveEntry removes the one entry containing oldText.
func RemoveEntry(entries []string, oldText string) ([]string, error) {
	i, err := findEntry(entries, oldText)
	if err != nil {
		return nil, err
	}
	return slices.Delete(slices.Clone(entries), i, i+1), nil
}

func findEntry(entries []string, oldText string) (int, error) {
	oldText = strings.TrimSpace(oldText)
	if oldText == "" {
		return -1, errors.New("old_text is empty: quote part of the entry to change")
	}
	found := -1
	for i, e := range entries {
		if e == oldText {
			return i, nil // an exact match wins over substring ambiguity
		}
		if strings.Contains(e, oldText) {
			if found >= 0 {
				return -1, fmt.Errorf("old_text %q matches more than one entry: quote more of it", oldText)
			}
			found = i
		}
	}
	if found < 0 {
		return -1, fmt.Errorf("no entry contains %q", oldText)
	}
	return found, nil
}

// Size is the number of characters the entries take.
func Size(entries []string) int {
	n := 0
	for _, e := range entries {
		n += utf8.RuneCountInString(e)
	}
	return n
}

func checkCap(entries []string, limit int) error {
	if size := Size(entries); limit > 0 && size > limit {
		return fmt.Errorf("%w (would use %d of %d characters)", ErrMemoryFull, size, limit)
	}
	return nil
}
