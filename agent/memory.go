package agent

import "fmt"

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
