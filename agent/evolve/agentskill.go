package evolve

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The open Agent Skills format (agentskills.io), in which skills are
// installed, exported and imported: a folder per skill with SKILL.md — a
// YAML front matter with name and description, then the instructions —
// and optional scripts/, references/ and assets/. Nothing in a folder is
// run here: scripts are kept as the skill's files, and run only through
// the shell tool, under its approval.

// Limits of what an installed skill may hold: a skill is read into the
// prompt when used, and its files into the store.
const (
	MaxSkillMD      = 64 << 10  // SKILL.md
	MaxSkillFile    = 256 << 10 // each other file
	MaxSkillFolder  = 1 << 20   // all files together
	MaxSkillFiles   = 64
	maxNameRunes    = 64
	maxDescRunes    = 1024
	skillMDFileName = "SKILL.md"
)

// skillDirs are the folders of a skill that are kept; anything else in a
// skill folder is refused, so what is installed is what the format says.
var skillDirs = []string{"scripts", "references", "assets"}

// openMeta is the open format's front matter. name and description are
// required; the format's optional fields are accepted and, but for
// metadata.origin (what Parley exports), not kept. Any other field is
// refused.
type openMeta struct {
	Name          string            `yaml:"name"`
	Description   string            `yaml:"description"`
	License       string            `yaml:"license"`
	Compatibility string            `yaml:"compatibility"`
	AllowedTools  any               `yaml:"allowed-tools"`
	Metadata      map[string]string `yaml:"metadata"`
}

// ParseSkillMD reads a SKILL.md in the open format: the name and
// description validated, the instructions as the body.
func ParseSkillMD(data []byte) (Skill, error) {
	if len(data) > MaxSkillMD {
		return Skill{}, fmt.Errorf("SKILL.md: %d bytes, more than %d", len(data), MaxSkillMD)
	}
	if !utf8.Valid(data) {
		return Skill{}, errors.New("SKILL.md: not UTF-8 text")
	}
	var m openMeta
	body, err := frontMatter(data, "SKILL.md", &m)
	if err != nil {
		return Skill{}, err
	}
	m.Name, m.Description = strings.TrimSpace(m.Name), strings.TrimSpace(m.Description)
	for _, f := range []struct {
		key, val string
		max      int
	}{{"name", m.Name, maxNameRunes}, {"description", m.Description, maxDescRunes}} {
		switch n := utf8.RuneCountInString(f.val); {
		case n == 0:
			return Skill{}, fmt.Errorf("SKILL.md: no %s (required)", f.key)
		case n > f.max:
			return Skill{}, fmt.Errorf("SKILL.md: the %s has %d characters, more than %d", f.key, n, f.max)
		case strings.ContainsFunc(f.val, func(r rune) bool { return unicode.IsControl(r) && (f.key == "name" || r != '\n') }):
			return Skill{}, fmt.Errorf("SKILL.md: the %s holds control characters", f.key)
		}
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return Skill{}, errors.New("SKILL.md: no instructions after the front matter")
	}
	return Skill{Name: m.Name, Description: m.Description, Body: body, Origin: m.Metadata["origin"]}, nil
}

// SkillMD is s's SKILL.md in the open format; an installed skill's origin
// goes in metadata, so an import puts it back.
func SkillMD(s Skill) []byte {
	m := struct {
		Name        string            `yaml:"name"`
		Description string            `yaml:"description"`
		Metadata    map[string]string `yaml:"metadata,omitempty"`
	}{Name: s.Name, Description: s.Description}
	if s.Origin != "" {
		m.Metadata = map[string]string{"origin": s.Origin}
	}
	return withFrontMatter(m, s.Body)
}

// SkillFilePath checks the path of a skill's file, as found in a folder or
// as stored: relative, clean, under scripts/, references/ or assets/ —
// never "..", never absolute, so neither an install nor an export writes
// or reads outside the skill's folder.
func SkillFilePath(p string) error {
	if !fs.ValidPath(p) || strings.Contains(p, `\`) {
		return fmt.Errorf("%q: not a plain relative path inside the skill's folder", p)
	}
	top, _, ok := strings.Cut(p, "/")
	if !ok || !slices.Contains(skillDirs, top) {
		return fmt.Errorf("%q: a skill's files are SKILL.md and those under %s/", p, strings.Join(skillDirs, "/, "))
	}
	return nil
}

// ReadSkillFolder reads one skill folder in the open format from fsys (its
// root is the folder). Symbolic links, files outside SKILL.md and the
// skill's folders, and anything over the limits are refused.
func ReadSkillFolder(fsys fs.FS) (Skill, error) {
	md, err := fs.ReadFile(fsys, skillMDFileName)
	if err != nil {
		return Skill{}, fmt.Errorf("the folder has no readable %s: %w", skillMDFileName, err)
	}
	s, err := ParseSkillMD(md)
	if err != nil {
		return Skill{}, err
	}
	total := len(md)
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." || p == skillMDFileName {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%q: a symbolic link; a skill's files must be in its folder", p)
		}
		if d.IsDir() {
			if top, _, _ := strings.Cut(p, "/"); !slices.Contains(skillDirs, top) {
				return fmt.Errorf("%q: a skill's files are SKILL.md and those under %s/", p, strings.Join(skillDirs, "/, "))
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%q: not a regular file", p)
		}
		if err := SkillFilePath(p); err != nil {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		switch {
		case len(data) > MaxSkillFile:
			return fmt.Errorf("%q: %d bytes, more than %d", p, len(data), MaxSkillFile)
		case !utf8.Valid(data):
			return fmt.Errorf("%q: not text (a skill's files are kept as text)", p)
		case len(s.Files) == MaxSkillFiles:
			return fmt.Errorf("more than %d files", MaxSkillFiles)
		}
		if total += len(data); total > MaxSkillFolder {
			return fmt.Errorf("the folder holds more than %d bytes", MaxSkillFolder)
		}
		if s.Files == nil {
			s.Files = map[string]string{}
		}
		s.Files[p] = string(data)
		return nil
	})
	if err != nil {
		return Skill{}, fmt.Errorf("skill folder: %w", err)
	}
	return s, nil
}

// WriteSkillFolder writes s in the open format as <dir>/<slug>/: SKILL.md
// and its files (scripts without the execute bit: they are run, if ever,
// through the shell tool).
func WriteSkillFolder(dir string, s Skill) error {
	slug := folderName(s)
	root := filepath.Join(dir, slug)
	write := func(rel string, data []byte) error {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	if err := write(skillMDFileName, SkillMD(s)); err != nil {
		return fmt.Errorf("export %q: %w", s.Name, err)
	}
	for _, rel := range slices.Sorted(maps.Keys(s.Files)) {
		if err := SkillFilePath(rel); err != nil {
			return fmt.Errorf("export %q: %w", s.Name, err)
		}
		if err := write(rel, []byte(s.Files[rel])); err != nil {
			return fmt.Errorf("export %q: %w", s.Name, err)
		}
	}
	return nil
}

// folderName is the folder of s in the open format (and under .skills/ in
// a workspace): its slug, or one made of its name.
func folderName(s Skill) string {
	if s.Slug != "" && path.Base(s.Slug) == s.Slug && !strings.HasPrefix(s.Slug, ".") {
		return s.Slug
	}
	return slugOf(s.Name)
}
