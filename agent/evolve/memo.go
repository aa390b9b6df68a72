package evolve

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// The self-memo: two capped notes per scope that reflection keeps —
// "self", what Parley does well and where it trips up here, and "team",
// what works with this team — injected into every prompt of the scope as
// Parley's own notes.

// Memo kinds.
const (
	MemoSelf = "self"
	MemoTeam = "team"
)

// MemoChars caps each note.
const MemoChars = 1500

// Memo is a scope's two notes.
type Memo struct {
	Self, Team string
}

// MemoStore keeps self-memos (store.DB).
type MemoStore interface {
	Memo(ctx context.Context, scope string) (Memo, error)
	SetMemo(ctx context.Context, scope, kind, text string) error
}

// ErrMemoTooLong refuses a note over MemoChars.
var ErrMemoTooLong = fmt.Errorf("a note may hold at most %d characters: consolidate", MemoChars)

// updateMemo replaces one note, refusing what is too long, what would
// empty it or cut it by more than half (a truncated reply must not wipe
// it), after guard has vetted the text.
func updateMemo(ctx context.Context, st MemoStore, guard func(context.Context, string, []string) error, scope, kind, text string) error {
	if kind != MemoSelf && kind != MemoTeam {
		return errors.New(`note must be "self" or "team"`)
	}
	if utf8.RuneCountInString(text) > MemoChars {
		return ErrMemoTooLong
	}
	m, err := st.Memo(ctx, scope)
	if err != nil {
		return err
	}
	old := m.Self
	if kind == MemoTeam {
		old = m.Team
	}
	if old != "" && shrinks(old, text) {
		return ErrShrink
	}
	if err := guard(ctx, text, []string{m.Self, m.Team}); err != nil {
		return err
	}
	return st.SetMemo(ctx, scope, kind, text)
}
