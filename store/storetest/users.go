package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/store"
)

var userTests = []test{
	{"List", testUsersList},
	{"Search", testUsersSearch},
}

// people are the users the tests record, in key order.
var people = []struct{ key, platform, name string }{
	{"slack:U1", "slack", "Ann"},
	{"slack:U2", "slack", "Bob_x"},
	{"telegram:10", "telegram", "Anna Maria"},
	{"telegram:9", "telegram", ""},
}

// withPeople is a fresh database that knows people, its clock at epoch.
func withPeople(t *testing.T, s suite) Store {
	t.Helper()
	db, _ := s.open(t, Options{Now: func() time.Time { return epoch }})
	for _, p := range people {
		if err := db.UpsertUser(t.Context(), p.key, p.platform, p.name); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func keys(users []store.User) []string {
	var out []string
	for _, u := range users {
		out = append(out, u.Key)
	}
	return out
}

// testUsersList: everyone by key (byte order: "telegram:10" before
// "telegram:9"), a page at a time.
func testUsersList(t *testing.T, s suite) {
	db := withPeople(t, s)
	ctx := t.Context()
	all, err := db.Users(ctx, store.UserFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.User{
		{Key: "slack:U1", Platform: "slack", Name: "Ann", Created: epoch, Updated: epoch},
		{Key: "slack:U2", Platform: "slack", Name: "Bob_x", Created: epoch, Updated: epoch},
		{Key: "telegram:10", Platform: "telegram", Name: "Anna Maria", Created: epoch, Updated: epoch},
		{Key: "telegram:9", Platform: "telegram", Created: epoch, Updated: epoch},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Fatalf("everyone (-want +got):\n%s", diff)
	}
	first, err := db.Users(ctx, store.UserFilter{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	next, err := db.Users(ctx, store.UserFilter{After: first[len(first)-1].Key}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"slack:U1", "slack:U2", "telegram:10", "telegram:9"}, append(keys(first), keys(next)...)); diff != "" {
		t.Errorf("two pages of two (-want +got):\n%s", diff)
	}
	if rest, err := db.Users(ctx, store.UserFilter{After: "telegram:9"}, 2); err != nil || len(rest) != 0 {
		t.Errorf("after the last: %v, %v", rest, err)
	}
}

// testUsersSearch: a key's prefix as written, a name's part in any ASCII
// case, the LIKE wildcards as plain characters; one person by their key.
func testUsersSearch(t *testing.T, s suite) {
	db := withPeople(t, s)
	for _, tc := range []struct {
		search string
		want   []string
	}{
		{"ann", []string{"slack:U1", "telegram:10"}},
		{"MARIA", []string{"telegram:10"}},
		{"telegram:1", []string{"telegram:10"}},
		{"slack:", []string{"slack:U1", "slack:U2"}},
		{"SLACK:", nil}, // keys are not folded
		{"_", []string{"slack:U2"}},
		{"%", nil},
		{"b_x", []string{"slack:U2"}},
		{"nobody", nil},
	} {
		got, err := db.Users(t.Context(), store.UserFilter{Search: tc.search}, 10)
		if err != nil {
			t.Fatalf("%q: %v", tc.search, err)
		}
		if diff := cmp.Diff(tc.want, keys(got)); diff != "" {
			t.Errorf("search %q (-want +got):\n%s", tc.search, diff)
		}
	}
	// One person by key, exactly: not a prefix, not a name.
	for key, want := range map[string][]string{"telegram:9": {"telegram:9"}, "telegram:1": nil, "Ann": nil} {
		got, err := db.Users(t.Context(), store.UserFilter{Key: key}, 2)
		if err != nil || !cmp.Equal(keys(got), want) {
			t.Errorf("key %q: %v, %v; want %v", key, keys(got), err, want)
		}
	}
	// Searching and paging together: the page after slack:U1's of "ann".
	got, err := db.Users(t.Context(), store.UserFilter{Search: "ann", After: "slack:U1"}, 10)
	if err != nil || !cmp.Equal(keys(got), []string{"telegram:10"}) {
		t.Errorf("the next page of ann: %v, %v", keys(got), err)
	}
}
