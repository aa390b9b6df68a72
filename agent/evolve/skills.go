package evolve

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/parleybot/parley/internal/lazyre"
)

// Skills are what reflection distils, or what an admin installs: short
// procedures with a concrete trigger. They are kept in the store (a
// SkillStore), so every replica of a deployment offers the same skills;
// Marshal and ParseSkill are their Markdown form (a YAML front matter
// with exactly the fields of skillMeta, then the steps), used by
// revisions, by the legacy files under data_dir (SkillFiles) and by
// export and import.

// Skill is one skill.
type Skill struct {
	Slug        string // its key within the scope (the file name of its Markdown form)
	Name        string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	PatchCount  int
	LastUsedAt  time.Time // zero: never used
	Body        string
	// Origin is where an installed skill came from (a folder or a URL);
	// "" for a skill reflection learnt. Reflection never rewrites an
	// installed skill (ErrInstalled).
	Origin string
	// Files are an installed skill's other files (scripts/..., references/...)
	// by their path in its folder; they are stored, never run on install.
	Files map[string]string
}

// skillMeta is the front matter, field for field.
type skillMeta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	CreatedAt   string `yaml:"createdAt"`
	UpdatedAt   string `yaml:"updatedAt"`
	PatchCount  int    `yaml:"patchCount"`
	LastUsedAt  string `yaml:"lastUsedAt"`
	Origin      string `yaml:"origin,omitempty"`
}

// ErrNoSkill means no skill of that name in the scope.
var ErrNoSkill = errors.New("no such skill")

// ErrShrink refuses a change that would empty a skill or cut it by more
// than half: a truncated model reply must not destroy what was learnt.
var ErrShrink = errors.New("the change would empty it or cut it by more than half")

// Marshal is the skill's Markdown form (without its Files).
func (s Skill) Marshal() []byte {
	meta := skillMeta{Name: s.Name, Description: s.Description, CreatedAt: rfc3339(s.CreatedAt),
		UpdatedAt: rfc3339(s.UpdatedAt), PatchCount: s.PatchCount, LastUsedAt: rfc3339(s.LastUsedAt), Origin: s.Origin}
	return withFrontMatter(meta, s.Body)
}

// withFrontMatter is a Markdown file: meta as YAML front matter, then
// body. meta holds strings and ints only, which YAML always marshals.
func withFrontMatter(meta any, body string) []byte {
	head, _ := yaml.Marshal(meta)
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(head)
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(body))
	b.WriteString("\n")
	return b.Bytes()
}

// ParseSkill reads a skill file. Unknown front matter fields are refused,
// so a typo in a hand edit is reported, not silently dropped.
func ParseSkill(data []byte) (Skill, error) {
	var m skillMeta
	body, err := frontMatter(data, "skill file", &m)
	if err != nil {
		return Skill{}, err
	}
	if strings.TrimSpace(m.Name) == "" {
		return Skill{}, errors.New("skill file: no name")
	}
	s := Skill{Name: m.Name, Description: m.Description, PatchCount: m.PatchCount, Body: strings.TrimSpace(body), Origin: m.Origin}
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

// frontMatter decodes the YAML front matter of a Markdown file (a skill
// file, a SKILL.md: what names it in errors) into meta, refusing unknown
// fields, and returns what follows it.
func frontMatter(data []byte, what string, meta any) (string, error) {
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\ufeff")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", fmt.Errorf("%s: no front matter (--- at the top)", what)
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if head, ok = strings.CutSuffix(rest, "\n---"); !ok {
			return "", fmt.Errorf("%s: the front matter is not closed by ---", what)
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(head))
	dec.KnownFields(true)
	if err := dec.Decode(meta); err != nil {
		return "", fmt.Errorf("%s: front matter: %w", what, err)
	}
	return body, nil
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// SkillStore keeps skills (store.DB on either engine; SkillFiles for the
// legacy files). It stores what it is given: the rules (names, room,
// shrinking) are Skills'.
type SkillStore interface {
	// ListSkills is a scope's skills, by name.
	ListSkills(ctx context.Context, scope string) ([]Skill, error)
	// PutSkill inserts s, or replaces the skill of s.Slug.
	PutSkill(ctx context.Context, scope string, s Skill) error
	// DeleteSkill removes the skill of slug; none is not an error.
	DeleteSkill(ctx context.Context, scope, slug string) error
}

// ErrInstalled refuses reflection's change to an installed skill: what an
// admin installed is changed by an admin (docs/evolution.md).
var ErrInstalled = errors.New("an installed skill is changed only by an admin")

// Skills are the rules over a SkillStore: unique names per scope, a cap
// with eviction, no change that empties a skill.
type Skills struct {
	Store SkillStore
	// Max is the most skills per scope (default 200); a new one past it
	// evicts the least recently used, never-used ones first.
	Max int
	Now func() time.Time
}

func (f Skills) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

// List reads a scope's skills, by name.
func (f Skills) List(ctx context.Context, scope string) ([]Skill, error) {
	skills, err := f.Store.ListSkills(ctx, scope)
	slices.SortFunc(skills, func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) })
	return skills, err
}

// Get reads one skill by name.
func (f Skills) Get(ctx context.Context, scope, name string) (Skill, error) {
	skills, err := f.Store.ListSkills(ctx, scope)
	if err != nil && len(skills) == 0 {
		return Skill{}, err
	}
	for _, s := range skills {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	return Skill{}, fmt.Errorf("%w: %q", ErrNoSkill, name)
}

// Create writes a new skill and returns the names of the skills evicted to
// make room. A skill of the same name is an error: patch it instead.
func (f Skills) Create(ctx context.Context, scope, name, description, body string) (Skill, []string, error) {
	if strings.TrimSpace(name) == "" || strings.TrimSpace(body) == "" {
		return Skill{}, nil, errors.New("a skill needs a name and steps")
	}
	if _, err := f.Get(ctx, scope, name); err == nil {
		return Skill{}, nil, fmt.Errorf("a skill named %q exists: patch it", name)
	}
	now := f.now()
	s := Skill{Name: name, Description: description, CreatedAt: now, UpdatedAt: now, Body: body}
	evicted, err := f.add(ctx, scope, s)
	if err != nil {
		return Skill{}, evicted, err
	}
	s, err = f.Get(ctx, scope, name) // with its slug
	return s, evicted, err
}

// add makes room for s and stores it under a free slug.
func (f Skills) add(ctx context.Context, scope string, s Skill) ([]string, error) {
	skills, err := f.Store.ListSkills(ctx, scope)
	if err != nil && len(skills) == 0 {
		return nil, err
	}
	evicted, err := f.makeRoom(ctx, scope, skills)
	if err != nil {
		return evicted, err
	}
	s.Slug = freeSlug(skills, slugOf(s.Name))
	return evicted, f.Store.PutSkill(ctx, scope, s)
}

// Patch replaces the span old of a skill's steps with new, bumping its
// patch count and update time. An installed skill is refused: reflection
// patches, and it never rewrites what an admin installed.
func (f Skills) Patch(ctx context.Context, scope, name, old, new string) (Skill, error) {
	s, err := f.Get(ctx, scope, name)
	if err != nil {
		return Skill{}, err
	}
	if s.Origin != "" {
		return Skill{}, fmt.Errorf("%q: %w", name, ErrInstalled)
	}
	if old == "" || !strings.Contains(s.Body, old) {
		return Skill{}, fmt.Errorf("skill %q does not contain the text to replace", name)
	}
	body := strings.Replace(s.Body, old, new, 1)
	if shrinks(s.Body, body) {
		return Skill{}, ErrShrink
	}
	s.Body, s.PatchCount, s.UpdatedAt = body, s.PatchCount+1, f.now()
	return s, f.Store.PutSkill(ctx, scope, s)
}

// Touch records that a skill was read now.
func (f Skills) Touch(ctx context.Context, scope, name string) error {
	s, err := f.Get(ctx, scope, name)
	if err != nil {
		return err
	}
	s.LastUsedAt = f.now()
	return f.Store.PutSkill(ctx, scope, s)
}

// Delete removes a skill.
func (f Skills) Delete(ctx context.Context, scope, name string) error {
	s, err := f.Get(ctx, scope, name)
	if err != nil {
		return err
	}
	return f.Store.DeleteSkill(ctx, scope, s.Slug)
}

// Put stores s as it is under its slug (an undo, an edit by a person).
func (f Skills) Put(ctx context.Context, scope string, s Skill) error {
	return f.Store.PutSkill(ctx, scope, s)
}

// content is the Markdown form of a scope's skill slug, "" when none: what
// a revision keeps.
func (f Skills) content(ctx context.Context, scope, slug string) string {
	skills, _ := f.Store.ListSkills(ctx, scope)
	for _, s := range skills {
		if s.Slug == slug {
			return string(s.Marshal())
		}
	}
	return ""
}

// makeRoom evicts skills until one more fits: never-used ones first, the
// oldest created first among them; then the least recently used.
func (f Skills) makeRoom(ctx context.Context, scope string, skills []Skill) ([]string, error) {
	max := cmp.Or(f.Max, 200)
	if len(skills) < max {
		return nil, nil
	}
	skills = slices.Clone(skills)
	slices.SortFunc(skills, func(a, b Skill) int {
		return cmp.Or(cmp.Compare(a.LastUsedAt.UnixNano(), b.LastUsedAt.UnixNano()), cmp.Compare(a.CreatedAt.UnixNano(), b.CreatedAt.UnixNano()))
	})
	var evicted []string
	for _, s := range skills[:len(skills)-max+1] {
		if err := f.Store.DeleteSkill(ctx, scope, s.Slug); err != nil {
			return evicted, err
		}
		evicted = append(evicted, s.Name)
	}
	return evicted, nil
}

// freeSlug is slug, or slug-2, slug-3...: the first no skill has.
func freeSlug(skills []Skill, slug string) string {
	for i := 1; ; i++ {
		try := slug
		if i > 1 {
			try = fmt.Sprintf("%s-%d", slug, i)
		}
		if !slices.ContainsFunc(skills, func(s Skill) bool { return s.Slug == try }) {
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
