package evolve

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/parleybot/parley/internal/lazyre"
)

// Skills are what reflection distils: short procedures with a concrete
// trigger, kept as Markdown files a person can read and edit,
// <dir>/<scope>/<slug>.md, a YAML front matter with exactly the fields of
// skillMeta, then the steps. Files are the truth: every call reads them
// again, so hand edits are picked up.

// Skill is one skill file.
type Skill struct {
	Slug        string // the file's name without .md
	Name        string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	PatchCount  int
	LastUsedAt  time.Time // zero: never used
	Body        string
}

// skillMeta is the front matter, field for field.
type skillMeta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	CreatedAt   string `yaml:"createdAt"`
	UpdatedAt   string `yaml:"updatedAt"`
	PatchCount  int    `yaml:"patchCount"`
	LastUsedAt  string `yaml:"lastUsedAt"`
}

// ErrNoSkill means no skill of that name in the scope.
var ErrNoSkill = errors.New("no such skill")

// ErrShrink refuses a change that would empty a skill or cut it by more
// than half: a truncated model reply must not destroy what was learnt.
var ErrShrink = errors.New("the change would empty it or cut it by more than half")

// Marshal is the skill's file.
func (s Skill) Marshal() []byte {
	meta := skillMeta{Name: s.Name, Description: s.Description, CreatedAt: rfc3339(s.CreatedAt),
		UpdatedAt: rfc3339(s.UpdatedAt), PatchCount: s.PatchCount, LastUsedAt: rfc3339(s.LastUsedAt)}
	head, _ := yaml.Marshal(meta) // plain strings and an int: cannot fail
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(head)
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(s.Body))
	b.WriteString("\n")
	return b.Bytes()
}

// ParseSkill reads a skill file. Unknown front matter fields are refused,
// so a typo in a hand edit is reported, not silently dropped.
func ParseSkill(data []byte) (Skill, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return Skill{}, errors.New("skill file: no front matter (--- at the top)")
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return Skill{}, errors.New("skill file: the front matter is not closed by ---")
	}
	var m skillMeta
	dec := yaml.NewDecoder(strings.NewReader(head))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return Skill{}, fmt.Errorf("skill file: front matter: %w", err)
	}
	if strings.TrimSpace(m.Name) == "" {
		return Skill{}, errors.New("skill file: no name")
	}
	s := Skill{Name: m.Name, Description: m.Description, PatchCount: m.PatchCount, Body: strings.TrimSpace(body)}
	var err error
	for _, f := range []struct {
		dst *time.Time
		src string
		key string
	}{{&s.CreatedAt, m.CreatedAt, "createdAt"}, {&s.UpdatedAt, m.UpdatedAt, "updatedAt"}, {&s.LastUsedAt, m.LastUsedAt, "lastUsedAt"}} {
		if f.src == "" {
			continue
		}
		if *f.dst, err = time.Parse(time.RFC3339, f.src); err != nil {
			return Skill{}, fmt.Errorf("skill file: %s: %w", f.key, err)
		}
	}
	return s, nil
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// SkillFiles keeps the skill files of every scope under Dir.
type SkillFiles struct {
	Dir string
	// Max is the most skills per scope (default 200); a new one past it
	// evicts the least recently used, never-used ones first.
	Max int
	Now func() time.Time
}

func (f SkillFiles) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

// ScopeDir is where a scope's skills live: the scope key with ':' as '_'
// ("space_slack_T012"), so the folder name is portable.
func (f SkillFiles) ScopeDir(scope string) string {
	return filepath.Join(f.Dir, strings.ReplaceAll(scope, ":", "_"))
}

// List reads a scope's skills, by name. A file that does not parse is
// skipped and reported in errs, so one bad hand edit hides only itself.
func (f SkillFiles) List(scope string) (skills []Skill, errs []error) {
	entries, err := os.ReadDir(f.ScopeDir(scope))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(f.ScopeDir(scope), e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s, err := ParseSkill(data)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Name(), err))
			continue
		}
		s.Slug = strings.TrimSuffix(e.Name(), ".md")
		skills = append(skills, s)
	}
	slices.SortFunc(skills, func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) })
	return skills, errs
}

// Get reads one skill by name.
func (f SkillFiles) Get(scope, name string) (Skill, error) {
	skills, _ := f.List(scope)
	for _, s := range skills {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	return Skill{}, fmt.Errorf("%w: %q", ErrNoSkill, name)
}

// Create writes a new skill and returns the names of the skills evicted to
// make room. A skill of the same name is an error: patch it instead.
func (f SkillFiles) Create(scope, name, description, body string) (Skill, []string, error) {
	if strings.TrimSpace(name) == "" || strings.TrimSpace(body) == "" {
		return Skill{}, nil, errors.New("a skill needs a name and steps")
	}
	if _, err := f.Get(scope, name); err == nil {
		return Skill{}, nil, fmt.Errorf("a skill named %q exists: patch it", name)
	}
	evicted, err := f.makeRoom(scope)
	if err != nil {
		return Skill{}, nil, err
	}
	now := f.now()
	s := Skill{Slug: f.freeSlug(scope, slugOf(name)), Name: name, Description: description, CreatedAt: now, UpdatedAt: now, Body: body}
	return s, evicted, f.write(scope, s)
}

// Patch replaces the span old of a skill's steps with new, bumping its
// patch count and update time.
func (f SkillFiles) Patch(scope, name, old, new string) (Skill, error) {
	s, err := f.Get(scope, name)
	if err != nil {
		return Skill{}, err
	}
	if old == "" || !strings.Contains(s.Body, old) {
		return Skill{}, fmt.Errorf("skill %q does not contain the text to replace", name)
	}
	body := strings.Replace(s.Body, old, new, 1)
	if shrinks(s.Body, body) {
		return Skill{}, ErrShrink
	}
	s.Body, s.PatchCount, s.UpdatedAt = body, s.PatchCount+1, f.now()
	return s, f.write(scope, s)
}

// Touch records that a skill was read now.
func (f SkillFiles) Touch(scope, name string) error {
	s, err := f.Get(scope, name)
	if err != nil {
		return err
	}
	s.LastUsedAt = f.now()
	return f.write(scope, s)
}

// Delete removes a skill.
func (f SkillFiles) Delete(scope, name string) error {
	s, err := f.Get(scope, name)
	if err != nil {
		return err
	}
	return os.Remove(filepath.Join(f.ScopeDir(scope), s.Slug+".md"))
}

// makeRoom evicts skills until one more fits: never-used ones first, the
// oldest created first among them; then the least recently used.
func (f SkillFiles) makeRoom(scope string) ([]string, error) {
	max := cmp.Or(f.Max, 200)
	skills, _ := f.List(scope)
	if len(skills) < max {
		return nil, nil
	}
	slices.SortFunc(skills, func(a, b Skill) int {
		return cmp.Or(cmp.Compare(a.LastUsedAt.UnixNano(), b.LastUsedAt.UnixNano()), cmp.Compare(a.CreatedAt.UnixNano(), b.CreatedAt.UnixNano()))
	})
	var evicted []string
	for _, s := range skills[:len(skills)-max+1] {
		if err := os.Remove(filepath.Join(f.ScopeDir(scope), s.Slug+".md")); err != nil {
			return evicted, err
		}
		evicted = append(evicted, s.Name)
	}
	return evicted, nil
}

// write writes a skill's file atomically (a temporary file renamed), so a
// crash leaves the old version or the new, never half of one.
func (f SkillFiles) write(scope string, s Skill) error {
	dir := f.ScopeDir(scope)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".skill-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(s.Marshal()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, s.Slug+".md"))
}

func (f SkillFiles) freeSlug(scope, slug string) string {
	for i := 1; ; i++ {
		try := slug
		if i > 1 {
			try = fmt.Sprintf("%s-%d", slug, i)
		}
		if _, err := os.Stat(filepath.Join(f.ScopeDir(scope), try+".md")); errors.Is(err, fs.ErrNotExist) {
			return try
		}
	}
}

var nonSlug = lazyre.MustCompile(`[^\p{L}\p{N}]+`)

// slugOf is a file name for a skill's name: letters and digits joined by
// '-', lowercased, at most 60 characters.
func slugOf(name string) string {
	s := strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(name), "-"), "-")
	if r := []rune(s); len(r) > 60 {
		s = strings.Trim(string(r[:60]), "-")
	}
	if s == "" {
		return "skill"
	}
	return s
}

// shrinks: after is empty, or less than half of before.
func shrinks(before, after string) bool {
	return strings.TrimSpace(after) == "" || len(after)*2 < len(before)
}
