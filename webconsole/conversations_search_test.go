package webconsole_test

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parleybot/parley/store"
)

// hitLink is a search hit's link to its message in its transcript.
var hitLink = regexp.MustCompile(`href="/conversations/([0-9a-z]+)#m([0-9]+)"`)

// needSearch skips a test of the search box in a build without FTS5,
// where the page says search is off (TestConversationsSearchOff).
func needSearch(t *testing.T, c *console) {
	t.Helper()
	if _, err := c.db.SearchMessages(t.Context(), store.MessageSearch{Query: "x"}); errors.Is(err, store.ErrNoMessageIndex) {
		t.Skip("this build cannot search conversations (no FTS5)")
	}
}

// TestConversationsSearch: the search box finds the words in the messages
// an admin may see (all) and a person may see (their own, whatever they
// ask), each hit with its conversation, author, time and snippet — the
// words marked, everything else escaped — linked to the message.
func TestConversationsSearch(t *testing.T) {
	c := newConsole(t)
	needSearch(t, c)
	ana := c.conversation(t, "slack:UANA", "where is the <b>invoice</b> for 申领设备")
	ben := c.conversation(t, "slack:UBEN", "Ben's invoice is private")
	signedIn := map[string]*http.Client{}
	for _, tc := range []struct {
		name, who, q string
		want         []string // the conversations of the hits
		has, hasNot  []string
	}{
		{"an admin finds everyone's", admin, "invoice", []string{ana, ben},
			[]string{`<mark>invoice</mark>`, `&lt;b&gt;`, "Ben&#39;s", "Person", "slack C1"}, []string{"<b>invoice"}},
		{"CJK words", admin, "设备", []string{ana}, []string{"<mark>设备</mark>"}, nil},
		{"a person finds their own", "slack:UANA", "invoice", []string{ana}, []string{`<mark>invoice</mark>`}, []string{"Ben", "private"}},
		{"never another's, even by its words", "slack:UANA", "private", nil, []string{"No message holds"}, []string{"Ben"}},
		{"the other person theirs", "slack:UBEN", "invoice", []string{ben}, nil, []string{"申领"}},
		{"someone with no conversations", "slack:UNEW", "invoice", nil, []string{"No message holds"}, nil},
		{"query syntax is words", admin, `"NEAR(invoice* OR`, []string{ana, ben}, nil, nil},
		{"Parley's answers are found", admin, "There is", nil, []string{"Parley"}, nil},
		// The list's filters narrow the search: a person, a place.
		{"an admin's search of one person's", admin, "invoice&person=slack:UBEN", []string{ben}, nil, []string{"申领"}},
		{"an admin's search of a place", admin, "invoice&platform=slack&chat=C1", []string{ana, ben}, nil, nil},
		{"an admin's search of another place", admin, "invoice&platform=telegram", nil, []string{"No message holds"}, nil},
		{"a person naming another in the filter", "slack:UANA", "invoice&person=slack:UBEN", []string{ana}, nil, []string{"Ben"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := signedIn[tc.who]
			if b == nil { // once each: sign-ins are rate-limited
				b = c.signIn(t, tc.who)
				signedIn[tc.who] = b
			}
			path := "/conversations?q=" + strings.ReplaceAll(tc.q, " ", "+")
			code, body := c.get(t, b, path)
			if code != http.StatusOK {
				t.Fatalf("GET %s: %d", path, code)
			}
			var got []string
			for _, m := range hitLink.FindAllStringSubmatch(body, -1) {
				got = append(got, m[1])
			}
			if tc.want != nil && strings.Join(sorted(got), " ") != strings.Join(sorted(tc.want), " ") {
				t.Errorf("hits in %v, want %v", got, tc.want)
			}
			for _, s := range tc.has {
				if !strings.Contains(body, s) {
					t.Errorf("the page lacks %q", s)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(body, s) {
					t.Errorf("the page shows %q", s)
				}
			}
		})
	}
}

// TestConversationsSearchLinksToTheMessage: a hit's link names the
// message's anchor in its transcript.
func TestConversationsSearchLinksToTheMessage(t *testing.T) {
	c := newConsole(t)
	needSearch(t, c)
	sid := c.conversation(t, "slack:UANA", "first question")
	b := c.signIn(t, admin)
	_, body := c.get(t, b, "/conversations?q=a.txt") // the answer, the conversation's fourth message
	m := hitLink.FindStringSubmatch(body)
	if m == nil || m[1] != sid || m[2] != "4" {
		t.Fatalf("hit link %v, want /conversations/%s#m4", m, sid)
	}
	if _, body := c.get(t, b, "/conversations/"+sid); !strings.Contains(body, `id="m4"`) {
		t.Error("the transcript has no anchor m4")
	}
}

// TestConversationsSearchPages: hits come 50 a page, the query kept in
// the pages' links.
func TestConversationsSearchPages(t *testing.T) {
	c := newConsole(t)
	needSearch(t, c)
	for i := range 55 {
		c.conversation(t, "slack:UANA", fmt.Sprintf("question %d", i))
	}
	b := c.signIn(t, admin)
	for _, tc := range []struct {
		path       string
		hits       int
		prev, more bool
	}{
		{"/conversations?q=question", 50, false, true},
		{"/conversations?q=question&page=2", 5, true, false},
		{"/conversations?q=question&page=3", 0, true, false},
	} {
		_, body := c.get(t, b, tc.path)
		hits := len(hitLink.FindAllString(body, -1))
		prev, more := strings.Contains(body, ">Better matches<"), strings.Contains(body, ">More matches<")
		if hits != tc.hits || prev != tc.prev || more != tc.more {
			t.Errorf("GET %s: %d hits, previous %v, more %v; want %d, %v, %v", tc.path, hits, prev, more, tc.hits, tc.prev, tc.more)
		}
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// TestConversationsSearchOff: a build without FTS5 shows the list as ever
// and says that search is off.
func TestConversationsSearchOff(t *testing.T) {
	c := newConsole(t)
	if _, err := c.db.SearchMessages(t.Context(), store.MessageSearch{Query: "x"}); err == nil {
		t.Skip("this build searches conversations")
	}
	c.conversation(t, "slack:UANA", "a question")
	_, body := c.get(t, c.signIn(t, admin), "/conversations?q=question")
	if !strings.Contains(body, "Searching conversations is off") {
		t.Error("the page does not say search is off")
	}
}
