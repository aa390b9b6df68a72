package transcribe_test

import (
	"context"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/agent/transcribe"
)

func testContext(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, body, typ string
		want            transcribe.Result
		err             error
		fails           bool
	}{
		{name: "json", body: `{"text":"hello there"}`, typ: "application/json", want: transcribe.Result{Text: "hello there"}},
		{name: "verbose_json", body: `{"task":"transcribe","language":"english","duration":8.47,"text":"hi","segments":[]}`,
			want: transcribe.Result{Text: "hi", Duration: 8470 * time.Millisecond, Language: "english"}},
		{name: "quoted duration", body: `{"text":"hi","duration":"12"}`, want: transcribe.Result{Text: "hi", Duration: 12 * time.Second}},
		{name: "null duration", body: `{"text":"hi","duration":null}`, want: transcribe.Result{Text: "hi"}},
		{name: "absurd duration is capped", body: `{"text":"hi","duration":1e300}`, want: transcribe.Result{Text: "hi", Duration: 24 * time.Hour}},
		{name: "plain text", body: "hello\n", typ: "text/plain; charset=utf-8", want: transcribe.Result{Text: "hello"}},
		{name: "json labelled text", body: `{"text":"hi"}`, typ: "text/plain", want: transcribe.Result{Text: "hi"}},
		{name: "empty", body: `{"text":""}`, err: transcribe.ErrEmpty},
		{name: "empty plain", body: " \n", typ: "text/plain", err: transcribe.ErrEmpty},
		{name: "negative duration", body: `{"text":"hi","duration":-1}`, fails: true},
		{name: "text not a string", body: `{"text":5}`, fails: true},
		{name: "not json", body: `<html>`, typ: "text/html", fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := transcribe.Parse([]byte(tt.body), tt.typ)
			switch {
			case tt.err != nil || tt.fails:
				if err == nil || tt.err != nil && !errors.Is(err, tt.err) {
					t.Fatalf("Parse = %+v, %v; want an error (%v)", got, err, tt.err)
				}
			case err != nil || got != tt.want:
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// FuzzParse: whatever a server answers, Parse returns a transcript with
// words, valid UTF-8 and a duration within bounds, or an error; it never
// panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"text":"hi","duration":3.5}`, `{"text":"a","duration":"2"}`, `hello`, `{"text":null}`, `{"duration":1e309}`, "\xff"} {
		f.Add([]byte(s), "application/json")
		f.Add([]byte(s), "text/plain")
	}
	f.Fuzz(func(t *testing.T, body []byte, typ string) {
		r, err := transcribe.Parse(body, typ)
		if err != nil {
			return
		}
		if r.Text == "" || !utf8.ValidString(r.Text) || r.Duration < 0 || r.Duration > 24*time.Hour {
			t.Fatalf("Parse(%q, %q) = %+v", body, typ, r)
		}
	})
}
