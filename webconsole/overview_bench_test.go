package webconsole_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/internal/percentile"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole"
)

// BenchmarkOverviewAnswers: the admin's overview with a busy day on
// record — 100,000 turns in its last 24 hours (more than one a second),
// read and laid out on every request — on SQLite.
func BenchmarkOverviewAnswers(b *testing.B) {
	ctx := b.Context()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "parley.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	const turns = 100_000
	for i := range turns {
		t := bot.TurnRecord{At: now.Add(-time.Duration(i) * 24 * time.Hour / turns), Outcome: bot.TurnAnswered,
			Latency: time.Duration(300+i%4700) * time.Millisecond}
		if i%50 == 0 {
			t.Outcome = bot.TurnFailed
		}
		if err := db.FinishTurn(ctx, nil, t); err != nil {
			b.Fatal(err)
		}
	}
	srv, err := webconsole.New(webconsole.Config{Auth: db, Audit: db, Data: db, Turns: db, Now: func() time.Time { return now },
		IsAdmin: func(u string) bool { return u == benchAdmin }})
	if err != nil {
		b.Fatal(err)
	}
	cookie := benchSignIn(b, srv, benchAdmin)
	get := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(cookie)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w
	}
	if w := get(); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Latency p95, 24 h") {
		b.Fatalf("GET /: %d\n%.2000s", w.Code, w.Body.String())
	}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		if w := get(); w.Code != http.StatusOK {
			b.Fatalf("GET /: %d", w.Code)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(percentile.Nearest(took, 50))/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(percentile.Nearest(took, 95))/float64(time.Millisecond), "p95-ms")
}
