package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/internal/percentile"
)

// latencyStats summarises answer latencies.
type latencyStats struct {
	P50, P90, P99, Max, Mean time.Duration
}

func summarise(ds []time.Duration) latencyStats {
	if len(ds) == 0 {
		return latencyStats{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return latencyStats{
		P50:  percentile.Nearest(sorted, 50),
		P90:  percentile.Nearest(sorted, 90),
		P99:  percentile.Nearest(sorted, 99),
		Max:  sorted[len(sorted)-1],
		Mean: sum / time.Duration(len(sorted)),
	}
}

// memory is a process's memory, in bytes, as /proc/<pid>/status tells.
type memory struct {
	Peak    int64 // VmHWM: the resident set's high-water mark
	Current int64 // VmRSS: resident now, private and mapped file pages
	// Anon is RssAnon: the private (anonymous) resident pages, what the
	// process itself allocated — the figure that does not depend on how
	// the binary's file sits in the page cache.
	Anon int64
	// File is RssFile: the resident pages of mapped files, mostly the
	// binary's; how many depends on the page cache (docs/footprint.md).
	File int64
}

var errNoMemory = errors.New("no VmHWM/VmRSS in status")

// parseStatus reads VmHWM, VmRSS, RssAnon and RssFile from a
// /proc/<pid>/status. RssAnon and RssFile (Linux ≥ 4.5) may be missing;
// the other two may not.
func parseStatus(r io.Reader) (memory, error) {
	var m memory
	var seen int
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		var dst *int64
		switch {
		case !ok:
			continue
		case key == "VmHWM":
			dst = &m.Peak
		case key == "VmRSS":
			dst = &m.Current
		case key == "RssAnon":
			dst = &m.Anon
		case key == "RssFile":
			dst = &m.File
		default:
			continue
		}
		fields := strings.Fields(val)
		if len(fields) != 2 || fields[1] != "kB" {
			return memory{}, fmt.Errorf("%s: unexpected value %q", key, val)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("%s: %w", key, err)
		}
		*dst = kb * 1024
		if dst == &m.Peak || dst == &m.Current {
			seen++
		}
	}
	if err := sc.Err(); err != nil {
		return memory{}, err
	}
	if seen != 2 {
		return memory{}, errNoMemory
	}
	return m, nil
}

func readMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	defer f.Close()
	return parseStatus(f)
}

// memReader reads memory now: one process's (memorySampler) or the sum
// over the replicas (fleet).
type memReader interface {
	update() (memory, error)
}

// memorySampler keeps the latest reading of a process's memory, so the
// figures survive the process dying mid-run, and the highest private
// memory seen (the kernel keeps a high-water mark of the resident set
// only).
type memorySampler struct {
	pid      int
	mu       sync.Mutex
	last     memory
	peakAnon int64
	ok       bool  // last holds a reading
	err      error // why there is none yet
}

// update reads the memory now and returns the reading.
func (s *memorySampler) update() (memory, error) {
	m, err := readMemory(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == nil:
		s.last, s.ok = m, true
		s.peakAnon = max(s.peakAnon, m.Anon)
	case !s.ok:
		s.err = err
	}
	return m, err
}

// latest is the latest good reading, and the peak of private memory.
func (s *memorySampler) latest() (m memory, peakAnon int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ok {
		return memory{}, 0, s.err
	}
	return s.last, s.peakAnon, nil
}

// run updates every interval until ctx ends.
func (s *memorySampler) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.update()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fileSize is the size of path, 0 when it does not exist.
func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
