package webconsole_test

// The console in a real headless Chromium: what a person sees and clicks.
// With PARLEY_TEST_SCREENSHOTS=<dir> the pages are also saved there as
// PNGs (docs/console/ holds the committed ones).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole"
	bt "github.com/parleybot/parley/webconsole/browsertest"
)

func TestBrowser(t *testing.T) {
	c := newConsoleWith(t, func(cfg *webconsole.Config, _ *store.DB) {
		cfg.VetMemory = func(ctx context.Context, content string, existing []string) error {
			return guard.Vet(ctx, nil, content, existing)
		}
	})
	ctx := bt.Tab(t)
	mine := c.conversation(t, "slack:UANA", "what is in /tmp?")
	theirs := c.conversation(t, "slack:UBO", "bo's secret plan")
	c.spend(t)

	// The operator signs in with a one-time link.
	link := c.http.URL + c.link(t, webconsole.Operator)
	bt.Go(t, ctx, link)
	bt.Shoot(t, ctx, "sign-in")
	bt.ClickTo(t, ctx, `button[type=submit]`, "Overview")
	if h := bt.Text(t, ctx, "main h1"); h != "Overview" {
		t.Fatalf("after signing in: %q", h)
	}

	// A conversation with its tool call, arguments and result.
	bt.Go(t, ctx, c.http.URL+"/conversations?q=tmp")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "what is in /tmp?") && !strings.Contains(got, "Searching conversations is off") {
		t.Errorf("searching for tmp: %q", got)
	}
	bt.Shoot(t, ctx, "search")
	bt.Go(t, ctx, c.http.URL+"/conversations")
	bt.Shoot(t, ctx, "conversations")
	bt.ClickTo(t, ctx, `a[href="/conversations/`+mine+`"]`, "Conversation")
	body := bt.Text(t, ctx, ".transcript")
	for _, want := range []string{"what is in /tmp?", "shell", `"command": "ls /tmp"`, "a.txt", "There is a.txt."} {
		if !strings.Contains(body, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, body)
		}
	}
	bt.Shoot(t, ctx, "conversation")

	// Time: a reminder and a schedule, by place, each in its zone and in
	// UTC; the schedule paused from its button.
	c.item(t, remind.KindReminder, "space:slack:T1", "slack:UANA", "water the plants")
	daily := c.item(t, remind.KindSchedule, "person:slack:UBO", "slack:UBO", "summarize the open issues")
	bt.Go(t, ctx, c.http.URL+"/time")
	times := bt.Text(t, ctx, "main")
	for _, want := range []string{"water the plants", "summarize the open issues", "space:slack:T1", "person:slack:UBO", "CET", "UTC"} {
		if !strings.Contains(times, want) {
			t.Errorf("the Time page lacks %q:\n%s", want, times)
		}
	}
	bt.ClickTo(t, ctx, fmt.Sprintf(`form[action="/time/%d/pause"] button`, daily), "Time")
	if got := c.status(t, daily); got != remind.StatusPaused {
		t.Errorf("the schedule is %s after Pause", got)
	}
	bt.Shoot(t, ctx, "time")

	// On a phone: nothing wider than the screen.
	bt.Phone(t, ctx)
	bt.Go(t, ctx, c.http.URL+"/conversations/"+mine)
	if bt.Wider(t, ctx) {
		t.Error("the transcript is wider than a phone's screen")
	}
	bt.Shoot(t, ctx, "phone")
	bt.Go(t, ctx, c.http.URL+"/usage")
	if bt.Wider(t, ctx) {
		t.Error("the usage page is wider than a phone's screen")
	}
	bt.Go(t, ctx, c.http.URL+"/time")
	if bt.Wider(t, ctx) {
		t.Error("the Time page is wider than a phone's screen")
	}
	bt.Desk(t, ctx)

	// Usage and cost: the chart drawn, its bars tall as their days are
	// dear, under the CSP (no inline style); another period by its link.
	bt.Go(t, ctx, c.http.URL+"/usage")
	if n := bt.Value[int](t, ctx, `document.querySelectorAll('svg.chart rect.bar').length`); n != 30 {
		t.Errorf("the usage chart has %d bars, want 30", n)
	}
	if h := bt.Value[float64](t, ctx, `document.querySelector('svg.chart rect.bar:last-of-type').getBoundingClientRect().height`); h <= 0 {
		t.Errorf("today's bar is %v high on screen", h)
	}
	bt.Shoot(t, ctx, "usage")
	bt.ClickTo(t, ctx, `a[href="/usage?days=7"]`, "Usage and cost")
	if n := bt.Value[int](t, ctx, `document.querySelectorAll('svg.chart rect.bar').length`); n != 7 {
		t.Errorf("7 days: %d bars", n)
	}
	// People: whom Parley knows; one of them with all it keeps; their
	// memory erased for a reason.
	c.person(t, "slack:UCY", "Cy")
	bt.Go(t, ctx, c.http.URL+"/people")
	bt.Shoot(t, ctx, "people")
	bt.ClickTo(t, ctx, `a[href="/people/slack:UCY"]`, "Cy (slack:UCY)")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "Cy deploys on Tuesdays.") || !strings.Contains(got, "UCY-notes.md") {
		t.Errorf("cy's page: %q", got)
	}
	bt.Shoot(t, ctx, "people-person")
	bt.Eval(t, ctx, `document.querySelector('textarea[name=reason]').value = 'Cy asked by email.'`)
	bt.ClickTo(t, ctx, `form.erase button.danger`, "Cy (slack:UCY)")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "Erased 1 memory entry") || strings.Contains(got, "Cy deploys on Tuesdays.") {
		t.Errorf("after the erase: %q", got)
	}
	for _, page := range []string{"audit", "sessions"} {
		bt.Go(t, ctx, c.http.URL+"/"+page)
		bt.Shoot(t, ctx, page)
	}

	// A form whose CSRF token is gone is refused, and changes nothing.
	bt.Eval(t, ctx, `document.querySelectorAll('input[name=csrf]').forEach(e => e.remove())`)
	bt.ClickTo(t, ctx, `button.danger`, "Forbidden")
	out := bt.Text(t, ctx, "main")
	if !strings.Contains(out, "did not come from this console") {
		t.Fatalf("a form without its token: %q", out)
	}
	if n, _ := c.db.Sessions(t.Context(), c.clock.now()); len(n) != 1 {
		t.Fatalf("sessions after the refused form: %d, want 1", len(n))
	}

	// A person sees what Parley keeps about them, and nothing of anyone
	// else's, whatever URL they type.
	bt.ForgetCookies(t, ctx)
	if err := c.db.EditMemory(t.Context(), "slack:UANA", agent.Facts, func([]string) ([]string, error) {
		return []string{"Ana deploys on Tuesdays.", "Ana works from Lisbon."}, nil
	}); err != nil {
		t.Fatal(err)
	}
	bt.Go(t, ctx, c.http.URL+c.link(t, "slack:UANA"))
	bt.ClickTo(t, ctx, `button[type=submit]`, "What Parley keeps about you")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "What Parley keeps about you") || !strings.Contains(got, "Ana deploys on Tuesdays.") {
		t.Fatalf("ana's page: %q", got)
	}
	// She edits an entry: opened by keyboard-reachable summary, saved
	// through the guard.
	bt.Eval(t, ctx, `document.querySelector('summary[aria-label="Edit: Ana works from Lisbon."]').click()`)
	bt.Shoot(t, ctx, "person")
	bt.Eval(t, ctx, `document.querySelector('details.edit[open] input[name=text]').value = 'Ana works from Porto.'`)
	bt.ClickTo(t, ctx, `details.edit[open] button[type=submit]`, "What Parley keeps about you")
	if m, err := c.db.Memory(t.Context(), "slack:UANA"); err != nil || !slices.Equal(m.Facts, []string{"Ana deploys on Tuesdays.", "Ana works from Porto."}) {
		t.Fatalf("after the edit: %v, %v", m.Facts, err)
	}
	// She forgets it; Bo's memory, which reads the same, stays.
	if err := c.db.EditMemory(t.Context(), "slack:UBO", agent.Facts, func([]string) ([]string, error) { return []string{"Ana deploys on Tuesdays."}, nil }); err != nil {
		t.Fatal(err)
	}
	bt.ClickTo(t, ctx, `button[aria-label="Forget: Ana deploys on Tuesdays."]`, "What Parley keeps about you")
	if got := bt.Text(t, ctx, "main"); strings.Contains(got, "Ana deploys on Tuesdays.") {
		t.Fatalf("after forgetting: %q", got)
	}
	for who, want := range map[string]int{"slack:UANA": 1, "slack:UBO": 1} {
		if m, err := c.db.Memory(t.Context(), who); err != nil || len(m.Facts) != want {
			t.Fatalf("%s's facts: %v %v, want %d", who, m.Facts, err, want)
		}
	}
	for path, want := range map[string]string{
		"/audit": "This page is for admins.", "/sessions": "This page is for admins.", "/usage": "This page is for admins.",
		"/conversations/" + theirs: "There is no conversation of yours with that id.",
	} {
		bt.Go(t, ctx, c.http.URL+path)
		if got := bt.Text(t, ctx, "main"); !strings.Contains(got, want) || strings.Contains(got, "secret plan") {
			t.Errorf("ana at %s: %q", path, got)
		}
	}
	// Her reminders, not Bo's schedule.
	bt.Go(t, ctx, c.http.URL+"/time")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "water the plants") || strings.Contains(got, "summarize") {
		t.Errorf("ana's reminders: %q", got)
	}
	// Her link again: used.
	bt.Go(t, ctx, link)
	bt.ClickTo(t, ctx, `button[type=submit]`, "Forbidden")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "used already") {
		t.Errorf("a used link: %q", got)
	}
}

// TestBrowserKB: the Knowledge page with documents in two scopes, searched
// from its box, and a document removed from its button.
func TestBrowserKB(t *testing.T) {
	c, base := newKBConsole(t)
	ctx := bt.Tab(t)
	doc(t, base, "operator", "plants.md", plants)
	doc(t, base, space, "handbook.md", "# Handbook\n\nHolidays are booked in the tracker, two weeks ahead.\n")
	bt.Go(t, ctx, c.http.URL+c.link(t, webconsole.Operator))
	bt.ClickTo(t, ctx, `button[type=submit]`, "Overview")
	bt.ClickTo(t, ctx, `a[href="/kb"]`, "Knowledge base")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "plants.md") || !strings.Contains(got, "handbook.md") {
		t.Fatalf("the Knowledge page: %q", got)
	}
	bt.Eval(t, ctx, `document.querySelector('input[name=q]').value = 'holidays'`)
	bt.ClickTo(t, ctx, `form[role=search] button`, "Knowledge base")
	hits := bt.Text(t, ctx, `section[aria-label="Passages found"]`)
	for _, want := range []string{"Holidays are booked in the tracker", "Handbook", "handbook.md, lines 1–3"} {
		if !strings.Contains(hits, want) {
			t.Errorf("the passages found lack %q:\n%s", want, hits)
		}
	}
	bt.Shoot(t, ctx, "kb")
	bt.Phone(t, ctx)
	if bt.Wider(t, ctx) {
		t.Error("the Knowledge page is wider than a phone's screen")
	}
	bt.Desk(t, ctx)
	bt.ClickTo(t, ctx, `section[aria-label="operator"] button.danger`, "Knowledge base")
	if got := bt.Text(t, ctx, "main"); !strings.Contains(got, "Removed.") || strings.Contains(got, "plants.md") {
		t.Errorf("after Remove: %q", got)
	}
}

// TestBrowserLearning: the Learning page with a scope's skill, its rates,
// its notes, its changes with their diffs and the last reflections; a
// change undone from its button.
func TestBrowserLearning(t *testing.T) {
	c, l := learningConsole(t)
	ctx := bt.Tab(t)
	bt.Go(t, ctx, c.http.URL+c.link(t, webconsole.Operator))
	bt.ClickTo(t, ctx, `button[type=submit]`, "Overview")
	bt.ClickTo(t, ctx, `a[href="/learning"]`, "Learning")
	page := bt.Text(t, ctx, "main")
	for _, want := range []string{"Deploy", "When asked to deploy",
		"patched skill deploy", "+ 2. Deploy to prod <after the smoke tests>.", "$0.0812 + 1 unpriced", "reflection model call: 503"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Learning page lacks %q:\n%s", want, page)
		}
	}
	if got := bt.Value[string](t, ctx, `document.querySelector('form.note textarea[name=text]:is(form:has(input[value=team]) *)').value`); got != "This team deploys from the release branch." {
		t.Errorf("the team note's form holds %q", got)
	}
	bt.Shoot(t, ctx, "learning")
	bt.Phone(t, ctx)
	if bt.Wider(t, ctx) {
		t.Error("the Learning page is wider than a phone's screen")
	}
	bt.Desk(t, ctx)
	// The newest change, the patch, undone from its button.
	bt.ClickTo(t, ctx, `ol.history li:first-child form button`, "Learning")
	if got := l.file(t, "deploy"); strings.Contains(got, "smoke tests") || !strings.Contains(got, "2. Deploy to prod.") {
		t.Errorf("after Undo the skill is:\n%s", got)
	}
	if got := bt.Text(t, ctx, "main"); strings.Contains(got, "patched skill deploy") {
		t.Errorf("the undone change is still listed:\n%s", got)
	}
}
