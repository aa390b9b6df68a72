package store

import (
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
)

// Full-text search of conversations (the console's Conversations page,
// later the history_search tool): what both engines answer alike. Each
// engine indexes what people wrote and Parley's answers
// (rowdata.SearchText) the way it indexes the knowledge base — SQLite's
// FTS5 over kb.IndexText's derived text (CJK bigrams), PostgreSQL's
// tsvector of the same text — and reads a query through kb.MatchQuery, so
// nothing a person types is query syntax.

// ErrNoMessageIndex is SearchMessages' answer in a SQLite build without
// FTS5: conversations are stored as ever, and indexed once a build with
// FTS5 opens the database.
var ErrNoMessageIndex = errors.New("searching conversations is off: this build of Parley has no SQLite FTS5 (rebuild with -tags sqlite_fts5)")

// MessageSearch says what SearchMessages looks for, and where.
type MessageSearch struct {
	// Query is what someone typed; words and CJK text, never query syntax.
	Query string
	// User ("platform:id") keeps the conversations the person took part in
	// or started, as ConversationFilter.User does; "" searches every
	// conversation (an admin).
	User string
	// Places, when any, keep the conversations held by one of them.
	Places []Place
	// Chats, when any, keep the conversations held in one of these chats,
	// each matched exactly (an empty Space is no space): history_search's
	// reach, which the index answers by itself.
	Chats []Place
	// Role, when set, keeps one side's messages: people's (llm.RoleUser)
	// or Parley's (llm.RoleAssistant).
	Role llm.Role
	// AuthorName, when set, keeps people's messages whose author's name
	// (llm.Message.Author) has each of its words (AuthorWords) among its
	// own, in any case: "ana" finds Ana Lima's, "ana lima" not Ana's.
	AuthorName string
	// Since keeps messages stored at or after it; zero: any time.
	Since time.Time
	// Window is how many of the newest matches are ranked (0 or less:
	// SearchWindow): a search that shows a few hits ranks fewer, and
	// stops sooner on a common word.
	Window int
	// Limit caps the hits (0 or less: DefaultSearchLimit); Offset skips
	// the first hits (a further page).
	Limit, Offset int
}

// AuthorWords are name's words as MessageSearch.AuthorName matches them:
// its runs of letters and digits, lower-cased.
func AuthorWords(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// WindowSize is how many of the newest matches q ranks: its Window, or
// SearchWindow.
func (q MessageSearch) WindowSize() int {
	if q.Window > 0 {
		return q.Window
	}
	return SearchWindow
}

// DefaultSearchLimit is how many hits a search without a Limit returns.
const DefaultSearchLimit = 50

// SearchWindow is how many of the newest matches a search ranks, on
// either engine. A word in most messages matches hundreds of thousands of
// them, and ranking them all costs a second on a million messages;
// ranking the newest matches costs what they are, whatever the word. A
// rarer word's matches (fewer than this) are all ranked; a query mixing
// it with a common word ranks the newest SearchWindow rows holding
// either.
const SearchWindow = 2000

// Place is a set of conversations by where they are: a platform, and
// within it a space (a Slack workspace, a Discord server) and a chat (a
// channel, a group, a DM). An empty Space or Chat matches any, so
// {Platform: "slack", Space: "T01"} is a whole workspace. The
// history_search tool will name the places a person may see with these.
type Place struct {
	Platform, Space, Chat string
}

// MessageHit is one message a search found.
type MessageHit struct {
	// SessionID is the conversation; Thread where it is.
	SessionID string
	Thread    chat.Thread
	// MessageID is the stored message's id; Position its place in the
	// transcript, from 1 (what Transcript returns in that order).
	MessageID int64
	Position  int
	// At is when the message was stored.
	At time.Time
	// Role says who wrote it: a person (llm.RoleUser) or Parley.
	Role llm.Role
	// AuthorKey is the person who wrote a user message ("platform:id"), as
	// Transcript finds it; AuthorName the name the message carries. Both
	// "" for Parley's answers.
	AuthorKey, AuthorName string
	// Key is the inbox key of a person's message (llm.Message.Key), what
	// its adapter links to; "" for Parley's answers.
	Key string
	// Snippet is a short piece of the message around what matched, the
	// matching words marked: plain text, for the reader to escape.
	Snippet []SnippetPart
	// Score orders the hits, higher first; comparable within one search.
	Score float64
}

// SnippetPart is a piece of a snippet, Match when it is what was searched.
type SnippetPart struct {
	Text  string
	Match bool
}

// The snippet's size, in characters, and how much of it comes before the
// first match.
const (
	snippetRunes  = 200
	snippetBefore = 60
)

// Snippet is the part of text around the first of query's words it holds,
// those words marked wherever they occur in it; the start of text, nothing
// marked, when none occurs. Words match as the index matches them: case
// folded, whole words, and CJK text by its characters' pairs. Runs of
// white space read as one space.
func Snippet(text, query string) []SnippetPart {
	runes := []rune(strings.Join(strings.Fields(text), " "))
	lower := make([]rune, len(runes))
	for i, r := range runes {
		lower[i] = unicode.ToLower(r)
	}
	marked := make([]bool, len(runes))
	first := -1
	for _, term := range snippetTerms(query) {
		for i := 0; i+len(term.text) <= len(lower); i++ {
			if !slices.Equal(lower[i:i+len(term.text)], term.text) || (!term.cjk && !wordAt(lower, i, len(term.text))) {
				continue
			}
			for j := i; j < i+len(term.text); j++ {
				marked[j] = true
			}
			if first < 0 || i < first {
				first = i
			}
		}
	}
	start := 0
	if first > snippetBefore {
		start = first - snippetBefore
	}
	end := min(len(runes), start+snippetRunes)
	if end == len(runes) {
		start = max(0, end-snippetRunes)
	}
	var parts []SnippetPart
	add := func(s string, match bool) {
		if n := len(parts); n > 0 && parts[n-1].Match == match {
			parts[n-1].Text += s
			return
		}
		parts = append(parts, SnippetPart{Text: s, Match: match})
	}
	if start > 0 {
		add("…", false)
	}
	for i := start; i < end; i++ {
		add(string(runes[i]), marked[i])
	}
	if end < len(runes) {
		add("…", false)
	}
	return parts
}

// snippetTerm is what Snippet marks: a word, or a CJK character pair (a
// lone character where the query has only one).
type snippetTerm struct {
	text []rune
	cjk  bool
}

// snippetTerms are query's words as kb.MatchQuery reads them, CJK runs
// as their pairs.
func snippetTerms(query string) []snippetTerm {
	var out []snippetTerm
	for _, w := range kb.QueryWords(query) {
		run := []rune(w.Text)
		if !w.CJK || len(run) == 1 {
			out = append(out, snippetTerm{text: run, cjk: w.CJK})
			continue
		}
		for i := 0; i+1 < len(run); i++ {
			out = append(out, snippetTerm{text: run[i : i+2], cjk: true})
		}
	}
	return out
}

// wordAt reports whether text[i:i+n] is a whole word: no word character
// glued to either end (CJK text is cut apart from letters, as the index
// cuts it).
func wordAt(text []rune, i, n int) bool {
	glued := func(r rune) bool {
		return (unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_') && !kb.IsCJK(r)
	}
	return (i == 0 || !glued(text[i-1])) && (i+n == len(text) || !glued(text[i+n]))
}
