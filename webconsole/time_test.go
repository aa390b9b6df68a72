package webconsole_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/bot"
)

const (
	ana = "slack:UANA"
	bob = "slack:UBOB"
)

// item stores an active one-off reminder, or a daily schedule, of owner
// in scope, next due a day after the console's clock, and returns its id.
func (c *console) item(t *testing.T, kind remind.Kind, scope, owner, text string) int64 {
	t.Helper()
	it := remind.Item{Kind: kind, Scope: scope, Owner: owner, OwnerName: strings.TrimPrefix(owner, "slack:U"),
		Place: remind.Place{Platform: "slack", Space: "T1", Chat: "C1"}, Text: text, Zone: "Europe/Berlin",
		Next: c.clock.now().Add(24 * time.Hour)}
	if kind == remind.KindSchedule {
		it.Spec = "0 13 * * *" // 13:00 in Berlin: 12:00 UTC in December
	}
	id, err := c.db.AddItem(t.Context(), it, 0)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// status is item id's status in the store.
func (c *console) status(t *testing.T, id int64) remind.Status {
	t.Helper()
	it, err := c.db.Item(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return it.Status
}

func TestTimeAdminSeesAll(t *testing.T) {
	c := newConsole(t)
	c.item(t, remind.KindReminder, "space:slack:T1", ana, "water the plants")
	c.item(t, remind.KindSchedule, "space:slack:T2", bob, "summarize the open issues")
	c.item(t, remind.KindReminder, "person:slack:UBOB", bob, "call the dentist")
	root := c.signIn(t, admin)
	code, body := c.get(t, root, "/time")
	if code != http.StatusOK {
		t.Fatalf("GET /time: %d\n%s", code, body)
	}
	for _, want := range []string{
		"<h1>Time</h1>", "water the plants", "summarize the open issues", "call the dentist",
		"space:slack:T1", "space:slack:T2", "person:slack:UBOB", ana, bob,
		// The next time in the item's zone and in UTC; the recurrence.
		"Mon 7 Dec 2026 13:00 CET", "2026-12-07 12:00 UTC", "0 13 * * * (Europe/Berlin)", "once",
		`action="/time/1/pause"`, `action="/time/1/cancel"`, `aria-current="page">Time</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the admin's page lacks %q", want)
		}
	}
	// Filtered by place and by kind.
	_, body = c.get(t, root, "/time?scope=space:slack:T2")
	if !strings.Contains(body, "summarize the open issues") || strings.Contains(body, "water the plants") {
		t.Errorf("filtered by place:\n%s", body)
	}
	_, body = c.get(t, root, "/time?kind=reminder")
	if strings.Contains(body, "summarize the open issues") || !strings.Contains(body, "call the dentist") {
		t.Errorf("filtered by kind:\n%s", body)
	}
}

func TestTimePersonSeesOwnOnly(t *testing.T) {
	c := newConsole(t)
	c.item(t, remind.KindReminder, "space:slack:T1", ana, "water the plants")
	c.item(t, remind.KindSchedule, "space:slack:T1", bob, "summarize the open issues")
	b := c.signIn(t, ana)
	// Asking for someone else's items in the URL changes nothing.
	for _, path := range []string{"/time", "/time?owner=" + url.QueryEscape(bob)} {
		code, body := c.get(t, b, path)
		if code != http.StatusOK || !strings.Contains(body, "water the plants") || strings.Contains(body, "summarize") {
			t.Errorf("GET %s as Ana: %d\n%s", path, code, body)
		}
		if !strings.Contains(body, `aria-current="page">Your reminders</a>`) {
			t.Errorf("GET %s: the menu lacks Your reminders", path)
		}
	}
	_, body := c.get(t, c.signIn(t, "slack:UNOBODY"), "/time")
	if !strings.Contains(body, "No reminders or schedules of yours.") {
		t.Errorf("someone with none:\n%s", body)
	}
}

func TestTimePersonCannotChangeOthers(t *testing.T) {
	c := newConsole(t)
	bobs := c.item(t, remind.KindSchedule, "space:slack:T1", bob, "summarize the open issues")
	b := c.signIn(t, ana)
	form := url.Values{"csrf": {c.csrf(t, b, "/time")}}
	// Someone else's item, one that does not exist and no id at all are
	// refused alike.
	for _, id := range []string{strconv.FormatInt(bobs, 10), "999", "x"} {
		for _, how := range []string{"pause", "resume", "cancel"} {
			path := "/time/" + id + "/" + how
			if code, _ := c.post(t, b, path, form); code != http.StatusForbidden {
				t.Errorf("POST %s as Ana: %d, want 403", path, code)
			}
		}
	}
	if got := c.status(t, bobs); got != remind.StatusActive {
		t.Errorf("Bob's schedule is %s after Ana's tries", got)
	}
	if n := len(c.audited(t)); n != 0 {
		t.Errorf("%d audit entries for refused changes", n)
	}
	// An admin is told what does not exist.
	root := c.signIn(t, admin)
	if code, _ := c.post(t, root, "/time/999/cancel", url.Values{"csrf": {c.csrf(t, root, "/time")}}); code != http.StatusNotFound {
		t.Errorf("an admin cancelling no item: %d, want 404", code)
	}
}

func TestTimeChanges(t *testing.T) {
	c := newConsole(t)
	anas := c.item(t, remind.KindReminder, "space:slack:T1", ana, "water the plants")
	bobs := c.item(t, remind.KindSchedule, "space:slack:T1", bob, "summarize the open issues")
	b, root := c.signIn(t, ana), c.signIn(t, admin)
	as := func(who *http.Client, path string, want remind.Status, id int64) {
		t.Helper()
		code, body := c.post(t, who, path, url.Values{"csrf": {c.csrf(t, who, "/time")}})
		if code != http.StatusSeeOther {
			t.Fatalf("POST %s: %d\n%s", path, code, body)
		}
		if got := c.status(t, id); got != want {
			t.Errorf("after POST %s: %s, want %s", path, got, want)
		}
	}
	// A person changes their own; an admin anyone's.
	as(b, fmt.Sprintf("/time/%d/pause", anas), remind.StatusPaused, anas)
	as(b, fmt.Sprintf("/time/%d/pause", anas), remind.StatusPaused, anas) // no change, not audited
	as(b, fmt.Sprintf("/time/%d/resume", anas), remind.StatusActive, anas)
	as(root, fmt.Sprintf("/time/%d/pause", bobs), remind.StatusPaused, bobs)
	_, body := c.get(t, root, "/time")
	if !strings.Contains(body, fmt.Sprintf(`action="/time/%d/resume"`, bobs)) {
		t.Errorf("a paused schedule has no Resume button")
	}
	as(root, fmt.Sprintf("/time/%d/resume", bobs), remind.StatusActive, bobs)
	as(root, fmt.Sprintf("/time/%d/cancel", bobs), remind.StatusCancelled, bobs)
	as(b, fmt.Sprintf("/time/%d/cancel", anas), remind.StatusCancelled, anas)
	// Cancelled is the end.
	code, _ := c.post(t, root, fmt.Sprintf("/time/%d/resume", bobs), url.Values{"csrf": {c.csrf(t, root, "/time")}})
	if code != http.StatusConflict {
		t.Errorf("resuming a cancelled schedule: %d, want 409", code)
	}
	if _, body := c.get(t, root, "/time"); !strings.Contains(body, "No reminders or schedules.") {
		t.Errorf("cancelled items are still listed:\n%s", body)
	}

	a, s := strconv.FormatInt(anas, 10), strconv.FormatInt(bobs, 10)
	want := []bot.AuditEntry{
		{Actor: admin, Action: "reminder.cancel", Target: s, Detail: "schedule", Via: "console"},
		{Actor: admin, Action: "reminder.resume", Target: s, Detail: "schedule", Via: "console"},
		{Actor: admin, Action: "reminder.pause", Target: s, Detail: "schedule", Via: "console"},
		{Actor: ana, Action: "reminder.cancel", Target: a, Detail: "reminder", Via: "console"},
		{Actor: ana, Action: "reminder.resume", Target: a, Detail: "reminder", Via: "console"},
		{Actor: ana, Action: "reminder.pause", Target: a, Detail: "reminder", Via: "console"},
	}
	got := c.audited(t)
	byActor := func(e bot.AuditEntry) bot.AuditEntry {
		return bot.AuditEntry{Actor: e.Actor, Action: e.Action, Target: e.Target, Detail: e.Detail, Via: e.Via}
	}
	var trimmed []bot.AuditEntry
	for _, actor := range []string{admin, ana} {
		for _, e := range got {
			if e.Actor == actor {
				trimmed = append(trimmed, byActor(e))
			}
		}
	}
	if diff := cmp.Diff(want, trimmed); diff != "" {
		t.Errorf("the audit log (-want +got):\n%s", diff)
	}
}

func TestTimeNeedsCSRF(t *testing.T) {
	c := newConsole(t)
	id := c.item(t, remind.KindReminder, "space:slack:T1", ana, "water the plants")
	b := c.signIn(t, ana)
	for _, form := range []url.Values{nil, {"csrf": {"forged"}}} {
		if code, _ := c.post(t, b, fmt.Sprintf("/time/%d/cancel", id), form); code != http.StatusForbidden {
			t.Errorf("cancelling with csrf %q: %d, want 403", form.Get("csrf"), code)
		}
	}
	if got := c.status(t, id); got != remind.StatusActive {
		t.Errorf("the reminder is %s after forms without the token", got)
	}
}

func TestTimePages(t *testing.T) {
	c := newConsole(t)
	for i := range 51 {
		c.item(t, remind.KindReminder, "space:slack:T1", ana, fmt.Sprintf("reminder %02d", i))
	}
	root := c.signIn(t, admin)
	_, body := c.get(t, root, "/time?kind=reminder")
	if n := strings.Count(body, "/cancel"); n != 50 {
		t.Errorf("the first page has %d items, want 50", n)
	}
	if !strings.Contains(body, `href="/time?kind=reminder&amp;page=2">Later</a>`) {
		t.Errorf("no link to the next page that keeps the filter:\n%s", body)
	}
	_, body = c.get(t, root, "/time?kind=reminder&page=2")
	if n := strings.Count(body, "/cancel"); n != 1 || !strings.Contains(body, ">Earlier</a>") || strings.Contains(body, ">Later</a>") {
		t.Errorf("the second page has %d items:\n%s", n, body)
	}
}

// audited is the audit log's reminder entries, newest first.
func (c *console) audited(t *testing.T) []bot.AuditEntry {
	t.Helper()
	got, err := c.db.AuditEntries(t.Context(), bot.AuditFilter{Action: "reminder."}, 50)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
