package webconsole_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/webconsole"
)

// person records key as a person Parley knows, with a fact, a reminder, a
// private document and a conversation.
func (c *console) person(t *testing.T, key, name string) (conversation string) {
	t.Helper()
	ctx := t.Context()
	platform, id, _ := strings.Cut(key, ":")
	if err := c.db.UpsertUser(ctx, key, platform, name); err != nil {
		t.Fatal(err)
	}
	if err := c.db.EditMemory(ctx, key, agent.Facts, func([]string) ([]string, error) { return []string{name + " deploys on Tuesdays."}, nil }); err != nil {
		t.Fatal(err)
	}
	it := remind.Item{Kind: remind.KindReminder, Scope: "space:slack:T1", Owner: key, Targets: []string{key},
		Place: remind.Place{Platform: platform, Space: "T1", Chat: "C1"}, Text: name + "'s stand-up", Zone: "UTC", Next: c.clock.now().Add(time.Hour)}
	if _, err := c.db.AddItem(ctx, it, 0); err != nil {
		t.Fatal(err)
	}
	doc := kb.Document{Scope: "person:" + key, Source: id + "-notes.md", Kind: "markdown", AddedBy: key}
	if _, err := kb.New(kb.Config{Store: c.db}).Ingest(ctx, doc, "# "+name+"'s notes\nThe runbook lives in the wiki.\n"); err != nil {
		t.Fatal(err)
	}
	return c.conversation(t, key, "what is in /tmp, asks "+name+"?")
}

func TestConsolePeopleList(t *testing.T) {
	c := newConsole(t)
	for i := range 52 {
		if err := c.db.UpsertUser(t.Context(), fmt.Sprintf("slack:U%03d", i), "slack", fmt.Sprintf("Person %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	c.person(t, "telegram:101", "Ana")
	b := c.signIn(t, admin)

	code, body := c.get(t, b, "/people")
	if code != http.StatusOK || !strings.Contains(body, `href="/people/slack:U000"`) || !strings.Contains(body, "Person 49") ||
		strings.Contains(body, "Person 50") || !strings.Contains(body, `href="/people?q=&amp;after=slack%3aU049"`) {
		t.Fatalf("the first page: %d\n%s", code, body)
	}
	// The next page: the rest, and no further page.
	_, body = c.get(t, b, "/people?after=slack:U049")
	if !strings.Contains(body, "Person 50") || !strings.Contains(body, "Person 51") || !strings.Contains(body, "telegram:101") ||
		strings.Contains(body, "Person 49<") || strings.Contains(body, "after=") {
		t.Fatalf("the second page:\n%s", body)
	}
	// Search by a part of a name, any case, and by a key's start.
	for q, want := range map[string][]string{"ana": {"telegram:101"}, "telegram:": {"telegram:101"}, "slack:U05": {"slack:U050", "slack:U051"}} {
		_, body := c.get(t, b, "/people?q="+url.QueryEscape(q))
		for _, key := range want {
			if !strings.Contains(body, `href="/people/`+key+`"`) {
				t.Errorf("?q=%s lacks %s", q, key)
			}
		}
		if n := strings.Count(body, `<td><a href="/people/`); n != len(want) {
			t.Errorf("?q=%s: %d people, want %d", q, n, len(want))
		}
	}
	if _, body := c.get(t, b, "/people?q=nobody"); !strings.Contains(body, "nor does anyone") {
		t.Errorf("a search that finds no one:\n%s", body)
	}
	// The admin menu links the page.
	if _, body := c.get(t, b, "/"); !strings.Contains(body, `<a href="/people" >People</a>`) {
		t.Errorf("the menu lacks People:\n%s", body)
	}
}

func TestConsolePersonPage(t *testing.T) {
	c := newConsole(t)
	conv := c.person(t, "slack:UANA", "Ana")
	c.person(t, "slack:UBO", "Bo")
	b := c.signIn(t, admin)
	code, body := c.get(t, b, "/people/slack:UANA")
	if code != http.StatusOK {
		t.Fatalf("ana's page: %d\n%s", code, body)
	}
	for _, want := range []string{"Ana deploys on Tuesdays.", "Ana&#39;s stand-up", "UANA-notes.md", `href="/conversations/` + conv + `"`, `name="reason"`} {
		if !strings.Contains(body, want) {
			t.Errorf("ana's page lacks %q", want)
		}
	}
	if strings.Contains(body, "UBO") || strings.Contains(body, "Bo deploys") {
		t.Errorf("ana's page shows Bo's:\n%s", body)
	}
	// Someone Parley never met: a 404 page.
	if code, body := c.get(t, b, "/people/slack:UNOBODY"); code != http.StatusNotFound || !strings.Contains(body, "knows no one") {
		t.Errorf("an unknown person: %d\n%s", code, body)
	}
}

func TestConsolePeopleAdminsOnly(t *testing.T) {
	c := newConsole(t)
	c.person(t, "slack:UANA", "Ana")
	c.person(t, "slack:UBO", "Bo")
	ana := c.signIn(t, "slack:UANA")
	for _, path := range []string{"/people", "/people/slack:UBO", "/people/slack:UANA"} {
		if code, body := c.get(t, ana, path); code != http.StatusForbidden || strings.Contains(body, "Bo deploys") {
			t.Errorf("ana at %s: %d", path, code)
		}
	}
	token := c.csrf(t, ana, "/")
	if code, _ := c.post(t, ana, "/people/slack:UBO/erase", url.Values{"csrf": {token}, "reason": {"because I can"}}); code != http.StatusForbidden {
		t.Errorf("ana erasing bo: %d", code)
	}
	if m, _ := c.db.Memory(t.Context(), "slack:UBO"); len(m.Facts) != 1 {
		t.Errorf("bo's memory after ana's try: %+v", m)
	}
	if _, body := c.get(t, ana, "/"); strings.Contains(body, `href="/people"`) {
		t.Error("a person's menu links People")
	}
}

func TestConsoleEraseMemory(t *testing.T) {
	for _, who := range []string{admin, webconsole.Operator} {
		t.Run(who, func(t *testing.T) {
			c := newConsole(t)
			c.person(t, "slack:UANA", "Ana")
			c.person(t, "slack:UBO", "Bo")
			b := c.signIn(t, who)
			token := c.csrf(t, b, "/people/slack:UANA")
			kept := func(want int) {
				t.Helper()
				if m, err := c.db.Memory(t.Context(), "slack:UANA"); err != nil || len(m.Facts) != want {
					t.Fatalf("ana's facts: %+v %v, want %d", m.Facts, err, want)
				}
			}
			// Without the CSRF token, or without a reason: refused, nothing
			// erased, nothing logged.
			for _, tc := range []struct {
				form url.Values
				code int
			}{
				{url.Values{"reason": {"She asked by email."}}, http.StatusForbidden},
				{url.Values{"csrf": {"forged"}, "reason": {"She asked by email."}}, http.StatusForbidden},
				{url.Values{"csrf": {token}}, http.StatusBadRequest},
				{url.Values{"csrf": {token}, "reason": {"  "}}, http.StatusBadRequest},
				{url.Values{"csrf": {token}, "reason": {"ok"}}, http.StatusBadRequest},
				{url.Values{"csrf": {token}, "reason": {strings.Repeat("x", 501)}}, http.StatusBadRequest},
			} {
				if code, _ := c.post(t, b, "/people/slack:UANA/erase", tc.form); code != tc.code {
					t.Errorf("erase with %v: %d, want %d", tc.form, code, tc.code)
				}
			}
			kept(1)
			if code, _ := c.post(t, b, "/people/slack:UNOBODY/erase", url.Values{"csrf": {token}, "reason": {"She asked."}}); code != http.StatusNotFound {
				t.Errorf("erasing someone unknown: %d", code)
			}
			if log, _ := c.db.AuditEntries(t.Context(), botFilter("person.erase"), 10); len(log) != 0 {
				t.Fatalf("refused erases logged: %+v", log)
			}

			resp, err := b.PostForm(c.http.URL+"/people/slack:UANA/erase", url.Values{"csrf": {token}, "reason": {"She asked by email."}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/people/slack:UANA?erased=1" {
				t.Fatalf("erase: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
			}
			kept(0)
			if m, _ := c.db.Memory(t.Context(), "slack:UBO"); len(m.Facts) != 1 {
				t.Errorf("bo's memory went too: %+v", m)
			}
			// Her reminders stay: erasing is of memory.
			if items, _ := c.db.ItemsOf(t.Context(), "slack:UANA"); len(items) != 1 {
				t.Errorf("ana's reminders after the erase: %d", len(items))
			}
			if _, body := c.get(t, b, "/people/slack:UANA?erased=1"); !strings.Contains(body, "Erased 1 memory entry") {
				t.Errorf("the page after the erase:\n%s", body)
			}
			log, err := c.db.AuditEntries(t.Context(), botFilter("person.erase"), 10)
			if err != nil || len(log) != 1 {
				t.Fatalf("audit: %+v %v", log, err)
			}
			if e := log[0]; e.Actor != who || e.Target != "slack:UANA" || e.Detail != "She asked by email." || e.Via != "console" || !e.At.Equal(c.clock.now()) {
				t.Errorf("the audit entry: %+v", e)
			}
		})
	}
}
