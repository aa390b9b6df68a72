package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/remind"
)

// benchPending is how many reminders wait in the benchmarks' database.
const benchPending = 100_000

// benchBase is the benchmarks' now.
var benchBase = time.Date(2026, 10, 20, 7, 0, 0, 0, time.UTC)

// seedReminders inserts n active items in one transaction, every one a
// realistic row (targets, a thread, a sentence of text), due one second
// apart from first; every other one is a daily recurrence in Berlin.
// AddItem would take a transaction each: 100,000 commits are setup
// nobody wants to wait for.
func seedReminders(tb testing.TB, db *DB, first time.Time, n int) {
	tb.Helper()
	ctx := context.Background()
	err := db.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO reminders (kind, scope, owner, targets, platform, space, chat, thread, direct,
				text, spec, zone, next, status, created_at)
			VALUES (?, ?, ?, ?, 'slack', 'T1', 'C1', '1700000000.000100', 0, ?, ?, 'Europe/Berlin', ?, 'active', ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := range n {
			kind, spec := remind.KindReminder, ""
			if i%2 == 1 {
				kind, spec = remind.KindSchedule, "0 9 * * *"
			}
			owner := fmt.Sprintf("slack:U%05d", i%5000)
			if _, err := stmt.ExecContext(ctx, kind, "space:slack:T1", owner, `["`+owner+`"]`,
				fmt.Sprintf("reminder %d: check the deploy pipeline and post the status in the channel", i),
				spec, millis(first.Add(time.Duration(i)*time.Second)), millis(benchBase)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func openBench(b *testing.B) *DB {
	b.Helper()
	db, err := Open(b.Context(), filepath.Join(b.TempDir(), "parley.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkRemindersNextDue: the loop's question before every sleep, with
// 100,000 reminders waiting.
func BenchmarkRemindersNextDue(b *testing.B) {
	db := openBench(b)
	seedReminders(b, db, benchBase.Add(time.Hour), benchPending)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := db.NextItemDue(b.Context()); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkRemindersClaim: 1,000 items come due at once, among 100,000
// waiting; one ClaimDue takes them all (a claim row each, each item
// advanced). one-off: one-offs only; recurring: daily recurrences, whose
// next occurrence is computed in Berlin.
func BenchmarkRemindersClaim(b *testing.B) {
	const due = 1000
	for _, recurring := range []bool{false, true} {
		b.Run(map[bool]string{false: "one-off", true: "recurring"}[recurring], func(b *testing.B) {
			db := openBench(b)
			seedReminders(b, db, benchBase.Add(24*time.Hour), benchPending)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				seedDue(b, db, due, recurring)
				b.StartTimer()
				claims, err := db.ClaimDue(b.Context(), benchBase, time.Hour, due)
				if err != nil || len(claims) != due {
					b.Fatalf("%d claims, %v", len(claims), err)
				}
			}
		})
	}
}

// seedDue adds n items due at benchBase.
func seedDue(b *testing.B, db *DB, n int, recurring bool) {
	spec := ""
	if recurring {
		spec = "0 9 * * *"
	}
	err := db.write(b.Context(), func(tx *sql.Tx) error {
		for i := range n {
			if _, err := tx.ExecContext(b.Context(), `
				INSERT INTO reminders (kind, scope, owner, platform, text, spec, zone, next, status, created_at)
				VALUES ('reminder', 'space:slack:T1', 'slack:U1', 'slack', ?, ?, 'Europe/Berlin', ?, 'active', ?)`,
				fmt.Sprintf("due %d", i), spec, millis(benchBase.Add(-time.Duration(i)*time.Millisecond)), millis(benchBase)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRemindersFootprint: what 100,000 waiting reminders cost: the
// database file (main file and WAL, after a checkpoint) and the Go heap
// (the store keeps no reminder in memory; SQLite's page cache is C
// memory, bounded by its cache_size). One op seeds and measures.
func BenchmarkRemindersFootprint(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		db := openBench(b)
		// Twice: what Open leaves behind includes objects with
		// finalizers, which a second cycle frees.
		runtime.GC()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		seedReminders(b, db, benchBase.Add(time.Hour), benchPending)
		b.StopTimer()
		if _, err := db.w.ExecContext(b.Context(), `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		var size int64
		for _, suffix := range []string{"", "-wal"} {
			if fi, err := os.Stat(db.path + suffix); err == nil {
				size += fi.Size()
			}
		}
		runtime.GC()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(size)/1e6, "db-MB")
		b.ReportMetric(float64(size)/benchPending, "db-B/item")
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1e3, "heap-KB")
		b.StartTimer()
	}
}
