package webconsole

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole/signin"
)

// The Learning page (docs/console.md): what learning from use kept in
// each scope — skills with their rates, the self-memo, every change with
// its diff — and the last reflections with their cost; undo, forget and
// edit, each audited. Edits pass the memory guard as reflection's own
// writes do.

// Learning is what the Learning page reads and changes. cmd/parley
// implements it over the skill files and the store; skills are to move
// into the store (#30), and the page will not notice.
type Learning interface {
	// Scopes lists the scopes that have skills, notes or changes.
	Scopes(ctx context.Context) ([]string, error)
	Skills(ctx context.Context, scope string) ([]evolve.Skill, error)
	Rates(ctx context.Context, scope, name string) (evolve.Rates, error)
	Memo(ctx context.Context, scope string) (evolve.Memo, error)
	// History lists scope's latest changes, newest first; Undo puts one
	// back.
	History(ctx context.Context, scope string) ([]evolve.Revision, error)
	Undo(ctx context.Context, r evolve.Revision) error
	ForgetSkill(ctx context.Context, scope, name string) error
	// EditSkill and EditMemo change what reflection wrote, through the
	// memory guard, keeping a revision; a refusal wraps evolve.ErrRefused
	// and changes nothing.
	EditSkill(ctx context.Context, scope, name, description, body string) error
	EditMemo(ctx context.Context, scope, note, text string) error
	// Reflections lists the latest reflections, newest first.
	Reflections(ctx context.Context, limit int) ([]evolve.ReflectionRecord, error)
}

// lastReflections is how many reflections the page lists; scopesPage how
// many scopes a page shows (each reads its skills, rates and changes).
const (
	lastReflections = 20
	scopesPage      = 10
)

// learnedScope is one scope as the page shows it.
type learnedScope struct {
	Scope   string
	Skills  []learnedSkill
	Memo    evolve.Memo
	History []revisionDiff
}

type learnedSkill struct {
	evolve.Skill
	Rates evolve.Rates
}

// revisionDiff is one change with what was there before it against what
// came after it: the next change's before, or what is there now.
type revisionDiff struct {
	evolve.Revision
	Diff []diffLine
}

// learningPage lists every scope's learning (?scope= narrows it to one)
// and the last reflections.
func (s *Server) learningPage(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	s.showLearning(w, r, who, http.StatusOK, r.URL.Query().Get("scope"), "")
}

// showLearning renders the page with status, narrowed to only (when not
// ""), saying refused when an edit was.
func (s *Server) showLearning(w http.ResponseWriter, r *http.Request, who *signin.Session, status int, only, refused string) {
	data := map[string]any{"Title": "Learning", "Nav": "learning", "Scope": only, "Refused": refused}
	l := s.cfg.Learning
	if l == nil {
		data["Off"] = "Learning from use is off here (evolution.enabled: false)."
		s.render(w, r, status, "learning", who, data)
		return
	}
	ctx := r.Context()
	scopes := []string{only}
	if only == "" {
		var err error
		if scopes, err = l.Scopes(ctx); err != nil {
			s.serverError(w, r, err)
			return
		}
		page := max(atoi(r.URL.Query().Get("page")), 1)
		if page > 1 {
			data["Earlier"] = "/learning?page=" + strconv.Itoa(page-1)
		}
		if len(scopes) > page*scopesPage {
			data["Later"] = "/learning?page=" + strconv.Itoa(page+1)
		}
		scopes = scopes[min(len(scopes), (page-1)*scopesPage):min(len(scopes), page*scopesPage)]
	}
	var shown []learnedScope
	for _, scope := range scopes {
		ls, err := learnedIn(ctx, l, scope)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		shown = append(shown, ls)
	}
	recs, err := l.Reflections(ctx, lastReflections)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	data["Scopes"], data["Reflections"] = shown, recs
	s.render(w, r, status, "learning", who, data)
}

// learnedIn reads one scope's skills, rates, notes and changes.
func learnedIn(ctx context.Context, l Learning, scope string) (learnedScope, error) {
	ls := learnedScope{Scope: scope}
	skills, err := l.Skills(ctx, scope)
	if err != nil {
		return ls, err
	}
	now := map[string]string{} // "kind/name" → what is there now
	for _, sk := range skills {
		rt, err := l.Rates(ctx, scope, sk.Name)
		if err != nil {
			return ls, err
		}
		ls.Skills = append(ls.Skills, learnedSkill{sk, rt})
		now["skill/"+sk.Slug] = string(sk.Marshal())
	}
	if ls.Memo, err = l.Memo(ctx, scope); err != nil {
		return ls, err
	}
	now["memo/"+evolve.MemoSelf], now["memo/"+evolve.MemoTeam] = ls.Memo.Self, ls.Memo.Team
	revs, err := l.History(ctx, scope)
	if err != nil {
		return ls, err
	}
	for _, v := range revs { // newest first: each one's after is the newer one's before
		key := v.Kind + "/" + v.Name
		ls.History = append(ls.History, revisionDiff{v, lineDiff(v.Before, now[key])})
		now[key] = v.Before
	}
	return ls, nil
}

// learningSkill shows one skill whole, with its edit form.
func (s *Server) learningSkill(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	q := r.URL.Query()
	s.showSkill(w, r, who, http.StatusOK, q.Get("scope"), q.Get("name"), nil, "")
}

// showSkill renders scope's skill name; draft, when not nil, is what an
// edit the guard refused asked for, shown in the form again.
func (s *Server) showSkill(w http.ResponseWriter, r *http.Request, who *signin.Session, status int, scope, name string, draft *evolve.Skill, refused string) {
	l := s.cfg.Learning
	if l == nil {
		s.fail(w, r, http.StatusNotFound, "Learning from use is off here.")
		return
	}
	sk, rates, err := findSkill(r.Context(), l, scope, name)
	if errors.Is(err, evolve.ErrNoSkill) {
		s.fail(w, r, http.StatusNotFound, "There is no such skill in that scope.")
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	form := sk
	if draft != nil {
		form.Description, form.Body = draft.Description, draft.Body
	}
	s.render(w, r, status, "learning-skill", who, map[string]any{"Title": sk.Name, "Nav": "learning", "Scope": scope,
		"Skill": sk, "Rates": rates, "Form": form, "Refused": refused})
}

// findSkill is scope's skill name and its rates.
func findSkill(ctx context.Context, l Learning, scope, name string) (evolve.Skill, evolve.Rates, error) {
	skills, err := l.Skills(ctx, scope)
	if err != nil {
		return evolve.Skill{}, evolve.Rates{}, err
	}
	for _, sk := range skills {
		if strings.EqualFold(sk.Name, name) {
			rt, err := l.Rates(ctx, scope, sk.Name)
			return sk, rt, err
		}
	}
	return evolve.Skill{}, evolve.Rates{}, fmt.Errorf("%w: %q", evolve.ErrNoSkill, name)
}

// learningChange runs one of the page's forms (how: "undo", "forget",
// "edit", "memo") and audits what it changed; a refused edit is shown
// again with the guard's reason, and nothing changes.
func (s *Server) learningChange(how string) handler {
	return func(w http.ResponseWriter, r *http.Request, who *signin.Session) {
		l := s.cfg.Learning
		if l == nil {
			s.fail(w, r, http.StatusNotFound, "Learning from use is off here.")
			return
		}
		ctx := r.Context()
		scope, name := r.PostFormValue("scope"), r.PostFormValue("name")
		back := "/learning?" + url.Values{"scope": {scope}}.Encode()
		var err error
		switch how {
		case "undo":
			var v evolve.Revision
			if v, err = revisionIn(ctx, l, scope, r.PostFormValue("id")); err == nil {
				if err = l.Undo(ctx, v); err == nil {
					s.record(ctx, who, v.Kind+".undo", scope, fmt.Sprintf("%s %s %s", v.Action, v.Kind, v.Name))
				}
			}
		case "forget":
			var sk evolve.Skill
			if sk, _, err = findSkill(ctx, l, scope, name); err == nil {
				if err = l.ForgetSkill(ctx, scope, sk.Name); err == nil {
					s.record(ctx, who, "skill.forget", scope, sk.Name)
				}
			}
		case "edit":
			draft := evolve.Skill{Description: r.PostFormValue("description"), Body: r.PostFormValue("body")}
			err = l.EditSkill(ctx, scope, name, draft.Description, draft.Body)
			if errors.Is(err, evolve.ErrRefused) {
				s.showSkill(w, r, who, http.StatusUnprocessableEntity, scope, name, &draft, err.Error())
				return
			}
			if err == nil {
				s.record(ctx, who, "skill.edit", scope, name)
				back = "/learning/skill?" + url.Values{"scope": {scope}, "name": {name}}.Encode()
			}
		case "memo":
			note := r.PostFormValue("note")
			err = l.EditMemo(ctx, scope, note, r.PostFormValue("text"))
			if errors.Is(err, evolve.ErrRefused) {
				s.showLearning(w, r, who, http.StatusUnprocessableEntity, scope, "The "+note+" note: "+err.Error())
				return
			}
			if err == nil {
				s.record(ctx, who, "memo.edit", scope, note)
			}
		}
		switch {
		case errors.Is(err, evolve.ErrNoSkill), errors.Is(err, errNoRevision):
			s.fail(w, r, http.StatusNotFound, "That is not there any more: reload the page.")
		case err != nil:
			s.serverError(w, r, err)
		default:
			http.Redirect(w, r, back, http.StatusSeeOther)
		}
	}
}

var errNoRevision = errors.New("no such change")

// revisionIn is scope's change whose id the form names.
func revisionIn(ctx context.Context, l Learning, scope, id string) (evolve.Revision, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return evolve.Revision{}, fmt.Errorf("%w: %q", errNoRevision, id)
	}
	revs, err := l.History(ctx, scope)
	if err != nil {
		return evolve.Revision{}, err
	}
	for _, v := range revs {
		if v.ID == n {
			return v, nil
		}
	}
	return evolve.Revision{}, fmt.Errorf("%w: %d", errNoRevision, n)
}

// reflectionCost is what a reflection cost, for people: its priced calls'
// money, and how many calls had no known price.
func reflectionCost(r evolve.ReflectionRecord) string {
	cost := bot.Dollars(r.Nanos)
	if r.Unpriced > 0 {
		if r.Nanos == 0 {
			return fmt.Sprintf("unpriced (%d calls)", r.Unpriced)
		}
		cost += fmt.Sprintf(" + %d unpriced", r.Unpriced)
	}
	return cost
}
