package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/tools/webfetch"
)

// skillSource reads a skill to install (parley skills add, /skills add):
// a folder in the open Agent Skills format, its SKILL.md, or the URL of a
// SKILL.md, fetched through web_fetch's guard (no private, loopback or
// link-local address, redirects checked). A URL brings the instructions
// only: a folder's scripts come with the folder.
type skillSource struct {
	fetch *webfetch.Fetcher
}

// newSkillSource guards fetches as web_fetch does, without its allow
// list: installing from an intranet host is done from a folder.
func newSkillSource() (skillSource, error) {
	f, err := webfetch.NewFetcher(webfetch.Options{})
	if err != nil {
		return skillSource{}, fmt.Errorf("skill source: %w", err)
	}
	return skillSource{fetch: f}, nil
}

// read reads the skill at src, its Origin set to where it came from (a
// folder's absolute path, or the URL).
func (x skillSource) read(ctx context.Context, src string) (evolve.Skill, error) {
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		got, err := x.fetch.Fetch(ctx, src, evolve.MaxSkillMD)
		if errors.Is(err, webfetch.ErrTooLarge) {
			return evolve.Skill{}, fmt.Errorf("SKILL.md at %s: more than %d bytes", src, evolve.MaxSkillMD)
		}
		if err != nil {
			return evolve.Skill{}, fmt.Errorf("fetch the skill: %w", err)
		}
		s, err := evolve.ParseSkillMD(got.Body)
		if err != nil {
			return evolve.Skill{}, fmt.Errorf("%s: %w", src, err)
		}
		s.Origin = src
		return s, nil
	}
	dir, err := filepath.Abs(src)
	if err != nil {
		return evolve.Skill{}, fmt.Errorf("skill folder: %w", err)
	}
	if filepath.Base(dir) == "SKILL.md" {
		dir = filepath.Dir(dir)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return evolve.Skill{}, fmt.Errorf("%s: not a skill folder (a folder with SKILL.md), a SKILL.md or an http(s) URL", src)
	}
	s, err := evolve.ReadSkillFolder(os.DirFS(dir))
	if err != nil {
		return evolve.Skill{}, fmt.Errorf("%s: %w", src, err)
	}
	s.Origin = dir
	return s, nil
}
