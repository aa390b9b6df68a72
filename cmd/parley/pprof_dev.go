//go:build parleypprof

package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"syscall"
)

// A development build (-tags parleypprof) shows where memory goes, for the
// footprint work (docs/footprint.md). With PARLEY_PPROF=<prefix> set, each
// SIGUSR1 writes <prefix>.<n>.heap and <prefix>.<n>.goroutines after a GC
// and logs the runtime's memory classes and SQLite's malloc use; SIGUSR2
// returns every free page to the OS (debug.FreeOSMemory), to tell live
// memory from garbage not yet scavenged. GODEBUG=memprofilerate=1 records
// every allocation, package initialisation included. It is a build tag,
// not an endpoint or a flag: the shipped binary neither carries
// runtime/pprof nor offers anyone a profile.
func init() {
	prefix := os.Getenv("PARLEY_PPROF")
	if prefix == "" {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	free := make(chan os.Signal, 1)
	signal.Notify(free, syscall.SIGUSR2)
	go func() {
		// SIGUSR2 returns every free page, to tell live memory from garbage
		// the scavenger has not returned yet.
		for range free {
			debug.FreeOSMemory()
		}
	}()
	go func() {
		for n := 0; ; n++ {
			<-sig
			runtime.GC()
			f, err := os.Create(fmt.Sprintf("%s.%d.heap", prefix, n))
			if err != nil {
				fmt.Fprintln(os.Stderr, "parley: pprof:", err)
				continue
			}
			err = pprof.Lookup("heap").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "parley: pprof:", err)
			}
			if g, err := os.Create(fmt.Sprintf("%s.%d.goroutines", prefix, n)); err == nil {
				_ = pprof.Lookup("goroutine").WriteTo(g, 1)
				g.Close()
			}
			writeMemClasses()
			writeSQLiteMemory()
		}
	}()
}

// writeMemClasses logs where the runtime's memory is: heap objects, free
// heap not yet returned, metadata, stacks.
func writeMemClasses() {
	var samples []metrics.Sample
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") || d.Name == "/gc/heap/goal:bytes" {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			fmt.Fprintf(os.Stderr, "memclass %s %d KiB\n", s.Name, s.Value.Uint64()/1024)
		}
	}
}
