package evolve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/parleybot/parley/agent"
)

// The skill index: each turn's system prompt lists the skills of the
// turn's scopes (one impression each), within a token budget — past it,
// the skills most related to the conversation, then the most useful by
// their rates (Rates.Usefulness), then the most recently used, are listed
// and the rest counted. A peer's 235 skills took half its
// system prompt; this index never takes more than its budget.

// ImpressionCounter counts how often each skill was listed (store.DB).
type ImpressionCounter interface {
	AddImpressions(ctx context.Context, scope string, names []string) error
}

// Index implements agent.SkillIndex over the skills of a SkillStore.
type Index struct {
	Files       Skills
	Impressions ImpressionCounter // nil: not counted
	// Memos are the scopes' self-memos, listed with the skills; nil: none.
	Memos MemoStore
	// BudgetTokens bounds the index in the prompt (default 3,000).
	BudgetTokens int
	// Rates rank the skills when the budget binds: the least useful are
	// left out first (Rates.Usefulness); nil: the least recently used.
	Rates RateSource
}

type scopedSkill struct {
	scope string
	Skill
	related int
	cost    int     // tokens its line takes
	useful  float64 // Rates.Usefulness, when the budget binds
}

// SkillIndex lists the skills of c's learned scopes (Caller.Learned) for
// a turn about text.
func (x Index) SkillIndex(ctx context.Context, c agent.Caller, text string) (agent.SkillList, error) {
	var all []scopedSkill
	words := queryWords(text)
	total := 0
	for _, scope := range c.Learned {
		skills, _ := x.Files.List(ctx, scope) // a broken file hides only itself
		for _, s := range skills {
			cost := agent.EstimateTokens(s.Name+": "+s.Description) + 2
			total += cost
			all = append(all, scopedSkill{scope: scope, Skill: s, related: related(words, s.Name+" "+s.Description), cost: cost})
		}
	}
	budget := cmp.Or(x.BudgetTokens, 3000)
	if total > budget {
		// Only when some must be left out: the rates cost a query per
		// scope, and a turn whose skills all fit needs no ranking.
		if err := x.rank(ctx, c.Learned, all); err != nil {
			return agent.SkillList{}, err
		}
	}
	slices.SortStableFunc(all, func(a, b scopedSkill) int {
		return cmp.Or(cmp.Compare(b.related, a.related), cmp.Compare(b.useful, a.useful),
			b.LastUsedAt.Compare(a.LastUsedAt), b.UpdatedAt.Compare(a.UpdatedAt))
	})
	var out agent.SkillList
	if x.Memos != nil {
		for _, scope := range c.Learned {
			m, err := x.Memos.Memo(ctx, scope)
			if err != nil {
				return out, err
			}
			for _, n := range []string{m.Self, m.Team} {
				if n != "" {
					out.Notes = append(out.Notes, n)
				}
			}
		}
	}
	shown := map[string][]string{}
	used := 0
	for _, s := range all {
		if used+s.cost > budget {
			out.More++
			continue
		}
		used += s.cost
		out.Listed = append(out.Listed, agent.SkillEntry{Name: s.Name, Description: s.Description})
		shown[s.scope] = append(shown[s.scope], s.Name)
	}
	if x.Impressions != nil {
		var errs []error
		for scope, names := range shown {
			errs = append(errs, x.Impressions.AddImpressions(ctx, scope, names))
		}
		if err := errors.Join(errs...); err != nil {
			return out, fmt.Errorf("count skill impressions: %w", err)
		}
	}
	return out, nil
}

// rank sets each skill's usefulness from its scope's rates; without
// Rates all rank alike and recency decides.
func (x Index) rank(ctx context.Context, scopes []string, all []scopedSkill) error {
	if x.Rates == nil {
		return nil
	}
	byScope := make(map[string]map[string]Rates, len(scopes))
	for _, scope := range scopes {
		r, err := x.Rates.ScopeSkillRates(ctx, scope)
		if err != nil {
			return fmt.Errorf("skill rates: %w", err)
		}
		byScope[scope] = r
	}
	for i := range all {
		all[i].useful = byScope[all[i].scope][strings.ToLower(all[i].Name)].Usefulness()
	}
	return nil
}

// queryWords are the words of text worth matching: letters and digits,
// lowercased, three or more characters (two for CJK).
func queryWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		if len([]rune(w)) >= 3 || len([]rune(w)) == 2 && unicode.Is(unicode.Han, []rune(w)[0]) {
			out = append(out, w)
		}
	}
	return out
}

// related counts the words found in s.
func related(words []string, s string) int {
	s = strings.ToLower(s)
	n := 0
	for _, w := range words {
		if strings.Contains(s, w) {
			n++
		}
	}
	return n
}

// SkillReadArgs is skill_read's argument contract.
type SkillReadArgs struct {
	Name string `json:"name" jsonschema:"the skill's name, as the skill index lists it"`
}

// SkillRead returns the skill_read tool: a skill's steps, from the turn's
// learned scopes only (Caller.Learned), and the skill's lastUsedAt
// refreshed. Each call is one invocation (the run's signals count it).
// An installed skill's files are put in the conversation's shell
// workspace (workspace; nil: not offered) under .skills/<slug>/, never
// executable: a script runs only as a shell command a person approves.
func SkillRead(files Skills, workspace func(sessionID string) (string, error)) (agent.Tool, error) {
	return agent.Local(agent.Func("skill_read", "Read one of the skills you have learnt here (listed in your system prompt): its steps, to follow.",
		func(ctx context.Context, c agent.Caller, a SkillReadArgs) (string, error) {
			for _, scope := range c.Learned {
				s, err := files.Get(ctx, scope, a.Name)
				if errors.Is(err, ErrNoSkill) {
					continue
				}
				if err != nil {
					return "", err
				}
				if err := files.Touch(ctx, scope, s.Name); err != nil {
					return "", err
				}
				out := fmt.Sprintf("# %s\n%s\n\n%s", s.Name, s.Description, s.Body)
				if len(s.Files) > 0 && workspace != nil {
					where, err := placeSkillFiles(workspace, c.WorkspaceID(), s)
					if err != nil {
						return "", err
					}
					out += where
				}
				return out, nil
			}
			return "", fmt.Errorf("%w here: %q", ErrNoSkill, a.Name)
		}))
}

// placeSkillFiles writes s's files into the session's workspace and says
// where they are.
func placeSkillFiles(workspace func(string) (string, error), sessionID string, s Skill) (string, error) {
	ws, err := workspace(sessionID)
	if err != nil {
		return "", fmt.Errorf("the skill's files: %w", err)
	}
	rel := path.Join(".skills", folderName(s))
	if err := os.RemoveAll(filepath.Join(ws, filepath.FromSlash(rel))); err != nil {
		return "", fmt.Errorf("the skill's files: %w", err)
	}
	paths := slices.Sorted(maps.Keys(s.Files))
	for _, p := range paths {
		if err := SkillFilePath(p); err != nil {
			return "", fmt.Errorf("the skill's files: %w", err)
		}
		dst := filepath.Join(ws, filepath.FromSlash(rel), filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return "", fmt.Errorf("the skill's files: %w", err)
		}
		if err := os.WriteFile(dst, []byte(s.Files[p]), 0o600); err != nil {
			return "", fmt.Errorf("the skill's files: %w", err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\nThis skill's files are in your shell workspace under %s/:\n", rel)
	for _, p := range paths {
		fmt.Fprintf(&b, "- %s/%s\n", rel, p)
	}
	fmt.Fprintf(&b, "Run a script with the shell tool (for example: sh %s/scripts/NAME); a person approves each command.", rel)
	return b.String(), nil
}
